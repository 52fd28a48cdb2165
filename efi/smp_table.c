/* The processors online and the start-up report on bare metal, the same for every port (see
 * efi/smp_table.h). CPU numbers are dense over the CPUs online: 0 is the BSP, then the APs in the
 * order they came up. */
/* OPT_FAST: -O2 (Makefile): smp_table_hw_id runs in the profiler's handler (smp_cpu_hw_id). */
#include "efi/smp_table.h"

#include "arch/cycles.h"

static struct {
	struct smp_report rep;
	uint32_t hw_id[SMP_MAX_CPUS];          /* by CPU number; [0] is the BSP's */
	struct smp_mailbox *mb[SMP_MAX_CPUS];  /* [0] NULL: the BSP runs its jobs itself */
	void *block[SMP_MAX_CPUS];
	unsigned n_online;
} t;

void smp_table_begin(uint32_t bsp_hw_id, const struct madt_info *madt)
{
	t.rep = (struct smp_report){ 0 };
	t.n_online = 1;
	t.mb[0] = 0;
	t.block[0] = 0;
	t.rep.cpus_online = 1;
	smp_table_bsp_id(bsp_hw_id);
	if (madt && madt->valid) {
		t.rep.cpus_madt = madt->num_enabled;
		t.rep.hotplug = madt->num_online_capable;
	}
}

void smp_table_bsp_id(uint32_t bsp_hw_id)
{
	t.hw_id[0] = t.rep.bsp_hw_id = bsp_hw_id;
}

struct smp_report *smp_table_rep(void)
{
	return &t.rep;
}

const struct madt_cpu *smp_table_next_ap(const struct madt_info *madt, unsigned *i, unsigned tried,
					 unsigned max_cpus)
{
	if (max_cpus > SMP_MAX_CPUS)
		max_cpus = SMP_MAX_CPUS;
	while (*i < madt->num_cpus) {
		const struct madt_cpu *m = &madt->cpus[(*i)++];

		if (!madt_cpu_enabled(m) || m->apic_id == t.rep.bsp_hw_id)
			continue;
		if (tried + 1 >= max_cpus) {
			t.rep.not_started++;
			continue;
		}
		return m;
	}
	return 0;
}

void smp_table_fail(uint32_t hw_id, unsigned stage, const char *reason)
{
	struct smp_failure *f;

	if (t.rep.num_failed >= SMP_MAX_CPUS)
		return;
	f = &t.rep.failed[t.rep.num_failed++];
	f->hw_id = hw_id;
	f->stage = stage;
	f->reason = reason;
}

void smp_table_add(uint32_t hw_id, struct smp_mailbox *mb, void *block, uint64_t asked, uint64_t online)
{
	if (t.n_online >= SMP_MAX_CPUS)
		return;
	if (online - asked > t.rep.ap_max_cycles)
		t.rep.ap_max_cycles = online - asked;
	t.hw_id[t.n_online] = hw_id;
	t.mb[t.n_online] = mb;
	t.block[t.n_online] = block;
	t.n_online++;
}

unsigned smp_table_done(const char *how, uint64_t t0)
{
	t.rep.bringup_cycles = cycles_read() - t0;
	t.rep.cpus_online = t.n_online;
	t.rep.how = how;
	return t.n_online;
}

struct smp_mailbox *smp_table_mailbox(unsigned cpu)
{
	return cpu > 0 && cpu < t.n_online ? t.mb[cpu] : 0;
}

void *smp_table_block(unsigned cpu)
{
	return cpu > 0 && cpu < t.n_online ? t.block[cpu] : 0;
}

const struct smp_report *smp_report(void)
{
	return &t.rep;
}

unsigned smp_cpus_online(void)
{
	return t.n_online ? t.n_online : 1;
}

bool smp_table_hw_id(unsigned cpu, uint32_t *id)
{
	if (cpu >= t.n_online)
		return false;
	*id = t.hw_id[cpu];
	return true;
}
