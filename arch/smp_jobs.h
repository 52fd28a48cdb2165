/* Work dispatch to other processors, the contract every build implements: post a job to a CPU,
 * wait for it bounded, ask how it went; a common start for all (arch/smp_all.c, over the rest).
 * On bare metal the job mailboxes of efi/smp.c implement it (with efi/<cpu>/smp.c starting the
 * cores); the hosted build implements it with threads (hosted/smp.c). */
#ifndef ARCH_SMP_JOBS_H
#define ARCH_SMP_JOBS_H

#include <stdbool.h>
#include <stdint.h>

#include "arch/traps.h"

enum smp_cpu_status {
	SMP_CPU_IDLE,    /* online, no job pending (the last one, if any, finished) */
	SMP_CPU_BUSY,    /* a job is posted or running */
	SMP_CPU_FAULTED, /* online; its last job ended in an exception (smp_cpu_fault) */
	SMP_CPU_DEAD,    /* took an exception outside a job and stopped */
	SMP_CPU_NONE,    /* no such CPU */
};

/* Post fn(arg) to CPU `cpu` and return at once; false if it is not online or still busy. For
 * cpu 0 (the BSP) fn runs now, before smp_run returns. */
bool smp_run(unsigned cpu, void (*fn)(void *), void *arg);
/* Wait at most timeout_cycles for CPU `cpu`'s job: true when it finished without a fault. */
bool smp_wait(unsigned cpu, uint64_t timeout_cycles);
enum smp_cpu_status smp_cpu_status(unsigned cpu);
/* The exception that ended CPU `cpu`'s last job (or stopped it); false if there was none. */
bool smp_cpu_fault(unsigned cpu, struct trap_info *out);

/* Run fn(args[i]) on CPUs 0..n-1 (BSP included) with a common start (arch/smp_all.c): every AP
 * first checks in and spins on a shared start flag; once all have checked in, the BSP releases
 * them and runs args[0] itself. False (and fn not run where it had not started) if an AP was not
 * ready in time; false if a job faulted or did not finish within timeout_cycles of the start. */
bool smp_run_all(unsigned n, void (*fn)(void *), void *const args[], uint64_t timeout_cycles);
/* Functions every AP of smp_run_all calls on itself right before and after fn (NULL: none): the
 * profiler starts and stops sampling there. Not called for the BSP's share. */
void smp_set_all_hooks(void (*begin)(unsigned cpu), void (*end)(unsigned cpu));

#endif
