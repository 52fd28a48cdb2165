/* The `plat kind=smp` record: which processors run (bare metal: started by the firmware after
 * ExitBootServices; hosted: one pinned thread per allowed CPU), and why not where they do not. */
#ifndef BENCH_SMP_FACTS_H
#define BENCH_SMP_FACTS_H

#include "lib/record.h"

struct smp_report;

/* From smp_report() and the CPU list; also a summary line "CPUs online". */
void smp_facts_emit(void);
/* The fields only one architecture's smp_report has (bench/facts/x86_64/smp.c,
 * bench/facts/aarch64/smp.c). */
void smp_facts_arch_fields(struct record *r, const struct smp_report *rep);

#endif
