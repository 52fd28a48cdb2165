/* Counter-constraint tables of Intel core PMUs (see pmu_constraints.h). Source: Linux
 * arch/x86/events/intel/core.c, the tables intel_skl_event_constraints,
 * intel_icl_event_constraints and intel_glc_event_constraints, and the model cases of intel_pmu_init that select them (model
 * numbers: arch/x86/include/asm/intel-family.h). Only the rules restricting general-purpose
 * counters are kept: Linux's FIXED_EVENT_CONSTRAINT and METRIC_EVENT_CONSTRAINT rows name a
 * fixed counter or a topdown metric, and on a general-purpose counter their events may use
 * every counter (intel_pmu_check_event_constraints widens them); no later rule of these two
 * tables matches their events, so leaving them out changes no answer. */
#include "arch/x86_64/pmu_constraints.h"

#define INTEL_FAMILY_6 6

/* Counter masks, as the Linux tables write them. */
#define CTR_0 0x01u         /* counter 0 only */
#define CTR_1 0x02u         /* counter 1 only */
#define CTRS_0_TO_3 0x0Fu   /* the bottom four */
#define CTRS_ALL_8 0xFFu    /* every counter of an 8-counter core: unrestricted */

#define EVENT(code, mask) { PMU_CONSTRAINT_EVENT, code, code, 0, mask }
#define UEVENT(code, umask, mask) { PMU_CONSTRAINT_EVENT_UMASK, code, code, umask, mask }
#define RANGE(first, last, mask) { PMU_CONSTRAINT_EVENT_RANGE, first, last, 0, mask }
#define TABLE(tname, array) { tname, array, sizeof(array) / sizeof(array[0]) }

/* intel_skl_event_constraints: "when HT is off, these can only run on the bottom 4 counters". */
static const struct pmu_constraint intel_skl[] = {
	UEVENT(0xC0, 0x01, CTR_1), /* INST_RETIRED.PREC_DIST */
	EVENT(0xD0, CTRS_0_TO_3),  /* MEM_INST_RETIRED.* */
	EVENT(0xD1, CTRS_0_TO_3),  /* MEM_LOAD_RETIRED.* */
	EVENT(0xD2, CTRS_0_TO_3),  /* MEM_LOAD_L3_HIT_RETIRED.* */
	EVENT(0xCD, CTRS_0_TO_3),  /* MEM_TRANS_RETIRED.* */
	EVENT(0xC6, CTRS_0_TO_3),  /* FRONTEND_RETIRED.* */
};

/* intel_icl_event_constraints (Sunny, Willow, Cypress Cove): ranges of event selects on 0-3;
 * CYCLE_ACTIVITY.STALLS_TOTAL, CYCLES_MEM_ANY, STALLS_MEM_ANY unrestricted before the rest of
 * 0xA3. */
static const struct pmu_constraint intel_icl[] = {
	RANGE(0x03, 0x0A, CTRS_0_TO_3),
	RANGE(0x1F, 0x28, CTRS_0_TO_3),
	EVENT(0x32, CTRS_0_TO_3),        /* SW_PREFETCH_ACCESS.* */
	RANGE(0x48, 0x56, CTRS_0_TO_3),
	RANGE(0x60, 0x8B, CTRS_0_TO_3),
	UEVENT(0xA3, 0x04, CTRS_ALL_8),  /* CYCLE_ACTIVITY.STALLS_TOTAL */
	UEVENT(0xA3, 0x10, CTRS_ALL_8),  /* CYCLE_ACTIVITY.CYCLES_MEM_ANY */
	UEVENT(0xA3, 0x14, CTRS_ALL_8),  /* CYCLE_ACTIVITY.STALLS_MEM_ANY */
	EVENT(0xA3, CTRS_0_TO_3),        /* CYCLE_ACTIVITY.* */
	RANGE(0xA8, 0xB0, CTRS_0_TO_3),
	RANGE(0xB7, 0xBD, CTRS_0_TO_3),
	RANGE(0xD0, 0xE6, CTRS_0_TO_3),
	EVENT(0xEF, CTRS_0_TO_3),
	RANGE(0xF0, 0xF4, CTRS_0_TO_3),
};

/* intel_glc_event_constraints (Golden Cove; Redwood Cove uses it too): event selects below 0x90
 * on counters 0-3 except 0x2E and 0x3C, listed first; 0x90 and up unrestricted except the
 * rules before that range. */
static const struct pmu_constraint intel_glc[] = {
	EVENT(0x2E, CTRS_ALL_8),         /* LONGEST_LAT_CACHE.* */
	EVENT(0x3C, CTRS_ALL_8),         /* CPU_CLK_UNHALTED.* */
	RANGE(0x01, 0x8F, CTRS_0_TO_3),
	UEVENT(0xA3, 0x01, CTRS_0_TO_3), /* CYCLE_ACTIVITY.* */
	UEVENT(0xA3, 0x02, CTRS_0_TO_3),
	UEVENT(0xA3, 0x08, CTRS_0_TO_3),
	UEVENT(0xA4, 0x04, CTR_0),
	UEVENT(0xA4, 0x08, CTR_0),
	UEVENT(0xCD, 0x02, CTR_0),       /* MEM_TRANS_RETIRED.STORE_SAMPLE */
	EVENT(0xCE, CTR_0),
	RANGE(0xD0, 0xDF, CTRS_0_TO_3),  /* MEM_INST_RETIRED, MEM_LOAD_*RETIRED, ... */
	RANGE(0x90, 0xFE, CTRS_ALL_8),
};

static const struct pmu_constraint_table skl_table = TABLE("intel_skl", intel_skl);
static const struct pmu_constraint_table icl_table = TABLE("intel_icl", intel_icl);
static const struct pmu_constraint_table glc_table = TABLE("intel_glc", intel_glc);

/* intel_pmu_init's cases for each table. Skylake: SKYLAKE_X 0x55 (also Cascade and Cooper
 * Lake), SKYLAKE_L 0x4E, SKYLAKE 0x5E, KABYLAKE_L 0x8E, KABYLAKE 0x9E (also Coffee and Whiskey
 * Lake), COMETLAKE_L 0xA6, COMETLAKE 0xA5. Ice Lake: ICELAKE_X 0x6A, ICELAKE_D 0x6C, ICELAKE_L 0x7E,
 * ICELAKE 0x7D, TIGERLAKE_L 0x8C, TIGERLAKE 0x8D, ROCKETLAKE 0xA7. Golden Cove without E-cores: SAPPHIRERAPIDS_X 0x8F,
 * EMERALDRAPIDS_X 0xCF, and GRANITERAPIDS_X 0xAD / _D 0xAE (Redwood Cove, glc_common). The
 * hybrid parts (Alder, Raptor, Meteor Lake) take their table by core type, which is not read
 * here: no table for them. */
static const uint8_t skl_models[] = { 0x55, 0x4E, 0x5E, 0x8E, 0x9E, 0xA6, 0xA5 };
static const uint8_t icl_models[] = { 0x6A, 0x6C, 0x7E, 0x7D, 0x8C, 0x8D, 0xA7 };
static const uint8_t glc_models[] = { 0x8F, 0xCF, 0xAD, 0xAE };

static bool listed(const uint8_t *models, unsigned n, unsigned model)
{
	for (unsigned i = 0; i < n; i++)
		if (models[i] == model)
			return true;
	return false;
}

const struct pmu_constraint_table *pmu_constraint_table_for(bool intel, unsigned family, unsigned model)
{
	if (!intel || family != INTEL_FAMILY_6)
		return 0;
	if (listed(skl_models, sizeof(skl_models), model))
		return &skl_table;
	if (listed(icl_models, sizeof(icl_models), model))
		return &icl_table;
	if (listed(glc_models, sizeof(glc_models), model))
		return &glc_table;
	return 0;
}

static bool matches(const struct pmu_constraint *r, const struct pmu_event *ev)
{
	switch (r->match) {
	case PMU_CONSTRAINT_EVENT:
		return ev->event == r->first;
	case PMU_CONSTRAINT_EVENT_UMASK:
		return ev->event == r->first && ev->umask == r->umask;
	case PMU_CONSTRAINT_EVENT_RANGE:
		return ev->event >= r->first && ev->event <= r->last;
	}
	return false;
}

uint32_t pmu_constraint_counters(const struct pmu_constraint_table *t, const struct pmu_event *ev)
{
	for (unsigned i = 0; t && ev && i < t->n; i++)
		if (matches(&t->rules[i], ev))
			return t->rules[i].counters;
	return ~0u;
}
