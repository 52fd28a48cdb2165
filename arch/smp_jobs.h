/* The portable half of work dispatch to other processors, shared by the bare-metal ports
 * (efi/x86_64/smp.c, efi/aarch64/smp.c): each online AP has a mailbox in its control block, the
 * BSP posts a job there and waits for it bounded, and the AP runs the job under a recovery point
 * so an exception in it ends the job, not the run. The ports keep what differs: how a core is
 * started, how an idle one waits and is woken (smp_arch_kick), and how its exceptions reach
 * smp_mailbox_trap. The hosted build implements arch/smp.h with threads instead. */
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

/* One AP's job slot. posted/done count jobs: the AP is busy while they differ. */
struct smp_mailbox {
	volatile uint32_t dead;        /* the AP stopped after an exception outside a job */
	volatile uint64_t posted;      /* jobs posted by the BSP */
	volatile uint64_t done;        /* jobs the AP finished */
	void (*volatile fn)(void *);
	void *volatile arg;
	volatile uint32_t armed;       /* a job runs under the recovery point jmp */
	volatile uint32_t job_faulted;
	volatile uint32_t has_fault;
	struct trap_info fault;
	struct fault_jmp jmp;
};

/* What each port supplies: the mailbox of online AP `cpu` (NULL for the BSP, cpu 0, and for a CPU
 * that is not online), and the wake-up of that AP after a post (the post is visible first). */
struct smp_mailbox *smp_arch_mailbox(unsigned cpu);
void smp_arch_kick(unsigned cpu);

/* The AP side: run job number `seq` (the mailbox's posted count when it was seen) under the
 * recovery point, then publish done = seq after the job's stores (non-temporal ones included). */
void smp_mailbox_run(struct smp_mailbox *mb, uint64_t seq);
/* From the AP's exception handler: keep the fault; the recovery point to resume at when a job was
 * running and the exception is recoverable, else mark the AP dead and return NULL. */
const struct fault_jmp *smp_mailbox_trap(struct smp_mailbox *mb, const struct trap_info *info);

/* The BSP side, over smp_arch_mailbox (the hosted build has its own, over threads). */
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
