/* Counter-overflow sampling (arch/x86_64/pmu_pmi.c) against the PMU register model
 * (pmu_model.c), for Intel architectural PMU v2, v4, v5 (and v1, which has no global status:
 * the counter's top bit tells, as on AMD) and AMD legacy, core-extension and PerfMonV2 counters: the exact arm writes (preload, event select with USR|OS|INT|EN, global
 * enable), the overflow after exactly `period` events with its PMI and status bit, the
 * acknowledgement (status cleared, next period preloaded, counting again), other counters'
 * overflow bits counted and cleared, stop, refusals with reasons and clean false returns, the
 * 31-bit period limit without full-width writes; and the local APIC's performance-counter LVT
 * entry (drivers/irqchip/x86_64/lapic_perf.c) in xAPIC and x2APIC encodings. Register numbers and values are
 * literals, independently of pmu_regs.h. */
#include "arch/x86_64/pmu_pmi.h"
#include "drivers/irqchip/x86_64/lapic.h"
#include "drivers/irqchip/x86_64/lapic_perf.h"
#include "tests/unit/pmu_model.h"
#include "tests/unit/regmodel.h"
#include "tests/unit/test.h"

static struct pmu_model M;
static struct pmu_info P;

#define W48 ((1ull << 48) - 1)
#define PERIOD 10000ull
#define NEXT 20000ull
#define SEL_FLAGS 0x530000ull /* USR 16 | OS 17 | INT 20 | EN 22 */
#define SEL_EN (1ull << 22)

/* One PMU under test and the registers it must use (the last GP counter's). */
struct pmi_case {
	const char *name;
	bool intel;
	unsigned version;   /* Intel */
	enum pmu_kind kind; /* AMD */
	unsigned gp;
	bool fw;
	uint32_t sel, ctr_wr, ctr_rd; /* our counter's event select, write and read addresses */
	uint32_t status, clear, ctrl; /* 0: no global registers */
	uint64_t cycles_sel;          /* the cycles event select we expect */
};

static const struct pmi_case cases[] = {
	{ "intel_v1", true, 1, PMU_INTEL, 2, false, 0x187, 0xC2, 0xC2, 0, 0, 0, 0x3C | SEL_FLAGS },
	{ "intel_v2", true, 2, PMU_INTEL, 4, false, 0x189, 0xC4, 0xC4, 0x38E, 0x390, 0x38F, 0x3C | SEL_FLAGS },
	{ "intel_v4", true, 4, PMU_INTEL, 4, true, 0x189, 0x4C4, 0xC4, 0x38E, 0x390, 0x38F, 0x3C | SEL_FLAGS },
	{ "intel_v5", true, 5, PMU_INTEL, 8, true, 0x18D, 0x4C8, 0xC8, 0x38E, 0x390, 0x38F, 0x3C | SEL_FLAGS },
	{ "amd_legacy", false, 0, PMU_AMD_LEGACY, 4, false, 0xC0010003u, 0xC0010007u, 0xC0010007u, 0, 0, 0,
	  0x76 | SEL_FLAGS },
	{ "amd_core_ext", false, 0, PMU_AMD_CORE_EXT, 6, false, 0xC001020Au, 0xC001020Bu, 0xC001020Bu, 0, 0, 0,
	  0x76 | SEL_FLAGS },
	{ "amd_v2", false, 0, PMU_AMD_V2, 6, false, 0xC001020Au, 0xC001020Bu, 0xC001020Bu, 0xC0000300u,
	  0xC0000302u, 0xC0000301u, 0x76 | SEL_FLAGS },
};

#define NCASES (sizeof(cases) / sizeof(cases[0]))
enum { CASE_INTEL_V1, CASE_INTEL_V2, CASE_INTEL_V4, CASE_INTEL_V5, CASE_AMD_LEGACY, CASE_AMD_CORE_EXT, CASE_AMD_V2 };

static struct cpu_info cpu(bool intel)
{
	/* Ivy Bridge (no family table), Zen 4 */
	return intel ? model_cpu(true, 6, 0x3A) : model_cpu(false, 0x19, 0x11);
}

/* Discover the PMU of `c` in the model (which counts while discovery's self-test runs), then
 * stop time: from here on counters move only by model_events. */
static void discover(const struct pmi_case *c)
{
	struct cpu_info ci = cpu(c->intel);
	struct pmu_cpuid id = { 0 };

	if (c->intel) {
		model_intel(&M, c->version, c->gp, 48, 3, 48, c->fw);
		id.leaf_a[0] = c->version | c->gp << 8 | 48u << 16 | 7u << 24;
		id.leaf_a[3] = 3 | 48u << 5;
		id.leaf1_ecx = c->fw ? 1u << 15 : 0; /* PDCM: PERF_CAPABILITIES readable */
	} else {
		model_amd(&M, c->kind, c->gp);
		if (c->kind == PMU_AMD_V2) {
			id.ext22[0] = 1;
			id.ext22[1] = c->gp;
		}
		if (c->kind != PMU_AMD_LEGACY)
			id.ext1_ecx = 1u << 23;
	}
	pmu_discover(&P, &ci, &id, &M.ops);
	CHECK(P.present);
	M.step = 0;
	M.pmis = 0;
	model_clear_log(&M);
}

static uint64_t reg(uint32_t msr)
{
	uint64_t v = 0xDEAD;

	CHECK(model_get(&M, msr, &v));
	return v;
}

/* Setup and arm: the exact writes, in order. */
static void check_arm(const struct pmi_case *c, struct pmu_pmi *p)
{
	const char *why = "";
	uint64_t bit = 1ull << (c->gp - 1);
	unsigned k = 0;

	CHECK(pmu_pmi_setup(p, &P, "cycles", &why));
	CHECK_EQ_U64(p->counter, c->gp - 1); /* the last one */
	CHECK_EQ_U64(p->evtsel_msr, c->sel);
	CHECK_EQ_U64(p->ctr_msr, c->ctr_wr);
	CHECK_EQ_U64(p->evtsel, c->cycles_sel);
	CHECK_EQ_U64(p->ctr_mask, W48);
	/* setup tried the select (without enable), then left it 0 */
	CHECK_MODEL_WRITE(&M, 0, c->sel, c->cycles_sel & ~SEL_EN);
	CHECK_MODEL_WRITE(&M, 1, c->sel, 0);
	model_clear_log(&M);

	CHECK(pmu_pmi_arm(p, PERIOD, &why));
	CHECK(p->armed);
	CHECK_MODEL_WRITE(&M, k, c->sel, 0);                          /* disabled while preloaded */
	k++;
	CHECK_MODEL_WRITE(&M, k, c->ctr_wr, (1ull << 48) - PERIOD);  /* -period in 48 bits */
	k++;
	if (c->status) {
		CHECK_MODEL_WRITE(&M, k, c->clear, bit);              /* no stale overflow of ours */
		k++;
	}
	CHECK_MODEL_WRITE(&M, k, c->sel, c->cycles_sel);
	k++;
	if (c->ctrl) {
		CHECK_MODEL_WRITE(&M, k, c->ctrl, bit);               /* the others' bits kept (none here) */
		k++;
	}
	CHECK_EQ_U64(M.nwrites, k);
	CHECK_EQ_U64(reg(c->ctr_rd), (1ull << 48) - PERIOD);
}

/* Overflow after exactly `period` events; ack; the next period; stop. */
static void overflow_ack_rearm(const struct pmi_case *c)
{
	struct pmu_pmi p;
	uint64_t bit = 1ull << (c->gp - 1);

	discover(c);
	check_arm(c, &p);

	model_events(&M, PERIOD - 1);
	CHECK_EQ_U64(M.pmis, 0);
	CHECK_EQ_U64(reg(c->ctr_rd), W48);
	if (c->status)
		CHECK_EQ_U64(reg(c->status), 0);
	CHECK(!pmu_pmi_ack(&p, NEXT)); /* a PMI that is not ours (yet) */
	model_events(&M, 1);
	CHECK_EQ_U64(M.pmis, 1);
	CHECK_EQ_U64(reg(c->ctr_rd), 0); /* wrapped */
	if (c->status)
		CHECK_EQ_U64(reg(c->status), bit);

	model_clear_log(&M);
	CHECK(pmu_pmi_ack(&p, NEXT));
	CHECK_EQ_U64(p.overflows, 1);
	CHECK_EQ_U64(p.foreign, 0);
	CHECK(p.armed && !p.fault);
	CHECK_EQ_U64(reg(c->ctr_rd), (1ull << 48) - NEXT);
	CHECK_EQ_U64(reg(c->sel), c->cycles_sel);
	if (c->status) {
		CHECK_EQ_U64(reg(c->status), 0);
		CHECK_EQ_U64(reg(c->ctrl), bit);
	}
	/* the re-arm writes: stop, preload, clear, restart */
	CHECK_MODEL_WRITE(&M, 0, c->sel, c->cycles_sel & ~SEL_EN);
	CHECK_MODEL_WRITE(&M, 1, c->ctr_wr, (1ull << 48) - NEXT);
	if (c->status)
		CHECK_MODEL_WRITE(&M, 2, c->clear, bit);
	CHECK_MODEL_WRITE(&M, c->status ? 3 : 2, c->sel, c->cycles_sel);

	model_events(&M, NEXT - 1);
	CHECK_EQ_U64(M.pmis, 1);
	CHECK(!pmu_pmi_ack(&p, PERIOD));
	model_events(&M, 1);
	CHECK_EQ_U64(M.pmis, 2);
	CHECK(pmu_pmi_ack(&p, PERIOD));
	CHECK_EQ_U64(p.overflows, 2);
	CHECK_EQ_U64(reg(c->ctr_rd), (1ull << 48) - PERIOD);

	pmu_pmi_stop(&p);
	CHECK(!p.armed);
	CHECK_EQ_U64(reg(c->sel), 0);
	if (c->ctrl)
		CHECK_EQ_U64(reg(c->ctrl) & bit, 0);
	model_events(&M, 2 * PERIOD);
	CHECK_EQ_U64(M.pmis, 2); /* stopped: nothing counts */
	CHECK_EQ_U64(reg(c->ctr_rd), (1ull << 48) - PERIOD);
	CHECK(!pmu_pmi_ack(&p, PERIOD));
}

static void each_pmu_overflows_after_exactly_period(void)
{
	for (unsigned i = 0; i < NCASES; i++) {
		int before = test_failed_checks;

		overflow_ack_rearm(&cases[i]);
		if (test_failed_checks != before)
			test_note("(in %s)", cases[i].name);
	}
}

/* Counter 0 counting cycles without INT, `left` events from overflow, with its global enable. */
static void other_counter_near_overflow(const struct pmi_case *c, uint64_t left)
{
	uint32_t sel0 = c->intel ? 0x186 : c->kind == PMU_AMD_LEGACY ? 0xC0010000u : 0xC0010200u;
	uint32_t ctr0 = c->intel ? 0xC1 : c->kind == PMU_AMD_LEGACY ? 0xC0010004u : 0xC0010201u;

	CHECK_EQ_U64(M.ops.wrmsr(M.ops.ctx, ctr0, (0 - left) & W48), 0);
	CHECK_EQ_U64(M.ops.wrmsr(M.ops.ctx, sel0, ((c->cycles_sel & ~(1ull << 20)) & ~SEL_EN) | SEL_EN), 0);
	if (c->ctrl)
		CHECK_EQ_U64(M.ops.wrmsr(M.ops.ctx, c->ctrl, reg(c->ctrl) | 1), 0);
}

/* Other counters' overflow bits: counted as foreign and cleared, with ours or alone. */
static void foreign_overflow_bits(void)
{
	for (unsigned i = 0; i < NCASES; i++) {
		const struct pmi_case *c = &cases[i];
		uint64_t bit = 1ull << (c->gp - 1);
		struct pmu_pmi p;
		const char *why;

		if (!c->status)
			continue;
		discover(c);
		CHECK(pmu_pmi_setup(&p, &P, "cycles", &why));
		CHECK_EQ_U64(M.ops.wrmsr(M.ops.ctx, c->ctrl, 1), 0); /* counter 0 enabled globally */
		CHECK(pmu_pmi_arm(&p, PERIOD, &why));
		CHECK_EQ_U64(reg(c->ctrl), bit | 1); /* arm kept counter 0's enable */
		other_counter_near_overflow(c, 10);
		/* counter 0 alone overflows (no INT: no PMI of its own; the handler may still see it) */
		model_events(&M, 10);
		CHECK_EQ_U64(reg(c->status), 1);
		CHECK_EQ_U64(M.pmis, 0);
		CHECK(!pmu_pmi_ack(&p, NEXT));
		CHECK_EQ_U64(p.foreign, 1);
		CHECK_EQ_U64(reg(c->status), 0); /* cleared all the same */
		CHECK_EQ_U64(reg(c->sel), c->cycles_sel); /* ours untouched */
		/* both overflow in the same PMI */
		other_counter_near_overflow(c, PERIOD - 10);
		model_events(&M, PERIOD - 10);
		CHECK_EQ_U64(reg(c->status), bit | 1);
		CHECK_EQ_U64(M.pmis, 1);
		CHECK(pmu_pmi_ack(&p, NEXT));
		CHECK_EQ_U64(p.foreign, 2);
		CHECK_EQ_U64(p.overflows, 1);
		CHECK_EQ_U64(reg(c->status), 0);
		CHECK_EQ_U64(reg(c->ctr_rd), (1ull << 48) - NEXT);
		if (c->intel && c->version >= 4) {
			/* v4+: indicators set through IA32_PERF_GLOBAL_STATUS_SET (fixed counter 1, the
			 * PEBS buffer) are cleared through STATUS_RESET too */
			CHECK_EQ_U64(M.ops.wrmsr(M.ops.ctx, 0x391, (1ull << 33) | (1ull << 62)), 0);
			CHECK(!pmu_pmi_ack(&p, NEXT));
			CHECK_EQ_U64(p.foreign, 4);
			CHECK_EQ_U64(reg(c->status), 0);
		}
	}
}

/* AMD PerfMonV2 status bits above the counters (reserved; set by old Zen 4 microcode) are
 * neither counted nor written to the clear register (where they would fault). */
static void amd_reserved_status_bits_ignored(void)
{
	struct pmu_pmi p;
	const char *why;

	discover(&cases[CASE_AMD_V2]);
	CHECK(pmu_pmi_setup(&p, &P, "cycles", &why));
	CHECK(pmu_pmi_arm(&p, PERIOD, &why));
	model_set(&M, 0xC0000300u, 1ull << 7);
	CHECK(!pmu_pmi_ack(&p, NEXT));
	CHECK_EQ_U64(p.foreign, 0);
	model_events(&M, PERIOD);
	CHECK_EQ_U64(reg(0xC0000300u), (1ull << 7) | (1ull << 5));
	model_clear_log(&M);
	CHECK(pmu_pmi_ack(&p, NEXT));
	CHECK(p.armed && !p.fault);
	CHECK_MODEL_WRITE(&M, 2, 0xC0000302u, 1ull << 5);
}

/* Without full-width writes IA32_PMCx sign-extends bit 31: a period past 2^31 - 1 would be
 * preloaded as a small positive count. The period is clamped there, and only there. */
static void legacy_writes_limit_the_period(void)
{
	struct pmu_pmi p;
	const char *why;

	discover(&cases[CASE_INTEL_V2]); /* Intel v2, no full-width writes */
	/* what the limit protects against: -2^40 through IA32_PMC3 becomes 0 */
	CHECK_EQ_U64(M.ops.wrmsr(M.ops.ctx, 0xC4, (0 - (1ull << 40)) & W48), 0);
	CHECK_EQ_U64(reg(0xC4), 0);
	CHECK(M.ops.wrmsr(M.ops.ctx, 0x4C4, 5) != 0); /* IA32_A_PMC3 not offered: #GP */
	CHECK(pmu_pmi_setup(&p, &P, "cycles", &why));
	CHECK_EQ_U64(p.max_period, 0x7FFFFFFFull);
	CHECK(pmu_pmi_arm(&p, 1ull << 40, &why));
	CHECK_EQ_U64(reg(0xC4), (1ull << 48) - 0x7FFFFFFFull);
	model_events(&M, 0x7FFFFFFEull);
	CHECK_EQ_U64(M.pmis, 0);
	model_events(&M, 1);
	CHECK_EQ_U64(M.pmis, 1);
	CHECK(pmu_pmi_ack(&p, 0)); /* a zero period is one event */
	CHECK_EQ_U64(reg(0xC4), W48);

	discover(&cases[CASE_INTEL_V4]); /* Intel v4 with full-width writes: 2^40 as asked */
	CHECK(pmu_pmi_setup(&p, &P, "cycles", &why));
	CHECK_EQ_U64(p.max_period, (1ull << 47) - 1);
	CHECK(pmu_pmi_arm(&p, 1ull << 40, &why));
	CHECK_EQ_U64(reg(0xC4), (1ull << 48) - (1ull << 40));
	model_events(&M, (1ull << 40) - 1);
	CHECK_EQ_U64(M.pmis, 0);
	model_events(&M, 1);
	CHECK_EQ_U64(M.pmis, 1);

	discover(&cases[CASE_AMD_LEGACY]); /* AMD: the top-bit test needs period < 2^47 */
	CHECK(pmu_pmi_setup(&p, &P, "cycles", &why));
	CHECK_EQ_U64(p.max_period, (1ull << 47) - 1);
	CHECK(pmu_pmi_arm(&p, 1ull << 47, &why));
	CHECK_EQ_U64(reg(0xC0010007u), (1ull << 47) + 1);
	CHECK(!pmu_pmi_ack(&p, PERIOD)); /* top bit set: not overflowed */
}

static void setup_refusals(void)
{
	struct pmu_pmi p;
	struct pmu_info absent = { 0 };
	const char *why = "";

	absent.reason = "CPUID 0xA reports no counters (hypervisor hides the PMU)";
	CHECK(!pmu_pmi_setup(&p, &absent, "cycles", &why));
	CHECK_STR(why, "CPUID 0xA reports no counters (hypervisor hides the PMU)");
	CHECK(!pmu_pmi_setup(&p, 0, "cycles", &why));
	CHECK_STR(why, "no core PMU");
	CHECK(!pmu_pmi_arm(&p, PERIOD, &why)); /* never set up */
	CHECK_STR(why, "pmu_pmi_setup did not succeed");
	CHECK(!pmu_pmi_ack(&p, PERIOD));
	pmu_pmi_stop(&p); /* harmless */

	discover(&cases[CASE_INTEL_V4]);
	CHECK(!pmu_pmi_setup(&p, &P, "ref_cycles", &why));
	CHECK_STR(why, "counted only by its fixed counter: overflow sampling needs a general-purpose counter");
	CHECK(!pmu_pmi_setup(&p, &P, "no_such_event", &why));
	CHECK_STR(why, "no such event in this CPU model's event tables");
	CHECK(!pmu_pmi_setup(&p, &P, "", &why));
	CHECK_STR(why, "no event named");
	CHECK_EQ_U64(M.nwrites, 0); /* refusals touch nothing */

	/* the last counter in use: the one below it; all in use: refused */
	M.ops.wrmsr(M.ops.ctx, 0x189, 0x43003C);
	CHECK(pmu_pmi_setup(&p, &P, "instructions", &why));
	CHECK_EQ_U64(p.counter, 2);
	CHECK_EQ_U64(p.evtsel, 0x5300C0);
	for (uint32_t s = 0x186; s < 0x189; s++)
		M.ops.wrmsr(M.ops.ctx, s, 0x43003C);
	CHECK(!pmu_pmi_setup(&p, &P, "cycles", &why));
	CHECK_STR(why, "every general-purpose counter is in use (its event select enabled)");

	/* a hypervisor filtering the select */
	discover(&cases[CASE_AMD_CORE_EXT]);
	model_refuse_write(&M, 0xC001020Au);
	CHECK(!pmu_pmi_setup(&p, &P, "cycles", &why));
	CHECK_STR(why, "the event select refused the write (a hypervisor filters the PMU?)");
}

/* Refused writes in arm and ack: a clean false (arm) or a stopped counter with the reason (ack). */
static void refused_writes_stop_cleanly(void)
{
	struct pmu_pmi p;
	const char *why = "";

	discover(&cases[CASE_INTEL_V4]);
	CHECK(pmu_pmi_setup(&p, &P, "cycles", &why));
	model_refuse_write(&M, 0x4C4);
	CHECK(!pmu_pmi_arm(&p, PERIOD, &why));
	CHECK_STR(why, "the counter refused the preload");
	CHECK(!p.armed);
	CHECK_EQ_U64(reg(0x189), 0);
	CHECK_EQ_U64(reg(0x38F) & 8, 0);

	/* a pmu_info claiming full-width writes the CPU does not offer: A_PMCx faults */
	discover(&cases[CASE_INTEL_V2]);
	P.full_width = true;
	CHECK(pmu_pmi_setup(&p, &P, "cycles", &why));
	CHECK(!pmu_pmi_arm(&p, PERIOD, &why));
	CHECK_STR(why, "the counter refused the preload");

	discover(&cases[CASE_INTEL_V5]);
	CHECK(pmu_pmi_setup(&p, &P, "cycles", &why));
	model_refuse_write(&M, 0x38F);
	CHECK(!pmu_pmi_arm(&p, PERIOD, &why));
	CHECK_STR(why, "the global counter control refused the write");
	CHECK_EQ_U64(reg(0x18D), 0);

	discover(&cases[CASE_AMD_V2]);
	CHECK(pmu_pmi_setup(&p, &P, "cycles", &why));
	CHECK(pmu_pmi_arm(&p, PERIOD, &why));
	model_events(&M, PERIOD);
	model_refuse_write(&M, 0xC001020Bu);
	CHECK(pmu_pmi_ack(&p, NEXT)); /* ours, but it could not be re-armed */
	CHECK(!p.armed);
	CHECK_STR(p.fault ? p.fault : "", "the counter refused the preload");
	CHECK_EQ_U64(reg(0xC001020Au), 0);
	CHECK(!pmu_pmi_ack(&p, NEXT));
}

/* A counter set measured while sampling (the runner's sets around a profiled probe): with the
 * sampling counter reserved in the pmu_info the plan leaves it alone and the global-control
 * writes keep it enabled; without, pmu_program's global stop silences it. */
static void counter_sets_keep_the_sampling_counter(void)
{
	static const char *const four[] = { "llc_references", "llc_misses", "branches", "branch_misses" };
	static const unsigned which[] = { CASE_INTEL_V4, CASE_AMD_V2 };

	for (unsigned w = 0; w < 2; w++) {
		const struct pmi_case *c = &cases[which[w]];
		const char *const *names = c->intel ? four : four + 2; /* AMD: no llc_* events */
		unsigned n = c->intel ? 4 : 2, last = c->gp - 1;
		struct pmu_plan pl;
		struct pmu_pmi p;
		const char *why;

		for (int reserve = 1; reserve >= 0; reserve--) {
			discover(c);
			CHECK(pmu_pmi_setup(&p, &P, "cycles", &why));
			P.gp_reserved = reserve ? 1u << p.counter : 0;
			CHECK(pmu_pmi_arm(&p, PERIOD, &why));
			pmu_plan_events(&P, names, n, &pl);
			for (unsigned k = 0; k < pl.pass[0].n; k++)
				CHECK(!reserve || pl.pass[0].c[k].idx != last);
			/* ours counts through every step: programmed, counting, stopped, released */
			pmu_program(&P, &pl.pass[0], 0);
			model_events(&M, PERIOD / 2);
			pmu_start(&P, &pl.pass[0], 0);
			model_events(&M, PERIOD / 2);
			CHECK_EQ_U64(M.pmis, reserve ? 1 : 0);
			CHECK(pmu_pmi_ack(&p, NEXT) == (reserve == 1));
			pmu_stop(&P, &pl.pass[0]);
			model_events(&M, NEXT / 2);
			pmu_release(&P, &pl.pass[0]);
			CHECK_EQ_U64(reg(c->ctrl) >> last & 1, reserve);
			if (reserve)
				CHECK_EQ_U64(reg(c->sel), c->cycles_sel); /* (else Intel's plan took it too) */
			model_events(&M, NEXT / 2);
			CHECK_EQ_U64(M.pmis, reserve ? 2 : 0);
		}
		/* Intel v4, 4 counters: the fourth event of the set goes to a second pass */
		if (c->intel) {
			P.gp_reserved = 1u << last;
			CHECK_EQ_U64(pmu_plan_events(&P, four, 4, &pl), 2);
			CHECK_EQ_U64(pl.pass[0].n, 3);
		}
	}
}

/* ---- the LVT performance-counter entry ------------------------------------------------------ */

#define XAPIC_BASE 0xFEE00000ull
#define PMI_VEC 0x41

static struct regmodel R;

static uint32_t r_rd32(void *c, uint64_t a) { (void)c; return (uint32_t)regmodel_read(&R, SPACE_MMIO, a); }
static void r_wr32(void *c, uint64_t a, uint32_t v) { (void)c; regmodel_write(&R, SPACE_MMIO, a, v); }
static int r_rdmsr(void *c, uint32_t r, uint64_t *v) { (void)c; *v = regmodel_read(&R, SPACE_MSR, r); return 0; }
static int r_wrmsr(void *c, uint32_t r, uint64_t v) { (void)c; regmodel_write(&R, SPACE_MSR, r, v); return 0; }

static const struct lapic_io lapic_regs = { r_rd32, r_wr32, r_rdmsr, r_wrmsr, 0, 0 };

static void lvt_perf(bool x2)
{
	struct lapic l = { .io = &lapic_regs };
	char s = x2 ? SPACE_MSR : SPACE_MMIO;
	uint64_t lvt = x2 ? 0x834 : XAPIC_BASE + 0x340, ver = x2 ? 0x803 : XAPIC_BASE + 0x30;

	regmodel_reset(&R);
	regmodel_set(&R, SPACE_MSR, 0x1B, XAPIC_BASE | (1ull << 11) | (1ull << 8) | (x2 ? 1ull << 10 : 0));
	regmodel_set(&R, s, x2 ? 0x80F : XAPIC_BASE + 0xF0, 0x1FF); /* SVR: enabled */
	CHECK(lapic_init(&l, 0, x2));
	R.nlog = 0;

	lapic_perf_lvt_set(&l, PMI_VEC);
	CHECK_EQ_U64(R.nlog, 1);
	CHECK_EQ_U64(R.log[0].space, s);
	CHECK_EQ_U64(R.log[0].addr, lvt);
	CHECK_EQ_U64(R.log[0].value, 0x41); /* fixed delivery (000), unmasked */

	/* Intel masks the entry on delivering a PMI: setting it again unmasks it */
	regmodel_set(&R, s, lvt, 0x10041);
	lapic_perf_lvt_set(&l, PMI_VEC);
	CHECK_EQ_U64(regmodel_get(&R, s, lvt), 0x41);

	/* mask keeps vector and delivery mode, drops the read-only delivery-status bit */
	regmodel_set(&R, s, lvt, 0x1041);
	R.nlog = 0;
	lapic_perf_lvt_mask(&l);
	CHECK_EQ_U64(R.nlog, 1);
	CHECK_EQ_U64(R.log[0].addr, lvt);
	CHECK_EQ_U64(R.log[0].value, 0x10041);

	regmodel_set(&R, s, ver, (5u << 16) | 0x14);
	CHECK(lapic_perf_lvt_present(&l));
	regmodel_set(&R, s, ver, (3u << 16) | 0x14);
	CHECK(!lapic_perf_lvt_present(&l));
}

static void lvt_perf_xapic(void) { lvt_perf(false); }
static void lvt_perf_x2apic(void) { lvt_perf(true); }

TEST_SUITE(pmu_pmi) = {
	{ "each_pmu_overflows_after_exactly_period", each_pmu_overflows_after_exactly_period },
	{ "foreign_overflow_bits", foreign_overflow_bits },
	{ "amd_reserved_status_bits_ignored", amd_reserved_status_bits_ignored },
	{ "legacy_writes_limit_the_period", legacy_writes_limit_the_period },
	{ "setup_refusals", setup_refusals },
	{ "refused_writes_stop_cleanly", refused_writes_stop_cleanly },
	{ "counter_sets_keep_the_sampling_counter", counter_sets_keep_the_sampling_counter },
	{ "lvt_perf_xapic", lvt_perf_xapic },
	{ "lvt_perf_x2apic", lvt_perf_x2apic },
	{ 0, 0 },
};
