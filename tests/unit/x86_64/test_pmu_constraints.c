/* Counter constraints (arch/x86_64/pmu_constraints.c) honoured by the counter-set planner
 * (pmu_plan.c) and the sampler's counter choice (pmu_pmi.c), against the PMU register model.
 * The expected restrictions are Linux's, written out here from arch/x86/events/intel/core.c:
 *  - intel_skl_event_constraints (intel_pmu_init: SKYLAKE_X 0x55, SKYLAKE_L 0x4E, SKYLAKE 0x5E,
 *    KABYLAKE_L 0x8E, KABYLAKE 0x9E, COMETLAKE_L 0xA6, COMETLAKE 0xA5): event selects 0xD0,
 *    0xD1, 0xD2, 0xCD, 0xC6 on counters 0-3 (mask 0xf, "when HT is off, these can only run on
 *    the bottom 4 counters"), INST_RETIRED.PREC_DIST 0x01C0 on counter 1 (mask 0x2);
 *  - intel_icl_event_constraints (ICELAKE_X 0x6A, ICELAKE_D 0x6C, ICELAKE_L 0x7E, ICELAKE 0x7D,
 *    TIGERLAKE_L 0x8C, TIGERLAKE 0x8D, ROCKETLAKE 0xA7): selects 0x03-0x0A, 0x1F-0x28, 0x32,
 *    0x48-0x56, 0x60-0x8B, 0xA3 (but 0x04A3, 0x10A3, 0x14A3 on every counter: 0xff), 0xA8-0xB0,
 *    0xB7-0xBD, 0xD0-0xE6, 0xEF, 0xF0-0xF4 on 0-3 (0xf);
 *  - intel_glc_event_constraints (SAPPHIRERAPIDS_X 0x8F, EMERALDRAPIDS_X 0xCF, GRANITERAPIDS_X
 *    0xAD, GRANITERAPIDS_D 0xAE): 0x2E and 0x3C on every counter (0xff), other selects
 *    0x01-0x8F on 0-3 (0xf), 0x01A3, 0x02A3, 0x08A3 on 0-3, 0x04A4, 0x08A4, 0x02CD and 0xCE
 *    on counter 0 (0x1), 0xD0-0xDF on 0-3, the rest of 0x90-0xFE on every counter.
 * Event selects are read back from IA32_PERFEVTSELx (0x186 + x), literals as in the SDM vol. 4
 * MSR list, independently of pmu_regs.h. */
#include "arch/pmu.h"
#include "arch/x86_64/pmu_pmi.h"
#include "tests/unit/pmu_model.h"
#include "tests/unit/test.h"

static struct pmu_model M;
static struct pmu_info P;

#define PERFEVTSEL0 0x186u
#define SEL_EN (1ull << 22)
#define SEL_EVENT(v) ((unsigned)((v) & 0xFF))
#define LOW_FOUR 0x0Fu /* counters 0-3 */

#define MODEL_SKYLAKE 0x5E
#define MODEL_SAPPHIRE_RAPIDS 0x8F

/* An Intel v4 PMU with `gp` general-purpose and 3 fixed counters, 48 bits wide. */
static void discover(unsigned model, unsigned gp)
{
	struct cpu_info ci = model_cpu(true, 6, model);
	struct pmu_cpuid id = { 0 };

	id.leaf_a[0] = 4 | gp << 8 | 48u << 16 | 7u << 24;
	id.leaf_a[3] = 3 | 48u << 5;
	id.leaf1_ecx = 1u << 15;
	model_intel(&M, 4, gp, 48, 3, 48, true);
	pmu_discover(&P, &ci, &id, &M.ops);
	CHECK(P.present);
	model_clear_log(&M);
}

/* Linux's Skylake rule: the event selects restricted to counters 0-3. */
static bool skl_low_four_only(unsigned event)
{
	return event == 0xD0 || event == 0xD1 || event == 0xD2 || event == 0xCD || event == 0xC6;
}

static const struct pmu_counter *find(const struct pmu_group *g, const char *name)
{
	for (unsigned i = 0; i < g->n; i++)
		if (strcmp(g->c[i].name, name) == 0)
			return &g->c[i];
	return 0;
}

/* No two counters of a pass share a general-purpose counter. */
static void distinct_gp(const struct pmu_group *g)
{
	uint32_t used = 0;

	for (unsigned i = 0; i < g->n; i++)
		if (g->c[i].kind == PMU_CTR_GP) {
			CHECK(!(used & (1u << g->c[i].idx)));
			used |= 1u << g->c[i].idx;
		}
}

/* Skylake, HT off (8 counters): MEM_LOAD_RETIRED.L1_MISS (0xD1) listed after four unrestricted
 * events still goes to counter 0-3 of the same pass, and the register it is programmed into is
 * one of IA32_PERFEVTSEL0-3. With the sampler holding counter 3 the set keeps off it and still
 * fits one pass (counters 4-7 stay usable). */
static void skl_restricted_event_after_four_others(void)
{
	static const char *const names[] = { "l1i_misses", "l2_misses", "dtlb_misses", "itlb_misses",
					     "l1d_demand_misses" };
	const struct pmu_counter *d1;
	struct pmu_plan pl;
	uint64_t sel;

	discover(MODEL_SKYLAKE, 8);
	CHECK_EQ_U64(pmu_plan_events(&P, names, 5, &pl), 1);
	CHECK_EQ_U64(pl.nrefused, 0);
	CHECK_EQ_U64(pl.pass[0].n, 5);
	distinct_gp(&pl.pass[0]);
	d1 = find(&pl.pass[0], "l1d_demand_misses");
	CHECK(d1 && SEL_EVENT(d1->config) == 0xD1 && d1->idx < 4);
	pmu_program(&P, &pl.pass[0], 0);
	for (unsigned k = 0; k < 8; k++) {
		CHECK(model_get(&M, PERFEVTSEL0 + k, &sel));
		if (skl_low_four_only(SEL_EVENT(sel)))
			CHECK(k < 4);
	}
	pmu_release(&P, &pl.pass[0]);

	P.gp_reserved = 1u << 3;
	CHECK_EQ_U64(pmu_plan_events(&P, names, 5, &pl), 1);
	distinct_gp(&pl.pass[0]);
	for (unsigned i = 0; i < pl.pass[0].n; i++)
		CHECK(pl.pass[0].c[i].idx != 3);
	d1 = find(&pl.pass[0], "l1d_demand_misses");
	CHECK(d1 && d1->idx < 3);
}

/* Test-only encodings of Skylake events Linux restricts (names are local to this table). */
static const struct pmu_event skl_restricted[] = {
	{ "t_d0", 0xD0, 0x81, 0, 0, PMU_NO_FIXED, PMU_NO_ARCH_BIT, "MEM_INST_RETIRED.ALL_LOADS" },
	{ "t_d1", 0xD1, 0x08, 0, 0, PMU_NO_FIXED, PMU_NO_ARCH_BIT, "MEM_LOAD_RETIRED.L1_MISS" },
	{ "t_d2", 0xD2, 0x01, 0, 0, PMU_NO_FIXED, PMU_NO_ARCH_BIT, "MEM_LOAD_L3_HIT_RETIRED.XSNP_MISS" },
	{ "t_cd", 0xCD, 0x01, 3, 0, PMU_NO_FIXED, PMU_NO_ARCH_BIT, "MEM_TRANS_RETIRED.LOAD_LATENCY" },
	{ "t_c6", 0xC6, 0x01, 0, 0, PMU_NO_FIXED, PMU_NO_ARCH_BIT, "FRONTEND_RETIRED" },
};
static const struct pmu_event_table skl_restricted_table = { .name = "test_skl", .events = skl_restricted, .n = 5 };

/* Five events all restricted to counters 0-3 cannot share one pass on 8 counters: the fifth
 * takes a second pass, again on 0-3, and none is refused. */
static void skl_five_restricted_events_take_two_passes(void)
{
	static const char *const names[] = { "t_d0", "t_d1", "t_d2", "t_cd", "t_c6" };
	struct pmu_plan pl;

	discover(MODEL_SKYLAKE, 8);
	P.family = &skl_restricted_table;
	CHECK_EQ_U64(pmu_plan_events(&P, names, 5, &pl), 2);
	CHECK_EQ_U64(pl.nrefused, 0);
	CHECK_EQ_U64(pl.pass[0].n, 4);
	CHECK_EQ_U64(pl.pass[1].n, 1);
	for (unsigned p = 0; p < 2; p++) {
		distinct_gp(&pl.pass[p]);
		for (unsigned i = 0; i < pl.pass[p].n; i++)
			CHECK(pl.pass[p].c[i].idx < 4);
	}
}

/* Test-only Golden Cove encodings restricted to counter 0 (0xCE; 0x02CD). */
static const struct pmu_event glc_ctr0[] = {
	{ "t_ce", 0xCE, 0x01, 0, 0, PMU_NO_FIXED, PMU_NO_ARCH_BIT, "event 0xCE" },
	{ "t_cd_store", 0xCD, 0x02, 0, 0, PMU_NO_FIXED, PMU_NO_ARCH_BIT, "MEM_TRANS_RETIRED.STORE_SAMPLE" },
};
static const struct pmu_event_table glc_ctr0_table = { .name = "test_glc", .events = glc_ctr0, .n = 2 };

/* Sapphire Rapids: two counter-0-only events need a pass each; with counter 0 kept for
 * sampling no pass can count them, and the set refuses them with the reason (a skip in the
 * records). LONGEST_LAT_CACHE (0x2E, below 0x90 yet an exception) may use counters 4-7. */
static void glc_counter_0_events_refused_when_it_is_taken(void)
{
	static const char *const names[] = { "t_ce", "t_cd_store" };
	static const char *const llc[] = { "llc_references", "llc_misses" };
	struct pmu_plan pl;

	discover(MODEL_SAPPHIRE_RAPIDS, 8);
	P.family = &glc_ctr0_table;
	CHECK_EQ_U64(pmu_plan_events(&P, names, 2, &pl), 2);
	CHECK_EQ_U64(pl.pass[0].c[0].idx, 0);
	CHECK_EQ_U64(pl.pass[1].c[0].idx, 0);

	P.gp_reserved = 1u << 0;
	CHECK_EQ_U64(pmu_plan_events(&P, names, 2, &pl), 0);
	CHECK_EQ_U64(pl.nrefused, 2);
	CHECK_STR(pl.refused[0], "t_ce");
	CHECK(strstr(pl.refused_why[0], "restricted to on this CPU model") != 0);

	P.gp_reserved = LOW_FOUR;
	CHECK_EQ_U64(pmu_plan_events(&P, llc, 2, &pl), 1);
	CHECK_EQ_U64(pl.nrefused, 0);
	CHECK(pl.pass[0].c[0].idx >= 4 && pl.pass[0].c[1].idx >= 4);
}

/* The sampler takes the highest free counter the event may use: counter 3 for 0xD1 on an
 * 8-counter Skylake (7 for the unrestricted cycles event), 2 when 3 is busy, and refuses with
 * the reason when 0-3 are all busy though 4-7 are free. */
static void sampler_picks_an_allowed_counter(void)
{
	struct pmu_pmi p;
	const char *why = 0;

	discover(MODEL_SKYLAKE, 8);
	CHECK(pmu_pmi_setup(&p, &P, "l1d_demand_misses", &why));
	CHECK_EQ_U64(p.counter, 3);
	CHECK_EQ_U64(p.evtsel_msr, PERFEVTSEL0 + 3);
	CHECK(pmu_pmi_setup(&p, &P, "cycles", &why));
	CHECK_EQ_U64(p.counter, 7);

	model_set(&M, PERFEVTSEL0 + 3, SEL_EN | 0x3C);
	CHECK(pmu_pmi_setup(&p, &P, "l1d_demand_misses", &why));
	CHECK_EQ_U64(p.counter, 2);

	for (unsigned k = 0; k < 4; k++)
		model_set(&M, PERFEVTSEL0 + k, SEL_EN | 0x3C);
	why = 0;
	CHECK(!pmu_pmi_setup(&p, &P, "l1d_demand_misses", &why));
	CHECK(why && strstr(why, "restricted to on this CPU model") != 0);
	CHECK(pmu_pmi_setup(&p, &P, "cycles", &why)); /* unrestricted: 4-7 are free */
}

static uint32_t counters(unsigned model, uint16_t event, uint8_t umask)
{
	struct pmu_event ev = { "t", event, umask, 0, 0, PMU_NO_FIXED, PMU_NO_ARCH_BIT, "t" };

	return pmu_constraint_counters(pmu_constraint_table_for(true, 6, model), &ev) & 0xFFu;
}

/* The tables give Linux's masks (as listed at the top) for every model Linux keys them by; the
 * models without a table here (the hybrid Alder Lake, AMD) restrict nothing. */
static void tables_follow_linux(void)
{
	static const unsigned skl[] = { 0x55, 0x4E, 0x5E, 0x8E, 0x9E, 0xA6, 0xA5 };
	static const unsigned icl[] = { 0x6A, 0x6C, 0x7E, 0x7D, 0x8C, 0x8D, 0xA7 };
	static const unsigned glc[] = { 0x8F, 0xCF, 0xAD, 0xAE };

	for (unsigned i = 0; i < sizeof(skl) / sizeof(skl[0]); i++) {
		CHECK_EQ_U64(counters(skl[i], 0xD1, 0x08), 0x0F);
		CHECK_EQ_U64(counters(skl[i], 0xC6, 0x01), 0x0F);
		CHECK_EQ_U64(counters(skl[i], 0xCD, 0x01), 0x0F);
		CHECK_EQ_U64(counters(skl[i], 0xC0, 0x01), 0x02);
		CHECK_EQ_U64(counters(skl[i], 0xC0, 0x00), 0xFF);
		CHECK_EQ_U64(counters(skl[i], 0x51, 0x01), 0xFF);
		CHECK_EQ_U64(counters(skl[i], 0xD3, 0x01), 0xFF); /* Haswell's 0xD3 rule is not Skylake's */
	}
	for (unsigned i = 0; i < sizeof(glc) / sizeof(glc[0]); i++) {
		CHECK_EQ_U64(counters(glc[i], 0x2E, 0x41), 0xFF);
		CHECK_EQ_U64(counters(glc[i], 0x3C, 0x00), 0xFF);
		CHECK_EQ_U64(counters(glc[i], 0x24, 0x21), 0x0F);
		CHECK_EQ_U64(counters(glc[i], 0x8F, 0x01), 0x0F);
		CHECK_EQ_U64(counters(glc[i], 0xA3, 0x08), 0x0F);
		CHECK_EQ_U64(counters(glc[i], 0xA3, 0x04), 0xFF);
		CHECK_EQ_U64(counters(glc[i], 0xA4, 0x08), 0x01);
		CHECK_EQ_U64(counters(glc[i], 0xCD, 0x02), 0x01);
		CHECK_EQ_U64(counters(glc[i], 0xCD, 0x01), 0xFF);
		CHECK_EQ_U64(counters(glc[i], 0xCE, 0x00), 0x01);
		CHECK_EQ_U64(counters(glc[i], 0xD1, 0x08), 0x0F);
		CHECK_EQ_U64(counters(glc[i], 0xDF, 0x01), 0x0F);
		CHECK_EQ_U64(counters(glc[i], 0xC4, 0x00), 0xFF);
		CHECK_EQ_U64(counters(glc[i], 0x90, 0x01), 0xFF);
	}
	for (unsigned i = 0; i < sizeof(icl) / sizeof(icl[0]); i++) {
		CHECK_EQ_U64(counters(icl[i], 0x24, 0x21), 0x0F);
		CHECK_EQ_U64(counters(icl[i], 0x2E, 0x41), 0xFF); /* between the 0x1F-0x28 and 0x32 rules */
		CHECK_EQ_U64(counters(icl[i], 0x51, 0x01), 0x0F);
		CHECK_EQ_U64(counters(icl[i], 0xA3, 0x14), 0xFF);
		CHECK_EQ_U64(counters(icl[i], 0xA3, 0x08), 0x0F);
		CHECK_EQ_U64(counters(icl[i], 0xC4, 0x00), 0xFF);
		CHECK_EQ_U64(counters(icl[i], 0xD1, 0x08), 0x0F);
		CHECK_EQ_U64(counters(icl[i], 0xE6, 0x01), 0x0F);
		CHECK_EQ_U64(counters(icl[i], 0xF4, 0x04), 0x0F);
		CHECK_EQ_U64(counters(icl[i], 0xF5, 0x01), 0xFF);
	}
	CHECK(!pmu_constraint_table_for(true, 6, 0x97));  /* Alder Lake: by core type */
	CHECK(!pmu_constraint_table_for(false, 0x19, 0x11));
	CHECK(!pmu_constraint_table_for(true, 0xF, 0x5E));
}

TEST_SUITE(pmu_constraints) = {
	{ "skl_restricted_event_after_four_others", skl_restricted_event_after_four_others },
	{ "skl_five_restricted_events_take_two_passes", skl_five_restricted_events_take_two_passes },
	{ "glc_counter_0_events_refused_when_it_is_taken", glc_counter_0_events_refused_when_it_is_taken },
	{ "sampler_picks_an_allowed_counter", sampler_picks_an_allowed_counter },
	{ "tables_follow_linux", tables_follow_linux },
	{ 0, 0 },
};
