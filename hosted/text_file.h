/* Small text files of /proc and /sys, read whole: the helper the hosted units share (facts.c,
 * irq_facts.c, setup.c), a unit of its own so that none of them depends on another for it. */
#ifndef HOSTED_TEXT_FILE_H
#define HOSTED_TEXT_FILE_H

#include <stdbool.h>
#include <stddef.h>

/* Read a whole (small) file / its first line without the newline; false (buf "") when unreadable. */
bool read_text(const char *path, char *buf, size_t cap);
bool read_line(const char *path, char *buf, size_t cap);

#endif
