/* Application-processor bring-up and work dispatch on bare metal (see smp.h). */
/* OPT_FAST: -O2 (Makefile): the other processors' start and work dispatch (smp probes time it). */
#include "efi/x86_64/smp.h"

#include "efi/smp.h"
#include "efi/smp_table.h"

#include "arch/x86_64/ap_start.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/io.h"
#include "arch/x86_64/msr.h"
#include "arch/cycles.h"
#include "drivers/irqchip/x86_64/lapic.h"
#include "drivers/irqchip/x86_64/lapic_mode.h"

#define US_PER_S 1000000ull
#define PAGE_MASK 0xFFFull
#define CR3_ADDR_MASK 0x000FFFFFFFFFF000ull
#define FOUR_GIB 0x100000000ull
/* Start-up vectors 0xA0..0xBF are reserved (SDM vol. 3A, STARTUP IPI): the legacy VGA hole. */
#define SIPI_VECTOR_RESERVED_LO 0xA0
#define SIPI_VECTOR_RESERVED_HI 0xBF
#define CPUID_LEAF_FEATURES 1
#define CPUID_1_ECX_X2APIC (1u << 21)
#define CPUID_1_EBX_APIC_ID_SHIFT 24
#define MSR_IA32_PAT 0x277u
/* Bits of the BSP's EFER the APs take over; LME is always set. */
#define EFER_COPIED (X86_EFER_SCE | X86_EFER_NXE)

struct smp_cpu {
	struct traps_ap_tables tables; /* first: the trap handler finds us from the GDT address */
	uint32_t apic_id;              /* from the MADT */
	uint32_t seen_apic_id;         /* as the AP read it */
	uint8_t *ist;
	uint64_t stack_top;
	volatile uint32_t online;      /* set by the AP in its C entry */
	volatile uint32_t mode_failed; /* the AP could not enter the BSP's x2APIC mode */
	volatile uint32_t mode_switched; /* the AP set its own IA32_APIC_BASE.EXTD */
	volatile uint32_t parked;      /* the AP is (about to be) halted: wake it with an NMI */
	struct smp_mailbox mb;
	uint64_t sipi_tsc, online_tsc;
} __attribute__((aligned(SMP_SLOT_ALIGN)));

_Static_assert(sizeof(struct smp_cpu) <= SMP_SLOT_BYTES, "struct smp_cpu outgrew SMP_SLOT_BYTES");

/* Each AP's control block is at the bottom of its own memory (ap_slot); efi/smp_table.c numbers
 * the ones online and keeps the report (g.rep). */
static struct {
	struct lapic lapic;
	struct smp_report *rep;
	uint64_t counter_hz, idle_cycles;
	bool pat_valid;
	uint64_t pat;
} g;

static uint64_t us_cycles(uint64_t us)
{
	return us * (g.counter_hz / US_PER_S);
}

static uint32_t cpuid_apic_id(void)
{
	uint32_t a, b, c, d;

	cpu_cpuid(CPUID_LEAF_FEATURES, 0, &a, &b, &c, &d);
	return b >> CPUID_1_EBX_APIC_ID_SHIFT;
}

static bool cpu_has_x2apic(void)
{
	uint32_t a, b, c, d;

	cpu_cpuid(CPUID_LEAF_FEATURES, 0, &a, &b, &c, &d);
	return (c & CPUID_1_ECX_X2APIC) != 0;
}

/* ---- the AP side ---- */

static const struct fault_jmp *ap_trap(struct traps_ap_tables *self, struct trap_info *info)
{
	struct smp_cpu *c = (struct smp_cpu *)(void *)self;

	if (info->vector == X86_VEC_NMI) {
		if (info->rip == (uint64_t)(uintptr_t)ap_park_hlt)
			info->rip += AP_HLT_INSN_BYTES; /* woken before the hlt ran: do not run it */
		return 0;
	}
	if (info->vector == X86_VEC_DB || info->vector == X86_VEC_BP)
		return 0;
	return smp_mailbox_trap(&c->mb, info);
}

static void ap_wait_for_work(struct smp_cpu *c, uint64_t seen)
{
	uint64_t start = cycles_read();

	while (c->mb.posted == seen) {
		if (cycles_read() - start > g.idle_cycles) {
			/* Announce the halt before the last look at `posted`: smp_run posts first and
			 * looks at `parked` second, so one of the two sees the other (both fenced). */
			c->parked = 1;
			cpu_mfence();
			ap_park_wait(&c->mb.posted, seen);
			c->parked = 0;
			start = cycles_read();
		}
		cpu_relax();
	}
}

/* The APIC mode is per processor and an AP comes out of INIT-SIPI in the mode it had: when the
 * BSP runs in x2APIC mode, the AP switches itself before it touches its APIC (the BSP's MSR
 * accessors would #GP on an xAPIC-mode AP). False when it could not. */
static bool ap_follow_mode(struct smp_cpu *c)
{
	struct lapic_mode_result r;

	if (!g.lapic.x2apic)
		return true;
	if (!lapic_mode_apply(0, LAPIC_MODE_X2APIC, cpu_has_x2apic(), &r) || !r.x2apic)
		return false;
	c->mode_switched = r.switched;
	return true;
}

static __attribute__((noreturn)) void ap_entry(void *arg)
{
	struct smp_cpu *c = arg;

	traps_load_ap(&c->tables, c->ist, ap_trap);
	if (g.pat_valid)
		(void)wrmsr_safe(MSR_IA32_PAT, g.pat);
	if (!ap_follow_mode(c))
		c->mode_failed = 1; /* online all the same: the BSP sees why, and parks it with INIT */
	c->seen_apic_id = g.lapic.present && !c->mode_failed ? lapic_id(&g.lapic) : cpuid_apic_id();
	c->online_tsc = cycles_read();
	cpu_mfence();
	c->online = 1;
	for (;;) {
		uint64_t seen = c->mb.done;

		ap_wait_for_work(c, seen);
		smp_mailbox_run(&c->mb, __atomic_load_n(&c->mb.posted, __ATOMIC_ACQUIRE));
	}
}

/* ---- bring-up ---- */

static void fail(uint32_t apic_id, unsigned stage, const char *reason)
{
	smp_table_fail(apic_id, stage, reason);
}

static bool wait_flag(const volatile uint32_t *flag, uint64_t us)
{
	uint64_t start = cycles_read(), limit = us_cycles(us);

	while (!*flag) {
		if (cycles_read() - start > limit)
			return false;
		cpu_relax();
	}
	return true;
}

/* INIT (then the deassert the MP specification's sequence has): the AP waits for a STARTUP. */
static bool init_one(struct smp_cpu *c)
{
	enum lapic_send st = lapic_send_init(&g.lapic, c->apic_id, g.counter_hz);

	if (st == LAPIC_SEND_OK)
		st = lapic_send_init_deassert(&g.lapic, c->apic_id, g.counter_hz);
	if (st != LAPIC_SEND_OK)
		fail(c->apic_id, AP_STAGE_NONE, lapic_send_name(st));
	return st == LAPIC_SEND_OK;
}

/* After INIT and its delay: STARTUP, up to 200 us, a second STARTUP if the AP has not started,
 * then wait (bounded) for it to come online. One AP at a time: they share the parameter block. */
static bool startup_one(struct smp_cpu *c, struct ap_start_params *p, uint8_t vector)
{
	enum lapic_send st;

	p->stack = c->stack_top;
	p->arg = (uint64_t)(uintptr_t)c;
	p->entry = (uint64_t)(uintptr_t)ap_entry;
	p->stage = AP_STAGE_NONE;
	c->sipi_tsc = cycles_read();
	for (unsigned k = 0; k < 2; k++) {
		uint64_t start;

		st = lapic_send_startup(&g.lapic, c->apic_id, vector, g.counter_hz);
		if (st != LAPIC_SEND_OK) {
			fail(c->apic_id, p->stage, lapic_send_name(st));
			(void)lapic_send_init(&g.lapic, c->apic_id, g.counter_hz);
			return false;
		}
		start = cycles_read();
		while (p->stage == AP_STAGE_NONE && cycles_read() - start < us_cycles(SMP_SIPI_DELAY_US))
			cpu_relax();
		if (p->stage != AP_STAGE_NONE)
			break;
	}
	if (!wait_flag(&c->online, SMP_AP_TIMEOUT_US)) {
		fail(c->apic_id, p->stage, "timeout");
		/* Back to wait-for-SIPI, so it cannot come alive later on a stack we hand on. */
		(void)lapic_send_init(&g.lapic, c->apic_id, g.counter_hz);
		return false;
	}
	if (c->mode_failed) {
		fail(c->apic_id, p->stage, "x2apic_switch");
		(void)lapic_send_init(&g.lapic, c->apic_id, g.counter_hz);
		return false;
	}
	if (c->seen_apic_id != c->apic_id) {
		/* Running, but not the processor the MADT named: keep it out of the numbering. */
		fail(c->apic_id, p->stage, "id_mismatch");
		(void)lapic_send_init(&g.lapic, c->apic_id, g.counter_hz);
		return false;
	}
	if (c->mode_switched)
		g.rep->aps_switched++;
	smp_table_add(c->apic_id, &c->mb, c, c->sipi_tsc, c->online_tsc);
	return true;
}

/* Copy the trampoline and fill the parameters every AP shares. NULL (and rep.reason) on refusal. */
static struct ap_start_params *prepare_lowpage(uint8_t *page)
{
	uint64_t len = (uint64_t)(ap_start_end - ap_start_begin);
	uint64_t cr3 = cpu_read_cr3(), cr4 = cpu_read_cr4(), efer = 0;
	struct ap_start_params *p;

	if (len > AP_PAGE_SIZE) {
		g.rep->reason = "start-up trampoline larger than a page";
		return 0;
	}
	if (rdmsr_safe(X86_MSR_EFER, &efer) != MSR_OK) {
		g.rep->reason = "EFER unreadable";
		return 0;
	}
	for (uint64_t i = 0; i < len; i++)
		page[i] = ap_start_begin[i];
	p = (struct ap_start_params *)(void *)(page + (ap_start_data - ap_start_begin));
	p->cr3 = cr3;
	p->cr3_32 = cr3 & CR3_ADDR_MASK;
	if (p->cr3_32 >= FOUR_GIB) {
		/* Only the top level needs to be reachable from 32-bit code: its entries are 52-bit. */
		const uint8_t *top = (const uint8_t *)(uintptr_t)p->cr3_32;
		uint8_t *copy = page + AP_PAGE_SIZE;

		for (unsigned i = 0; i < AP_PAGE_SIZE; i++)
			copy[i] = top[i];
		p->cr3_32 = (uint64_t)(uintptr_t)copy;
		g.rep->pml4_copy = true;
	}
	p->cr4 = cr4;
	p->cr4_32 = X86_CR4_PAE | (cr4 & X86_CR4_LA57);
	p->cr0 = cpu_read_cr0();
	p->efer = X86_EFER_LME | (efer & EFER_COPIED);
	p->xcr0 = (cr4 & X86_CR4_OSXSAVE) ? cpu_xgetbv(X86_XCR_XFEATURE_ENABLED) : 0;
	g.pat_valid = rdmsr_safe(MSR_IA32_PAT, &g.pat) == MSR_OK;
	return p;
}

static const char *check_lowpage(uint64_t lp)
{
	uint64_t vector = lp >> 12;

	if (!lp)
		return "no start-up page below 1 MiB was reserved";
	if ((lp & PAGE_MASK) || lp + SMP_LOWMEM_PAGES * AP_PAGE_SIZE > SMP_LOWMEM_LIMIT)
		return "start-up page not page-aligned below 1 MiB";
	if (vector >= SIPI_VECTOR_RESERVED_LO && vector <= SIPI_VECTOR_RESERVED_HI)
		return "start-up page in the reserved vector range 0xA0000-0xBFFFF";
	return 0;
}

/* The control block of the i-th AP tried (0-based): the bottom of its stack_size bytes. */
static struct smp_cpu *ap_slot(uint8_t *stacks, size_t stack_size, unsigned i)
{
	return (struct smp_cpu *)(void *)(stacks + (size_t)i * stack_size);
}

/* The job mailboxes (efi/smp.c) wake an AP through this. */
static void kick(unsigned cpu)
{
	struct smp_cpu *c = smp_table_block(cpu);

	cpu_mfence(); /* pairs with the AP's fence between `parked` and its last look (see there) */
	if (c->parked)
		(void)lapic_send_nmi(&g.lapic, c->apic_id, g.counter_hz);
}

static const struct smp_mailbox_ops mailbox_ops = { kick };

/* The BSP as CPU 0, with its APIC id from CPUID (touching no APIC register). */
static void init_bsp(const struct madt_info *madt)
{
	smp_mailbox_attach(&mailbox_ops);
	smp_table_begin(cpuid_apic_id(), madt);
	g.rep = smp_table_rep();
}

void smp_start_none(const struct madt_info *madt, const char *reason)
{
	init_bsp(madt);
	g.rep->reason = reason;
}

unsigned smp_start_aps(const struct madt_info *madt, void *lowpage, uint8_t *stacks, size_t stack_size,
		       unsigned max_cpus, uint64_t counter_hz)
{
	uint64_t lp = (uint64_t)(uintptr_t)lowpage, t0;
	struct ap_start_params *p;
	const struct madt_cpu *m;
	unsigned attempts = 0;
	bool pending[SMP_MAX_CPUS] = { false };

	if (smp_cpus_online() > 1)
		return smp_cpus_online(); /* once per boot: the APs are running already */
	init_bsp(madt);
	if (!lapic_init(&g.lapic, madt && madt->valid ? madt->lapic_base : 0, cpu_has_x2apic())) {
		g.rep->reason = g.lapic.reason;
		return 1;
	}
	smp_table_bsp_id(lapic_id(&g.lapic));
	g.rep->x2apic = g.lapic.x2apic;
	g.rep->lapic_mode_how = lapic_mode_how(lapic_mode_bsp());
	g.rep->lapic_base = g.lapic.base;
	g.rep->lowpage = lp;
	g.counter_hz = counter_hz;
	g.idle_cycles = us_cycles(SMP_IDLE_SPIN_US);
	if (!madt || !madt->valid)
		g.rep->reason = "no valid MADT";
	else if (!counter_hz)
		g.rep->reason = "TSC frequency unknown: waits cannot be bounded";
	else if (!stacks || stack_size < SMP_MIN_STACK_SIZE || (stack_size % SMP_SLOT_ALIGN) ||
		 ((uintptr_t)stacks % SMP_SLOT_ALIGN))
		g.rep->reason = "no AP stacks were reserved";
	else
		g.rep->reason = check_lowpage(lp);
	if (g.rep->reason)
		return 1;
	p = prepare_lowpage(lowpage);
	if (!p)
		return 1;

	/* Every AP gets its INIT first and all share one INIT delay; then STARTUP one by one. */
	t0 = cycles_read();
	for (unsigned i = 0; (m = smp_table_next_ap(madt, &i, attempts, max_cpus));) {
		struct smp_cpu *c = ap_slot(stacks, stack_size, attempts);

		*c = (struct smp_cpu){ 0 };
		c->apic_id = m->apic_id;
		c->ist = (uint8_t *)c + SMP_SLOT_BYTES;
		c->stack_top = (uint64_t)(uintptr_t)(stacks + (size_t)(attempts + 1) * stack_size);
		attempts++;
		if (!g.lapic.x2apic && m->apic_id > LAPIC_XAPIC_MAX_ID)
			fail(m->apic_id, AP_STAGE_NONE, "unreachable");
		else
			pending[attempts] = init_one(c);
	}
	lapic_delay_us(SMP_INIT_DELAY_US, g.counter_hz);
	for (unsigned a = 1; a <= attempts; a++)
		if (pending[a])
			(void)startup_one(ap_slot(stacks, stack_size, a - 1), p, (uint8_t)(lp >> 12));
	return smp_table_done("init-sipi", t0);
}

uint32_t smp_self_hw_id(void)
{
	return g.lapic.present ? lapic_id(&g.lapic) : cpuid_apic_id();
}

/* The table's id once the CPU is online; before the table has the BSP, its own. */
uint32_t smp_cpu_hw_id(unsigned cpu)
{
	uint32_t id;

	if (smp_table_hw_id(cpu, &id))
		return id;
	return cpu == 0 ? smp_self_hw_id() : 0;
}
