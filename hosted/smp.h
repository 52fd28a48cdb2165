/* Hosted (Linux) start of the SMP interface (arch/smp.h): worker threads pinned one per allowed
 * CPU, standing in for the application processors the firmware starts on bare metal. */
#ifndef HOSTED_SMP_H
#define HOSTED_SMP_H

#include <sched.h>

#include "arch/smp.h"

/* main_cpu: the CPU the calling thread is pinned to (CPU 0 of the interface); one worker for each
 * other CPU in `allowed`, up to max_cpus CPUs in all. Once per process. Returns the CPUs online. */
unsigned smp_hosted_start(int main_cpu, const cpu_set_t *allowed, unsigned max_cpus, uint64_t counter_hz);
/* Only the main thread, no workers (option smp=0, or the thread is not pinned): `reason` says why. */
void smp_start_none(const char *reason);

#endif
