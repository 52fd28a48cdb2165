/* AArch64 overflow sampling's pure part (arch/aarch64/pmu_pmi_plan.c) against a model of the Arm
 * ARM's rules, written here from the register descriptions and independent of the code under
 * test:
 * - "Counter size": an event counter of width w (32, or 64 with PMCR_EL0.LP) overflows when it
 *   wraps from 2^w - 1 to 0, setting its PMOVSSET_EL0 bit; the model says after how many events
 *   a preloaded counter does that;
 * - PMCNTENSET/PMINTENSET/PMOVSSET bit n = event counter n; PMEVTYPER<n>_EL0 = filter | event;
 * - the counter choice: the highest of PMCR_EL0.N counters not enabled and not reserved, the
 *   nudge the next one below, and counter sets (pmu_plan.c) never planned onto either. */
#include <stdbool.h>
#include <stdint.h>

#include "arch/aarch64/pmu_pmi.h"
#include "arch/aarch64/pmu_regs.h"
#include "tests/unit/test.h"

#define EV_INST_RETIRED 0x08 /* the Arm ARM's common event numbers, typed in again */
#define EV_CPU_CYCLES 0x11
#define EV_STALL 0x3C
#define FILTER_U (1u << 30) /* PMEVTYPER.U: EL0 not counted; P (bit 31) clear: EL1 counted */
#define FILTER_P (1u << 31)

/* Events after which a w-bit counter starting at `start` first wraps to 0 (sets its overflow
 * bit): 2^w - start, or 2^w when it starts at 0. */
static uint64_t model_events_to_overflow(uint64_t start, unsigned w)
{
	uint64_t mask = w >= 64 ? ~0ull : (1ull << w) - 1;

	start &= mask;
	if (!start)
		return w >= 64 ? mask : mask + 1; /* 2^w (2^64 does not fit: reported as 2^64 - 1) */
	return (mask - start) + 1;
}

static struct pmu_info qemu_like(unsigned n, unsigned width)
{
	struct pmu_info pi = { .present = true, .pmuver = A64_PMUVER_V3P5, .num_counters = n,
			       .counter_width = width, .cycle_counter = true, .cycle_width = 64 };

	/* PMCEID0: SW_INCR, INST_RETIRED, CPU_CYCLES (QEMU under -icount); PMCEID1: STALL (0x3C). */
	pi.pmceid0 = 1ull << 0 | 1ull << EV_INST_RETIRED | 1ull << EV_CPU_CYCLES;
	pi.pmceid1 = 1ull << (EV_STALL - 32);
	pi.filter = a64_pmu_filter_el1(false);
	pi.evt_mask = a64_pmu_evt_mask(pi.pmuver);
	return pi;
}

static void counter_choice(void)
{
	struct pmu_info pi = qemu_like(6, 64);
	struct a64_pmi p;
	const char *why = 0;

	CHECK(a64_pmi_plan(&p, &pi, "instructions", 0, &why));
	CHECK_EQ_U64(p.counter, 5);
	CHECK(p.nudge);
	CHECK_EQ_U64(p.nudge_counter, 4);
	CHECK_EQ_U64(a64_pmi_bit(&p), 0x20);
	CHECK_EQ_U64(a64_pmi_counters(&p), 0x30);
	/* enabled counters (someone else's) are skipped, from the top */
	CHECK(a64_pmi_plan(&p, &pi, "instructions", 0x20 | 0x08, &why));
	CHECK_EQ_U64(p.counter, 4);
	CHECK_EQ_U64(p.nudge_counter, 2);
	/* the cycle counter's enable bit (31) is no event counter's */
	CHECK(a64_pmi_plan(&p, &pi, "instructions", 1u << A64_PMU_CYCLE_IDX, &why));
	CHECK_EQ_U64(p.counter, 5);
	/* reserved ones too */
	pi.counters_reserved = 0x30;
	CHECK(a64_pmi_plan(&p, &pi, "instructions", 0, &why));
	CHECK_EQ_U64(p.counter, 3);
	CHECK_EQ_U64(p.nudge_counter, 2);
	pi.counters_reserved = 0;
	/* one counter: no nudge */
	pi.num_counters = 1;
	CHECK(a64_pmi_plan(&p, &pi, "instructions", 0, &why));
	CHECK_EQ_U64(p.counter, 0);
	CHECK(!p.nudge);
	CHECK_EQ_U64(a64_pmi_counters(&p), 1);
	/* PMCR_EL0.N = 31 (the most): counter 30 */
	pi.num_counters = 31;
	CHECK(a64_pmi_plan(&p, &pi, "instructions", 0, &why));
	CHECK_EQ_U64(p.counter, 30);
	CHECK_EQ_U64(p.nudge_counter, 29);
}

static void refusals(void)
{
	struct pmu_info pi = qemu_like(6, 64);
	struct a64_pmi p;
	const char *why = 0;

	CHECK(!a64_pmi_plan(&p, &pi, "instructions", 0x3F, &why));
	CHECK(strstr(why, "in use") != 0);
	CHECK(!a64_pmi_plan(&p, &pi, "no_such_event", 0, &why));
	CHECK(strstr(why, "no such event") != 0);
	CHECK(!a64_pmi_plan(&p, &pi, "ref_cycles", 0, &why));
	CHECK(strstr(why, "reference") != 0);
	CHECK(!a64_pmi_plan(&p, &pi, "", 0, &why));
	/* INST_RETIRED not in PMCEID0 (QEMU without -icount): refused, saying so */
	pi.pmceid0 &= ~(1ull << EV_INST_RETIRED);
	CHECK(!a64_pmi_plan(&p, &pi, "instructions", 0, &why));
	CHECK(strstr(why, "icount") != 0);
	pi = qemu_like(0, 64);
	CHECK(!a64_pmi_plan(&p, &pi, "instructions", 0, &why));
	CHECK(strstr(why, "PMCR_EL0.N = 0") != 0);
	pi.present = false;
	pi.reason = "no PMU here";
	CHECK(!a64_pmi_plan(&p, &pi, "instructions", 0, &why));
	CHECK_STR(why, "no PMU here");
	CHECK(!a64_pmi_plan(&p, 0, "instructions", 0, &why));
}

static void typer_counts_the_event_at_el1(void)
{
	struct pmu_info pi = qemu_like(6, 64);
	struct a64_pmi p;
	const char *why = 0;

	CHECK(a64_pmi_plan(&p, &pi, "instructions", 0, &why));
	CHECK_EQ_U64(p.event, EV_INST_RETIRED);
	CHECK_STR(p.arm_name, "INST_RETIRED");
	CHECK_EQ_U64(p.typer & 0xFFFF, EV_INST_RETIRED);
	CHECK_EQ_U64(p.typer & FILTER_P, 0);
	CHECK_EQ_U64(p.typer & FILTER_U, FILTER_U);
	CHECK_EQ_U64(p.typer, 0x40000008u);
	/* cycles on an event counter (overflow sampling needs one): CPU_CYCLES */
	CHECK(a64_pmi_plan(&p, &pi, "cycles", 0, &why));
	CHECK_EQ_U64(p.event, EV_CPU_CYCLES);
	CHECK_EQ_U64(p.typer, 0x40000011u);
	CHECK(p.counter < A64_PMU_CYCLE_IDX);
	CHECK(a64_pmi_plan(&p, &pi, "stall_cycles", 0, &why));
	CHECK_EQ_U64(p.typer & 0xFFFF, EV_STALL);
}

static void preload_overflows_after_period(void)
{
	static const unsigned widths[] = { 32, 64 };
	static const uint64_t periods[] = { 1, 2, 9375, 10000, 65536, 1ull << 31, 0xFFFFFFFFull };

	for (unsigned w = 0; w < 2; w++) {
		struct pmu_info pi = qemu_like(6, widths[w]);
		struct a64_pmi p;
		const char *why = 0;

		CHECK(a64_pmi_plan(&p, &pi, "instructions", 0, &why));
		CHECK_EQ_U64(p.ctr_mask, widths[w] == 64 ? ~0ull : 0xFFFFFFFFull);
		for (unsigned i = 0; i < sizeof(periods) / sizeof(periods[0]); i++) {
			uint64_t v = a64_pmi_preload(&p, periods[i]);

			CHECK_EQ_U64(v & ~p.ctr_mask, 0); /* within the counter's width */
			CHECK_EQ_U64(model_events_to_overflow(v, widths[w]), periods[i]);
			/* the nudge wraps exactly one event later */
			CHECK_EQ_U64(model_events_to_overflow(a64_pmi_nudge_preload(&p, periods[i]), widths[w]),
				     periods[i] + 1);
		}
		/* 0 is taken as 1; beyond the width, clamped to the longest the counter can do */
		CHECK_EQ_U64(model_events_to_overflow(a64_pmi_preload(&p, 0), widths[w]), 1);
		if (widths[w] == 32) {
			CHECK_EQ_U64(a64_pmi_preload(&p, 1ull << 40), 1);
			CHECK_EQ_U64(model_events_to_overflow(a64_pmi_preload(&p, 1ull << 40), 32), 0xFFFFFFFFull);
		}
	}
	CHECK_EQ_U64(a64_pmi_preload(&(struct a64_pmi){ .ctr_mask = ~0ull, .max_period = ~0ull }, 10000),
		     0xFFFFFFFFFFFFD8F0ull);
	CHECK_EQ_U64(a64_pmi_preload(&(struct a64_pmi){ .ctr_mask = 0xFFFFFFFFull, .max_period = 0xFFFFFFFFull },
				     10000),
		     0xFFFFD8F0ull);
}

static void counter_sets_stay_off_the_sampler(void)
{
	struct pmu_info pi = qemu_like(6, 64);
	static const char *const names[] = { "instructions", "stall_cycles", "cycles", "branches",
					      "l1d_misses", "dtlb_misses" };
	struct pmu_plan plan;
	struct a64_pmi p;
	const char *why = 0;

	CHECK(a64_pmi_plan(&p, &pi, "instructions", 0, &why));
	pi.counters_reserved |= a64_pmi_counters(&p);
	a64_pmu_plan_events(&pi, names, 6, &plan);
	for (unsigned k = 0; k < plan.npasses; k++)
		CHECK_EQ_U64(a64_pmu_group_mask(&plan.pass[k]) & a64_pmi_counters(&p), 0);
	/* two events on event counters fit in the 4 left, one pass */
	CHECK_EQ_U64(plan.npasses, 1);
}

TEST_SUITE(a64_pmi) = {
	{ "counter_choice", counter_choice },
	{ "refusals", refusals },
	{ "typer_counts_the_event_at_el1", typer_counts_the_event_at_el1 },
	{ "preload_overflows_after_period", preload_overflows_after_period },
	{ "counter_sets_stay_off_the_sampler", counter_sets_stay_off_the_sampler },
	{ 0, 0 },
};
