/* The other cores of the AArch64 build on bare metal: PSCI CPU_ON bring-up and work dispatch
 * (see smp.h). */
/* OPT_FAST: -O2 (Makefile): the other processors' start and work dispatch (smp probes time it). */
#include "efi/aarch64/smp.h"

#include "efi/smp.h"
#include "efi/smp_table.h"

#include "arch/aarch64/ap_start.h"
#include "arch/aarch64/cpu.h"
#include "arch/aarch64/el2.h"
#include "arch/aarch64/psci.h"
#include "arch/traps.h"
#include "arch/cycles.h"
#include "drivers/fw/aarch64/madt_gicc.h"

#define US_PER_S 1000000ull
#define EL1 1
#define STACK_ALIGN 16

struct smp_cpu {
	struct ap_boot boot;           /* first: the stub reads it (x0 = this block) */
	uint32_t apic_id;              /* packed affinity, from the MADT */
	uint32_t seen_apic_id;         /* as the core read its MPIDR_EL1 */
	volatile uint32_t online;      /* set by the core in its C entry */
	uint32_t in_trap;              /* the core is in its exception handler */
	struct smp_mailbox mb;
	uint64_t on_tsc, online_tsc;
	int32_t psci_status;           /* CPU_ON's return */
} __attribute__((aligned(SMP_SLOT_ALIGN)));

_Static_assert(sizeof(struct smp_cpu) <= SMP_SLOT_BYTES, "struct smp_cpu outgrew SMP_SLOT_BYTES");

/* Each core's control block is at the bottom of its own memory (ap_slot); efi/smp_table.c
 * numbers the ones online and keeps the report. */

static uint32_t self_affinity(void)
{
	return madt_mpidr_pack(sysreg_read(mpidr_el1));
}

/* ---- the core's side ---- */

/* traps.c calls this for an exception on a core with TPIDR_EL1 set (ours: its control block). */
static const struct fault_jmp *ap_trap(void *cpu, const struct trap_info *info)
{
	struct smp_cpu *c = cpu;

	const struct fault_jmp *resume;

	if (c->in_trap) {
		c->mb.dead = 1; /* the handler itself faulted */
		return 0;
	}
	c->in_trap = 1;
	resume = smp_mailbox_trap(&c->mb, info);
	if (resume)
		c->in_trap = 0;
	return resume;
}

/* The C entry of a started core (the stub calls it on the core's stack; never returns). Idle in
 * wfe: a missed `sev` cannot strand it, since the event register stays set until its next wfe. */
static __attribute__((noreturn, used)) void ap_entry(struct smp_cpu *c)
{
	c->boot.stage = AP_STAGE_C;
	c->seen_apic_id = self_affinity();
	c->online_tsc = cycles_read();
	__atomic_store_n(&c->online, 1, __ATOMIC_RELEASE);
	for (;;) {
		uint64_t seen = c->mb.done, now;

		while ((now = __atomic_load_n(&c->mb.posted, __ATOMIC_ACQUIRE)) == seen)
			a64_wfe();
		smp_mailbox_run(&c->mb, now);
	}
}

/* ---- bring-up ---- */

static void fail(const struct smp_cpu *c, const char *reason)
{
	smp_table_fail(c->apic_id, (unsigned)c->boot.stage, reason);
}

/* The job mailboxes (efi/smp.c) wake a core through this. */
static void kick(unsigned cpu)
{
	(void)cpu;
	a64_sev(); /* dsb ish first: the post is visible before the core wakes */
}

static const struct smp_mailbox_ops mailbox_ops = { kick };

static void init_bsp(const struct madt_info *madt)
{
	smp_mailbox_attach(&mailbox_ops);
	smp_table_begin(self_affinity(), madt);
}

void smp_start_none(const struct madt_info *madt, const char *reason)
{
	init_bsp(madt);
	smp_table_rep()->reason = reason;
}

/* The BSP's state every core starts with. */
static void fill_boot(struct smp_cpu *c, uint64_t stack_top)
{
	struct ap_boot *b = &c->boot;

	b->mair = sysreg_read(mair_el1);
	b->tcr = sysreg_read(tcr_el1);
	b->ttbr0 = sysreg_read(ttbr0_el1);
	b->ttbr1 = sysreg_read(ttbr1_el1);
	b->sctlr = sysreg_read(sctlr_el1);
	b->cpacr = sysreg_read(cpacr_el1);
	b->vbar = sysreg_read(vbar_el1);
	b->stack = stack_top & ~(uint64_t)(STACK_ALIGN - 1);
	b->entry = (uint64_t)(uintptr_t)ap_entry;
	b->stage = AP_STAGE_NONE;
	b->el2 = *el2_config(); /* PSCI may start the core at EL2: it leaves as the BSP did */
}

static const char *check_args(const struct madt_info *madt, const uint8_t *stacks, size_t stack_size,
			      uint64_t counter_hz)
{
	if (!madt || !madt->valid)
		return "no valid MADT";
	if (cpu_current_el() != EL1)
		return "not at EL1: the start-up stub loads the EL1 translation regime";
	if (!traps_installed())
		return "no exception vectors installed";
	if (!counter_hz)
		return "generic timer frequency unknown: waits cannot be bounded";
	if (!stacks || stack_size < SMP_MIN_STACK_SIZE || (stack_size % SMP_SLOT_ALIGN) ||
	    ((uintptr_t)stacks % SMP_SLOT_ALIGN))
		return "no core stacks were reserved";
	return 0;
}

static struct smp_cpu *ap_slot(uint8_t *stacks, size_t stack_size, unsigned i)
{
	return (struct smp_cpu *)(void *)(stacks + (size_t)i * stack_size);
}

unsigned smp_start_aps(const struct madt_info *madt, bool use_hvc, uint8_t *stacks, size_t stack_size,
		       unsigned max_cpus, uint64_t counter_hz)
{
	struct smp_report *rep;
	const struct madt_cpu *m;
	uint64_t t0, limit;
	int32_t ver;
	unsigned attempts = 0;
	bool pending[SMP_MAX_CPUS] = { false };

	if (smp_cpus_online() > 1)
		return smp_cpus_online(); /* once per boot */
	init_bsp(madt);
	rep = smp_table_rep();
	rep->conduit = use_hvc ? "hvc" : "smc";
	rep->reason = check_args(madt, stacks, stack_size, counter_hz);
	if (rep->reason)
		return 1;
	ver = (int32_t)psci_call(use_hvc, PSCI_VERSION);
	rep->psci_version = ver > 0 ? (uint32_t)ver : 0; /* < 0: NOT_SUPPORTED (PSCI 0.1) */
	/* The BSP's TPIDR_EL1 is 0 from here: traps.c tells the cores apart by it. */
	cpu_clear_tpidr_el1();
	traps_set_ap_handler(ap_trap);
	/* The stub runs with its caches off: what it fetches must be in memory. */
	a64_dcache_clean_poc(ap_start_begin, (size_t)(ap_start_end - ap_start_begin));

	t0 = cycles_read();
	for (unsigned i = 0; (m = smp_table_next_ap(madt, &i, attempts, max_cpus));) {
		struct smp_cpu *c = ap_slot(stacks, stack_size, attempts);

		*c = (struct smp_cpu){ 0 };
		c->apic_id = m->apic_id;
		fill_boot(c, (uint64_t)(uintptr_t)(stacks + (size_t)(attempts + 1) * stack_size));
		a64_dcache_clean_poc(&c->boot, sizeof(c->boot));
		attempts++;
		c->on_tsc = cycles_read();
		c->psci_status = (int32_t)psci_call3(use_hvc, PSCI_CPU_ON_64, madt_mpidr_unpack(m->apic_id),
						     (uint64_t)(uintptr_t)ap_start_entry, (uint64_t)(uintptr_t)c);
		if (c->psci_status != PSCI_SUCCESS)
			fail(c, psci_error_name(c->psci_status));
		else
			pending[attempts] = true;
	}
	/* Each core asked must come online within SMP_AP_TIMEOUT_US of its own CPU_ON. */
	limit = SMP_AP_TIMEOUT_US * (counter_hz / US_PER_S);
	for (unsigned a = 1; a <= attempts; a++) {
		struct smp_cpu *c = ap_slot(stacks, stack_size, a - 1);

		if (!pending[a])
			continue;
		while (!__atomic_load_n(&c->online, __ATOMIC_ACQUIRE) && cycles_read() - c->on_tsc <= limit)
			cpu_relax();
		if (!__atomic_load_n(&c->online, __ATOMIC_ACQUIRE))
			fail(c, "timeout"); /* if it comes up later, it idles: it is given no work */
		else if (c->seen_apic_id != c->apic_id)
			fail(c, "id_mismatch"); /* running, but not the core the MADT named */
		else
			smp_table_add(c->apic_id, &c->mb, c, c->on_tsc, c->online_tsc);
	}
	if (attempts == 0 && !rep->not_started)
		rep->reason = "the MADT lists no other enabled core";
	return smp_table_done("psci", t0);
}

uint32_t smp_self_hw_id(void)
{
	return self_affinity();
}

/* The table's id once the CPU is online; before the table has the BSP, its own. */
uint32_t smp_cpu_hw_id(unsigned cpu)
{
	uint32_t id;

	if (smp_table_hw_id(cpu, &id))
		return id;
	return cpu == 0 ? smp_self_hw_id() : 0;
}
