/* AArch64 PMUv3 encodings (arch/aarch64/pmu_encode.c) and planning (pmu_plan.c) against a small
 * model of the Arm ARM's documented semantics ("The Performance Monitors Extension" and the
 * PMEVTYPER<n>_EL0 / PMCR_EL0 / PMCNTENSET_EL0 / PMCEID0/1_EL0 descriptions), written here from
 * the register descriptions and independent of the code under test:
 * - the filter: whether a PMEVTYPER / PMCCFILTR value counts at a given exception level and
 *   Security state, with or without EL3 (the P/U/NSK/NSU/NSH/M rules);
 * - PMCR_EL0 as a register: what writing the enable value does (resets, divider, widths);
 * - PMCNTENSET/CLR as set/clear registers over the group's counters;
 * - PMCEID as built from a list of implemented events. */
#include <stdbool.h>
#include <stdint.h>

#include "arch/aarch64/include/cpu/pmu.h"
#include "arch/aarch64/pmu_regs.h"
#include "tests/unit/test.h"

/* ---- the model ---------------------------------------------------------------------------------- */

enum model_state { NONSECURE, SECURE };

static unsigned bit(uint32_t v, unsigned b)
{
	return (v >> b) & 1u;
}

/* Does an event counter with filter `t` count at `el` in `state`? PMEVTYPER<n>_EL0: P [31] set =
 * do not count at EL1; U [30] set = not at EL0; with EL3 implemented, Non-secure EL1 / EL0 count
 * only if NSK [29] == P / NSU [28] == U; NSH [27] set = count at EL2 (Non-secure); M [26] (EL3
 * implemented) = count at EL3 if M == P. Without EL3 there is one Security state (Non-secure here)
 * and NSK/NSU/M are RES0. (QEMU's pmu_counter_enabled() implements the same rules.) */
static bool model_counts(uint32_t t, unsigned el, enum model_state state, bool have_el3)
{
	unsigned p = bit(t, 31), u = bit(t, 30), nsk = bit(t, 29), nsu = bit(t, 28), nsh = bit(t, 27),
		 m = bit(t, 26);

	bool ns_split = have_el3 && state == NONSECURE; /* NSK / NSU take over from P / U */

	switch (el) {
	case 0:
		return ns_split ? nsu == u : !u;
	case 1:
		return ns_split ? nsk == p : !p;
	case 2:
		return nsh != 0;
	default:
		return have_el3 && m == p;
	}
}

/* The bits RES0 in a PMEVTYPER<n>_EL0 written without EL3 (NSK, NSU, M), and MT (no SMT). */
#define RES0_WITHOUT_EL3 (A64_PMEVTYPER_NSK | A64_PMEVTYPER_NSU | A64_PMEVTYPER_M)

/* PMCEID0/1 from the events the "implementation" offers. */
static void model_pmceid(const unsigned *ev, unsigned n, uint64_t *id0, uint64_t *id1)
{
	*id0 = *id1 = 0;
	for (unsigned i = 0; i < n; i++) {
		unsigned e = ev[i], hi = 0;

		if (e >= 0x4000) {
			e -= 0x4000;
			hi = 32;
		}
		if (e < 32)
			*id0 |= 1ull << (hi + e);
		else
			*id1 |= 1ull << (hi + e - 32);
	}
}

/* ---- filter ----------------------------------------------------------------------------------- */

static void filter_counts_el1_only(void)
{
	for (int el3 = 0; el3 <= 1; el3++) {
		uint32_t f = a64_pmu_filter_el1(el3);

		/* the firmware's level counts, in whichever state it runs */
		CHECK(model_counts(f, 1, NONSECURE, el3));
		CHECK(model_counts(f, 1, SECURE, el3));
		/* nothing else: user code, the hypervisor, the secure monitor */
		CHECK(!model_counts(f, 0, NONSECURE, el3));
		CHECK(!model_counts(f, 0, SECURE, el3));
		CHECK(!model_counts(f, 2, NONSECURE, el3));
		CHECK(!model_counts(f, 3, SECURE, el3));
		CHECK_EQ_U64(f & A64_PMEVTYPER_MT, 0);
		CHECK_EQ_U64(f & 0xFFFFu, 0); /* no event bits in the filter */
		if (!el3)
			CHECK_EQ_U64(f & RES0_WITHOUT_EL3, 0);
	}
	/* the values themselves, as the comment in pmu.h states them */
	CHECK_EQ_U64(a64_pmu_filter_el1(false), 0x40000000u); /* U */
	CHECK_EQ_U64(a64_pmu_filter_el1(true), 0x44000000u);  /* U | M */
}

static void model_catches_wrong_filters(void)
{
	/* The model must be able to fail: Linux's exclude_user without NSK on a machine with EL3 is
	 * fine, but P = 1 alone stops EL1, NSK = 1 with P = 0 stops Non-secure EL1, and a zero
	 * filter counts EL0 too. */
	CHECK(!model_counts(A64_PMEVTYPER_P, 1, NONSECURE, true));
	CHECK(!model_counts(A64_PMEVTYPER_NSK, 1, NONSECURE, true));
	CHECK(model_counts(0, 0, NONSECURE, true));
	CHECK(model_counts(A64_PMEVTYPER_NSH, 2, NONSECURE, true));
	CHECK(model_counts(0, 3, SECURE, true)); /* M = P = 0: EL3 would count */
}

/* ---- PMEVTYPER -------------------------------------------------------------------------------- */

static void evtyper_values(void)
{
	uint32_t f = a64_pmu_filter_el1(false);
	uint32_t m1 = a64_pmu_evt_mask(A64_PMUVER_V3), m5 = a64_pmu_evt_mask(A64_PMUVER_V3P5);

	CHECK_EQ_U64(m1, 0x3FF);
	CHECK_EQ_U64(m5, 0xFFFF);
	CHECK_EQ_U64(a64_pmu_evt_mask(A64_PMUVER_V3P1), 0xFFFF);
	CHECK_EQ_U64(a64_pmu_evt_mask(A64_PMUVER_IMPDEF), 0x3FF);
	/* INST_RETIRED counting EL1: 0x40000008 */
	CHECK_EQ_U64(a64_pmu_evtyper(f, A64_EV_INST_RETIRED, m5), 0x40000008u);
	/* the event field reads back as the event; the filter bits are untouched by it */
	for (unsigned ev = 0; ev < 0x40; ev++) {
		uint32_t t = a64_pmu_evtyper(f, ev, m1);

		CHECK_EQ_U64(t & m1, ev);
		CHECK_EQ_U64(t & ~m1, f);
		CHECK(model_counts(t, 1, NONSECURE, false) && !model_counts(t, 0, NONSECURE, false));
	}
	/* an extended event (0x4000+) never spills into the filter bits of a PMUv3 evtCount */
	CHECK_EQ_U64(a64_pmu_evtyper(f, 0x4001, m1) & ~m1, f);
	CHECK_EQ_U64(a64_pmu_evtyper(f, 0x4001, m5), f | 0x4001);
}

/* ---- PMCR ------------------------------------------------------------------------------------- */

/* PMCR_EL0 as a register: writing v enables counting if E, resets event counters if P, the cycle
 * counter if C; LC / LP make the cycle / event counters 64-bit (LP only from PMUv3p5, RES0
 * before). */
struct model_pmcr {
	bool enabled, reset_events, reset_cycles, divider, export_, dp;
	unsigned cycle_bits, event_bits;
};

static struct model_pmcr model_pmcr_write(uint32_t v, unsigned pmuver)
{
	struct model_pmcr m;
	bool has_lp = pmuver >= A64_PMUVER_V3P5 && pmuver != A64_PMUVER_IMPDEF;

	m.enabled = bit(v, 0);
	m.reset_events = bit(v, 1);
	m.reset_cycles = bit(v, 2);
	m.divider = bit(v, 3);
	m.export_ = bit(v, 4);
	m.dp = bit(v, 5);
	m.cycle_bits = bit(v, 6) ? 64 : 32;
	m.event_bits = has_lp && bit(v, 7) ? 64 : 32;
	return m;
}

static void pmcr_enable_value(void)
{
	static const unsigned vers[] = { A64_PMUVER_V3, A64_PMUVER_V3P1, A64_PMUVER_V3P4, A64_PMUVER_V3P5,
					 A64_PMUVER_V3P7, A64_PMUVER_V3P9 };

	for (unsigned i = 0; i < sizeof(vers) / sizeof(vers[0]); i++) {
		uint32_t v = a64_pmu_pmcr_enable(vers[i]);
		struct model_pmcr m = model_pmcr_write(v, vers[i]);

		CHECK(m.enabled);
		/* never the global resets: they would zero counters outside the group (a sampler's) */
		CHECK(!m.reset_events && !m.reset_cycles);
		CHECK(!m.divider && !m.export_ && !m.dp);
		CHECK_EQ_U64(m.cycle_bits, 64);
		CHECK_EQ_U64(m.event_bits, vers[i] >= A64_PMUVER_V3P5 ? 64 : 32);
		/* LP is RES0 before PMUv3p5: not written there */
		if (vers[i] < A64_PMUVER_V3P5)
			CHECK_EQ_U64(v & A64_PMCR_LP, 0);
		CHECK_EQ_U64(v >> 8, 0); /* N, IDCODE, IMP are read-only: written 0 */
	}
	CHECK_EQ_U64(a64_pmu_pmcr_enable(A64_PMUVER_V3P5), 0xC1);
	CHECK_EQ_U64(a64_pmu_pmcr_enable(A64_PMUVER_V3), 0x41);
	/* N [15:11]: what QEMU's max CPU reports (PMCR 0x41013000: IMP 0x41, N 6) */
	CHECK_EQ_U64(a64_pmu_pmcr_n(0x41013000ull), 6);
	CHECK_EQ_U64(a64_pmu_pmcr_n(31u << 11), 31);
	CHECK_EQ_U64(a64_pmu_pmcr_n(0xFFFF07FFull), 0);
}

/* ---- PMCNTENSET/CLR ------------------------------------------------------------------------------- */

static void cnten_masks(void)
{
	struct pmu_group g = { .n = 3 };
	uint32_t enabled = 0x4; /* counter 2 belongs to someone else and counts */
	uint32_t m;

	g.c[0].idx = A64_PMU_CYCLE_IDX;
	g.c[1].idx = 0;
	g.c[2].idx = 5;
	m = a64_pmu_group_mask(&g);
	CHECK_EQ_U64(m, 0x80000021u);
	/* PMCNTENSET ORs, PMCNTENCLR clears: start then stop leaves the other counter counting */
	enabled |= m;
	CHECK_EQ_U64(enabled, 0x80000025u);
	enabled &= ~m;
	CHECK_EQ_U64(enabled, 0x4);
	g.n = 0;
	CHECK_EQ_U64(a64_pmu_group_mask(&g), 0);
}

/* ---- PMCEID ----------------------------------------------------------------------------------- */

static void pmceid_decode(void)
{
	/* QEMU's TCG under -icount: SW_INCR, INST_RETIRED, CPU_CYCLES, STALL_FRONTEND, STALL_BACKEND, STALL */
	static const unsigned qemu[] = { 0x00, 0x08, 0x11, 0x23, 0x24, 0x3C };
	static const unsigned mixed[] = { 0x03, 0x1F, 0x20, 0x3F, 0x4000, 0x401F, 0x4020, 0x403F };
	uint64_t id0, id1;

	model_pmceid(qemu, 6, &id0, &id1);
	CHECK_EQ_U64(id0, 0x20101); /* what the firmware read under QEMU 7.2 */
	CHECK_EQ_U64(id1, 0x10000018);
	CHECK_EQ_U64(a64_pmu_events_implemented(id0, id1), 6);
	for (unsigned e = 0; e < 0x40; e++) {
		bool want = false;

		for (unsigned i = 0; i < 6; i++)
			want |= qemu[i] == e;
		CHECK(a64_pmu_event_implemented(id0, id1, e) == want);
		CHECK(!a64_pmu_event_implemented(id0, id1, 0x4000 + e));
	}
	model_pmceid(mixed, 8, &id0, &id1);
	for (unsigned i = 0; i < 8; i++)
		CHECK(a64_pmu_event_implemented(id0, id1, mixed[i]));
	CHECK(!a64_pmu_event_implemented(id0, id1, 0x04));
	CHECK(!a64_pmu_event_implemented(id0, id1, 0x40)); /* beyond PMCEID's range */
	CHECK(!a64_pmu_event_implemented(id0, id1, 0x4040));
	CHECK_EQ_U64(a64_pmu_events_implemented(id0, id1), 8);
	CHECK_STR(a64_pmu_version_name(A64_PMUVER_V3P5), "v3p5");
	CHECK_STR(a64_pmu_version_name(2), "reserved");
}

/* ---- planning ----------------------------------------------------------------------------------- */

static struct pmu_info qemu_like(unsigned n)
{
	static const unsigned qemu[] = { 0x00, 0x08, 0x11, 0x23, 0x24, 0x3C };
	struct pmu_info pi = { .present = true, .pmuver = A64_PMUVER_V3P5, .num_counters = n,
			       .counter_width = 64, .cycle_counter = true, .cycle_width = 64 };

	model_pmceid(qemu, 6, &pi.pmceid0, &pi.pmceid1);
	pi.filter = a64_pmu_filter_el1(false);
	pi.evt_mask = a64_pmu_evt_mask(pi.pmuver);
	return pi;
}

static void plan_qemu_sets(void)
{
	struct pmu_info pi = qemu_like(6);
	static const char *const spin[] = { "cycles", "instructions" };
	static const char *const cost[] = { "cycles", "instructions", "l1d_misses", "aperf", "ref_cycles" };
	struct pmu_plan plan;

	CHECK_EQ_U64(a64_pmu_plan_events(&pi, spin, 2, &plan), 1);
	CHECK_EQ_U64(plan.pass[0].n, 2);
	CHECK_EQ_U64(plan.pass[0].c[0].idx, A64_PMU_CYCLE_IDX); /* cycles on PMCCNTR_EL0 */
	CHECK_STR(plan.pass[0].c[0].arm_name, "PMCCNTR_EL0");
	CHECK_EQ_U64(plan.pass[0].c[0].typer, pi.filter);        /* PMCCFILTR: filter only */
	CHECK_EQ_U64(plan.pass[0].c[1].idx, 0);
	CHECK_EQ_U64(plan.pass[0].c[1].typer, 0x40000008u);
	CHECK_EQ_U64(plan.pass[0].c[1].mask, ~0ull);
	CHECK_EQ_U64(a64_pmu_group_mask(&plan.pass[0]), 0x80000001u);
	CHECK_EQ_U64(plan.nrefused, 0);

	CHECK_EQ_U64(a64_pmu_plan_events(&pi, cost, 5, &plan), 1);
	CHECK_EQ_U64(plan.pass[0].n, 2);
	CHECK_EQ_U64(plan.nrefused, 3);
	CHECK_STR(plan.refused[0], "l1d_misses");
	CHECK(strstr(plan.refused_why[0], "PMCEID") != 0);
	CHECK(strstr(plan.refused_why[1], "x86") != 0);
	CHECK(strstr(plan.refused_why[2], "reference") != 0);
}

static void plan_passes_and_widths(void)
{
	struct pmu_info pi = qemu_like(1);
	static const char *const names[] = { "cycles", "instructions", "stall_cycles", "cycles" };
	struct pmu_plan plan;

	pi.counter_width = 32;
	/* one event counter: instructions in pass 0, stall_cycles in pass 1; cycles once (deduplicated) */
	CHECK_EQ_U64(a64_pmu_plan_events(&pi, names, 4, &plan), 2);
	CHECK_EQ_U64(plan.pass[0].n, 2);
	CHECK_EQ_U64(plan.pass[1].n, 1);
	CHECK_STR(plan.pass[1].c[0].name, "stall_cycles");
	CHECK_EQ_U64(plan.pass[1].c[0].idx, 0);
	CHECK_EQ_U64(plan.pass[1].c[0].mask, 0xFFFFFFFFull);
	/* a reserved counter (a sampler's) is never planned */
	pi.counters_reserved = 1;
	CHECK_EQ_U64(a64_pmu_plan_events(&pi, names, 2, &plan), 1);
	CHECK_EQ_U64(plan.pass[0].n, 1);
	CHECK_STR(plan.refused[0], "instructions");
	/* no cycle counter: cycles as CPU_CYCLES on an event counter */
	pi.counters_reserved = 0;
	pi.cycle_counter = false;
	CHECK_EQ_U64(a64_pmu_plan_events(&pi, names, 1, &plan), 1);
	CHECK_EQ_U64(plan.pass[0].c[0].idx, 0);
	CHECK_EQ_U64(plan.pass[0].c[0].typer & 0xFFFF, A64_EV_CPU_CYCLES);
	/* absent: every name refused with the PMU's reason */
	pi.present = false;
	pi.reason = "no PMU here";
	CHECK_EQ_U64(a64_pmu_plan_events(&pi, names, 2, &plan), 0);
	CHECK_EQ_U64(plan.nrefused, 2);
	CHECK_STR(plan.refused_why[1], "no PMU here");
	CHECK(!a64_pmu_has_event(&pi, "cycles"));
}

/* branch_misses over branches: BR_RETIRED (0x21) counts architecturally executed branches, so the
 * misses should be BR_MIS_PRED_RETIRED (0x22: "branches counted by BR_RETIRED which were
 * mispredicted and caused a pipeline flush", Linux tools/perf/pmu-events/arch/arm64's Arm core
 * files), not BR_MIS_PRED (0x10: mispredicted or not predicted branches *speculatively*
 * executed) -- the Arm ARM's "Common event numbers" table. PMCEID1 bits 1 and 2 mark 0x21 and
 * 0x22, PMCEID0 bit 16 marks 0x10; the model builds them from the offered events. */
static void plan_branch_pair(void)
{
	static const unsigned both[] = { 0x10, 0x11, 0x21, 0x22 };
	static const unsigned no_retired_miss[] = { 0x10, 0x11, 0x21 };
	static const unsigned no_branches[] = { 0x11, 0x22 };
	static const char *const names[] = { "branch_misses", "branches" };
	struct pmu_info pi = qemu_like(6);
	struct pmu_plan plan;

	model_pmceid(both, 4, &pi.pmceid0, &pi.pmceid1);
	CHECK_EQ_U64(a64_pmu_plan_events(&pi, names, 2, &plan), 1);
	CHECK_EQ_U64(plan.pass[0].c[0].typer & 0xFFFF, A64_EV_BR_MIS_PRED_RETIRED);
	CHECK_STR(plan.pass[0].c[0].arm_name, "BR_MIS_PRED_RETIRED");
	CHECK_EQ_U64(plan.pass[0].c[1].typer & 0xFFFF, A64_EV_BR_RETIRED);
	CHECK_STR(a64_pmu_branch_ratio(&pi), "retired");

	/* PMCEID1 bit 2 (0x22) clear: the speculative event, and the pair says it is mixed */
	model_pmceid(no_retired_miss, 3, &pi.pmceid0, &pi.pmceid1);
	CHECK_EQ_U64(a64_pmu_plan_events(&pi, names, 2, &plan), 1);
	CHECK_EQ_U64(plan.nrefused, 0);
	CHECK_EQ_U64(plan.pass[0].c[0].typer & 0xFFFF, A64_EV_BR_MIS_PRED);
	CHECK_STR(plan.pass[0].c[0].arm_name, "BR_MIS_PRED");
	CHECK_STR(a64_pmu_branch_ratio(&pi), "mixed");

	/* no BR_RETIRED: no ratio at all, branches refused with the PMCEID reason */
	model_pmceid(no_branches, 2, &pi.pmceid0, &pi.pmceid1);
	CHECK_EQ_U64(a64_pmu_plan_events(&pi, names, 2, &plan), 1);
	CHECK_EQ_U64(plan.pass[0].c[0].typer & 0xFFFF, A64_EV_BR_MIS_PRED_RETIRED);
	CHECK_EQ_U64(plan.nrefused, 1);
	CHECK_STR(plan.refused[0], "branches");
	CHECK_STR(a64_pmu_branch_ratio(&pi), "none");

	/* neither miss event (QEMU TCG): refused with the preferred event's PMCEID reason */
	pi = qemu_like(6);
	CHECK_EQ_U64(a64_pmu_plan_events(&pi, names, 1, &plan), 0);
	CHECK(strstr(plan.refused_why[0], "PMCEID") != 0);
	CHECK_STR(a64_pmu_branch_ratio(&pi), "none");
	pi.present = false;
	CHECK_STR(a64_pmu_branch_ratio(&pi), "none");
}

TEST_SUITE(a64_pmu) = {
	{ "filter_counts_el1_only", filter_counts_el1_only },
	{ "model_catches_wrong_filters", model_catches_wrong_filters },
	{ "evtyper_values", evtyper_values },
	{ "pmcr_enable_value", pmcr_enable_value },
	{ "cnten_masks", cnten_masks },
	{ "pmceid_decode", pmceid_decode },
	{ "plan_qemu_sets", plan_qemu_sets },
	{ "plan_passes_and_widths", plan_passes_and_widths },
	{ "plan_branch_pair", plan_branch_pair },
	{ 0, 0 },
};
