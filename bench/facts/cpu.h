/* The `plat kind=cpu` record's identity fields, the same on every CPU (x86_64:
 * bench/facts/x86_64/platform.c, AArch64: bench/facts/aarch64/platform.c add their own after). */
#ifndef BENCH_FACTS_CPU_H
#define BENCH_FACTS_CPU_H

#include "arch/cpu_info.h"
#include "lib/emit.h"

/* Open the record: kind, vendor, family, model, stepping, brand. The caller adds its CPU's fields
 * and calls emit_finish(). */
struct record *platform_cpu_record_start(const struct cpu_info *ci);

#endif
