/* A short human summary of the run, built as it goes: shown on screen at the end for a user who
 * has no serial cable (UEFI), or on stderr (hosted). Plain text, bounded size. */
#ifndef BENCH_SUMMARY_H
#define BENCH_SUMMARY_H

#include "bench/core/probe.h"

#define SUMMARY_MAX 4096

/* The text's memory (cap bytes, at most SUMMARY_MAX are used) comes from the environment: pool
 * memory on UEFI, where a static buffer would be 4 KiB of the .efi (gnu-efi keeps .bss in the
 * file), a static buffer hosted. Lines before it, or without it, are dropped. */
void summary_init(char *buf, size_t cap);
void summary_line(const char *text);
/* "label: value unit" with value as a fixed-point decimal (value / 10^decimals). */
void summary_value(const char *label, uint64_t value, unsigned decimals, const char *unit);
void summary_probe(const char *name, enum probe_status status);
void summary_fault(const char *name, const char *probe, bool expected);
void summary_status(const char *status, uint32_t records);
const char *summary_text(void);

#endif
