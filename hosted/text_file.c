/* Small text files read whole (see text_file.h). */
#include "hosted/text_file.h"

#include <stdio.h>
#include <string.h>

bool read_text(const char *path, char *buf, size_t cap)
{
	FILE *f = fopen(path, "r");
	size_t n;

	buf[0] = '\0';
	if (!f)
		return false;
	n = fread(buf, 1, cap - 1, f);
	buf[n] = '\0';
	fclose(f);
	return true;
}

bool read_line(const char *path, char *buf, size_t cap)
{
	if (!read_text(path, buf, cap))
		return false;
	buf[strcspn(buf, "\n")] = '\0';
	return true;
}
