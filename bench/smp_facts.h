/* The `plat kind=smp` record: which processors run (bare metal: started by the firmware after
 * ExitBootServices; hosted: one pinned thread per allowed CPU), and why not where they do not. */
#ifndef BENCH_SMP_FACTS_H
#define BENCH_SMP_FACTS_H

/* From smp_report() and the CPU list; also a summary line "CPUs online". */
void smp_facts_emit(void);

#endif
