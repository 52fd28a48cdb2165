/* Other processors in the AArch64 build (arch/smp.h): not started yet (PSCI CPU_ON is left for the
 * port), so the machine is CPU 0 alone. Only the part of the x86_64 interface that code built for
 * AArch64 calls is here. */
#ifndef ARCH_AARCH64_SMP_H
#define ARCH_AARCH64_SMP_H

#include <stdbool.h>

/* CPUs running, CPU 0 included: 1. */
unsigned smp_cpus_online(void);
/* Hooks around each secondary CPU's share of smp_run_all (the profiler's): accepted, never called
 * (there are no secondary CPUs running). */
void smp_set_all_hooks(void (*begin)(unsigned cpu), void (*end)(unsigned cpu));

#endif
