/* Work dispatch through the APs' mailboxes (arch/smp_jobs.h's contract; see efi/smp.h), the same
 * on every bare-metal port. Ordering: the BSP writes fn/arg, then publishes `posted` with release;
 * the AP reads `posted` with acquire and publishes `done` with release after a full fence (a job's
 * non-temporal stores are not ordered by a release store alone on x86). */
/* OPT_FAST: -O2 (Makefile): the other processors' start and work dispatch (smp probes time it). */
#include "efi/smp.h"

#include "arch/cycles.h" /* cycles_read, cpu_relax */
#include "efi/smp_table.h"

static const struct smp_mailbox_ops *port; /* the per-CPU half's (smp_mailbox_attach) */

static uint64_t load_acquire(const volatile uint64_t *p)
{
	return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

void smp_mailbox_attach(const struct smp_mailbox_ops *ops)
{
	port = ops;
}

static struct smp_mailbox *mailbox_of(unsigned cpu)
{
	return port ? smp_table_mailbox(cpu) : 0;
}

bool smp_run(unsigned cpu, void (*fn)(void *), void *arg)
{
	struct smp_mailbox *mb = mailbox_of(cpu);

	if (cpu == 0) {
		fn(arg);
		return true;
	}
	if (!mb || mb->dead || mb->posted != load_acquire(&mb->done))
		return false;
	mb->fn = fn;
	mb->arg = arg;
	__atomic_store_n(&mb->posted, mb->posted + 1, __ATOMIC_RELEASE);
	port->kick(cpu);
	return true;
}

bool smp_wait(unsigned cpu, uint64_t timeout_cycles)
{
	struct smp_mailbox *mb = mailbox_of(cpu);
	uint64_t start = cycles_read();

	if (cpu == 0)
		return true;
	if (!mb)
		return false;
	while (load_acquire(&mb->done) != mb->posted) {
		if (mb->dead || cycles_read() - start > timeout_cycles)
			return false;
		cpu_relax();
	}
	return !mb->job_faulted;
}

enum smp_cpu_status smp_cpu_status(unsigned cpu)
{
	struct smp_mailbox *mb = mailbox_of(cpu);

	if (cpu == 0)
		return SMP_CPU_IDLE;
	if (!mb)
		return SMP_CPU_NONE;
	if (mb->dead)
		return SMP_CPU_DEAD;
	if (load_acquire(&mb->done) != mb->posted)
		return SMP_CPU_BUSY;
	return mb->job_faulted ? SMP_CPU_FAULTED : SMP_CPU_IDLE;
}

bool smp_cpu_fault(unsigned cpu, struct trap_info *out)
{
	struct smp_mailbox *mb = mailbox_of(cpu);

	if (!mb || !mb->has_fault)
		return false;
	*out = mb->fault;
	return true;
}

/* Kept out of line so the recovery point's frame is this function's alone. */
__attribute__((noinline)) void smp_mailbox_run(struct smp_mailbox *mb, uint64_t seq)
{
	void (*fn)(void *) = mb->fn;
	void *arg = mb->arg;

	mb->job_faulted = 0;
	mb->has_fault = 0;
	if (fault_try(&mb->jmp) == 0) {
		mb->armed = 1;
		fn(arg);
		mb->armed = 0;
	}
	__atomic_thread_fence(__ATOMIC_SEQ_CST); /* the job's stores before `done` */
	__atomic_store_n(&mb->done, seq, __ATOMIC_RELEASE);
}

const struct fault_jmp *smp_mailbox_trap(struct smp_mailbox *mb, const struct trap_info *info)
{
	mb->fault = *info;
	mb->has_fault = 1;
	if (mb->armed && info->recoverable) {
		mb->armed = 0;
		mb->job_faulted = 1;
		return &mb->jmp;
	}
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	__atomic_store_n(&mb->dead, 1, __ATOMIC_RELEASE);
	return 0;
}
