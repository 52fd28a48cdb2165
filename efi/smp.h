/* The CPU-neutral half of the bare-metal environment's SMP unit: the job mailboxes that implement
 * arch/smp_jobs.h's work dispatch (smp_run, smp_wait, smp_cpu_status, smp_cpu_fault) on bare
 * metal. Each online AP has a mailbox in its control block, the BSP posts a job there and waits
 * for it bounded, and the AP runs the job under a recovery point so an exception in it ends the
 * job, not the run. The per-CPU halves (efi/x86_64/smp.c, efi/aarch64/smp.c) keep what differs:
 * how a core is started, how an idle one waits and is woken, and how its exceptions reach
 * smp_mailbox_trap; they hand this half their wake-up as an ops table (smp_mailbox_attach) and
 * number each AP's mailbox in efi/smp_table.c, so the calls go one way, from them to here. The hosted build implements
 * arch/smp_jobs.h with threads instead (hosted/smp.c). */
#ifndef EFI_SMP_H
#define EFI_SMP_H

#include <stdint.h>

#include "arch/smp_jobs.h"
#include "arch/traps.h"

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

/* What each port supplies: the wake-up of online AP `cpu` after a post (the post is visible first).
 * The mailboxes themselves are the ones the port numbered online (efi/smp_table.h). */
struct smp_mailbox_ops {
	void (*kick)(unsigned cpu);
};
/* The port's ops, before any AP is online (its BSP set-up). Until then every CPU but the BSP is
 * "not online": smp_run runs cpu 0's jobs at once and refuses the others. */
void smp_mailbox_attach(const struct smp_mailbox_ops *ops);

/* The AP side: run job number `seq` (the mailbox's posted count when it was seen) under the
 * recovery point, then publish done = seq after the job's stores (non-temporal ones included). */
void smp_mailbox_run(struct smp_mailbox *mb, uint64_t seq);
/* From the AP's exception handler: keep the fault; the recovery point to resume at when a job was
 * running and the exception is recoverable, else mark the AP dead and return NULL. */
const struct fault_jmp *smp_mailbox_trap(struct smp_mailbox *mb, const struct trap_info *info);

#endif
