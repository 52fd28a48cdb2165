/* The pure parts of the AArch64 ports of irq_displace and irq_footprint: the work clock's
 * conversion of handler work into the build's clock (arch/work_clock.h), and the footprint's
 * counter sets planned on PMUv3 (arch/aarch64/pmu_plan.c) with the name records carry as
 * vendor_event (pmu_counter_vendor_name). PMCEID values are built here from event lists, as the
 * Arm ARM describes the registers (bit n of PMCEID0_EL0 = common event n, n < 32; PMCEID1_EL0 =
 * events 32..63), independent of the code under test. */
#include <stdbool.h>
#include <stdint.h>

#include "arch/aarch64/include/cpu/pmu.h"
#include "arch/aarch64/pmu_regs.h"
#include "arch/work_clock.h"
#include "tests/unit/test.h"

#define EV_L1D_CACHE_REFILL 0x03
#define EV_L1I_CACHE_REFILL 0x01
#define EV_CPU_CYCLES 0x11
#define EV_L2D_CACHE_REFILL 0x17
#define QEMU_PMU_HZ 1000000000ull /* QEMU TCG's cycle counter: emulated ns */
#define QEMU_CNT_HZ 62500000ull   /* its generic timer */

static void work_scale(void)
{
	/* one clock (x86_64, or the fallback to ticks): the identity */
	CHECK_EQ_U64(work_clock_scale(4000000, 21721, 21721), 4000000);
	/* QEMU: 16 PMU cycles per counter tick; a spin measured on both clocks gives the ratio */
	CHECK_EQ_U64(work_clock_scale(4000000, 20000 * QEMU_CNT_HZ / QEMU_PMU_HZ, 20000), 250000);
	CHECK_EQ_U64(work_clock_scale(1000, 1358, 21721), 62); /* a boot's rates: rounded down */
	CHECK_EQ_U64(work_clock_scale(0, 1358, 21721), 0);
	/* nothing measured on the work clock: the work stays as given, never a division by 0 */
	CHECK_EQ_U64(work_clock_scale(12345, 1358, 0), 12345);
	/* the largest work irq_disp_work accepts, with a slow spin, does not overflow */
	CHECK_EQ_U64(work_clock_scale(1000000000ull, 4000000, 2000000), 2000000000ull);
	/* x86_64's header (the host's): the build's clock is the work clock, the records say nothing */
	{
		struct work_clock wc;
		uint64_t scratch[2], ticks = 777;

		work_clock_spin_rate(&wc, 20000, scratch, 1, &ticks, 5);
		CHECK_EQ_U64(wc.spin, 777);
		CHECK_EQ_U64(ticks, 777);
		CHECK(wc.work_unit == 0 && wc.time_unit == 0 && wc.why == 0);
		CHECK_EQ_U64(work_clock_to_ticks(&wc, 4000000, 777), 4000000);
	}
}

static void model_pmceid(const unsigned *ev, unsigned n, uint64_t *id0, uint64_t *id1)
{
	*id0 = *id1 = 0;
	for (unsigned i = 0; i < n; i++) {
		if (ev[i] < 32)
			*id0 |= 1ull << ev[i];
		else if (ev[i] < 64)
			*id1 |= 1ull << (ev[i] - 32);
	}
}

static struct pmu_info pmu_with(const unsigned *ev, unsigned n)
{
	struct pmu_info pi = { .present = true, .pmuver = A64_PMUVER_V3P5, .num_counters = 6,
			       .counter_width = 64, .cycle_counter = true, .cycle_width = 64 };

	model_pmceid(ev, n, &pi.pmceid0, &pi.pmceid1);
	pi.filter = a64_pmu_filter_el1(false);
	pi.evt_mask = a64_pmu_evt_mask(pi.pmuver);
	return pi;
}

/* bench/core/counters.c's footprint sets: footprint_l1d_any = l1d_misses, footprint_l2_any =
 * l2_misses, footprint_l1i = l1i_misses; the demand-only ones have no PMUv3 common event. */
static void footprint_sets_on_a_cpu_with_caches(void)
{
	static const unsigned ev[] = { EV_L1I_CACHE_REFILL, EV_L1D_CACHE_REFILL, EV_CPU_CYCLES, EV_L2D_CACHE_REFILL };
	static const char *const want[][2] = { { "l1d_misses", "L1D_CACHE_REFILL" },
					       { "l2_misses", "L2D_CACHE_REFILL" },
					       { "l1i_misses", "L1I_CACHE_REFILL" } };
	static const unsigned want_ev[] = { EV_L1D_CACHE_REFILL, EV_L2D_CACHE_REFILL, EV_L1I_CACHE_REFILL };
	struct pmu_info pi = pmu_with(ev, 4);
	struct pmu_plan plan;

	for (unsigned i = 0; i < 3; i++) {
		const char *names[] = { want[i][0] };

		CHECK_EQ_U64(a64_pmu_plan_events(&pi, names, 1, &plan), 1);
		CHECK_EQ_U64(plan.pass[0].n, 1);
		CHECK_EQ_U64(plan.nrefused, 0);
		CHECK_EQ_U64(plan.pass[0].c[0].event, want_ev[i]);
		CHECK_EQ_U64(plan.pass[0].c[0].idx, 0); /* an event counter, not PMCCNTR_EL0 */
		CHECK_STR(pmu_counter_vendor_name(&plan.pass[0].c[0]), want[i][1]);
		CHECK(a64_pmu_has_event(&pi, want[i][0]));
	}
	/* demand-only misses: refused with a reason, so fp_pmu_set takes the general set */
	CHECK(!a64_pmu_has_event(&pi, "l1d_demand_misses"));
	CHECK(!a64_pmu_has_event(&pi, "l2_demand_misses"));
}

/* QEMU TCG: PMCEID offers none of the refill events: refused with PMCEID's reason (the probe
 * then times the level and its skip record carries the reason). */
static void footprint_sets_under_tcg(void)
{
	static const unsigned qemu[] = { 0x00, 0x08, 0x11, 0x23, 0x24, 0x3C };
	static const char *const names[] = { "l1d_misses", "l2_misses", "l1i_misses" };
	struct pmu_info pi = pmu_with(qemu, 6);
	struct pmu_plan plan;

	CHECK_EQ_U64(a64_pmu_plan_events(&pi, names, 3, &plan), 0);
	CHECK_EQ_U64(plan.nrefused, 3);
	for (unsigned i = 0; i < plan.nrefused; i++)
		CHECK(strstr(plan.refused_why[i], "PMCEID") != 0);
	/* no PMU at all: refused with discovery's reason */
	pi.present = false;
	pi.reason = "PMUVer 0";
	CHECK_EQ_U64(a64_pmu_plan_events(&pi, names, 1, &plan), 0);
	CHECK_STR(plan.refused_why[0], "PMUVer 0");
}

/* The cycle counter's name for vendor_event. */
static void cycle_counter_name(void)
{
	static const unsigned ev[] = { EV_CPU_CYCLES };
	static const char *const names[] = { "cycles" };
	struct pmu_info pi = pmu_with(ev, 1);
	struct pmu_plan plan;

	CHECK_EQ_U64(a64_pmu_plan_events(&pi, names, 1, &plan), 1);
	CHECK_STR(pmu_counter_vendor_name(&plan.pass[0].c[0]), "PMCCNTR_EL0");
}

TEST_SUITE(a64_irq_cost) = {
	{ "work_scale", work_scale },
	{ "footprint_sets_on_a_cpu_with_caches", footprint_sets_on_a_cpu_with_caches },
	{ "footprint_sets_under_tcg", footprint_sets_under_tcg },
	{ "cycle_counter_name", cycle_counter_name },
	{ 0, 0 },
};
