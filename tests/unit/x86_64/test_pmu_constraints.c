/* Counter constraints (arch/x86_64/pmu_constraints.c): the general-purpose counters an event may
 * use per Intel model. The expected restrictions are Linux's, written out here from
 * arch/x86/events/intel/core.c:
 *  - intel_skl_event_constraints (intel_pmu_init: SKYLAKE_X 0x55, SKYLAKE_L 0x4E, SKYLAKE 0x5E,
 *    KABYLAKE_L 0x8E, KABYLAKE 0x9E, COMETLAKE_L 0xA6, COMETLAKE 0xA5): event selects 0xD0,
 *    0xD1, 0xD2, 0xCD, 0xC6 on counters 0-3 (mask 0xf, "when HT is off, these can only run on
 *    the bottom 4 counters"), INST_RETIRED.PREC_DIST 0x01C0 on counter 1 (mask 0x2);
 *  - intel_glc_event_constraints (SAPPHIRERAPIDS_X 0x8F, EMERALDRAPIDS_X 0xCF, GRANITERAPIDS_X
 *    0xAD, GRANITERAPIDS_D 0xAE): 0x2E and 0x3C on every counter (0xff), other selects
 *    0x01-0x8F on 0-3 (0xf), 0x01A3, 0x02A3, 0x08A3 on 0-3, 0x04A4, 0x08A4, 0x02CD and 0xCE
 *    on counter 0 (0x1), 0xD0-0xDF on 0-3, the rest of 0x90-0xFE on every counter. */
#include "arch/pmu.h"
#include "tests/unit/test.h"

static uint32_t counters(unsigned model, uint16_t event, uint8_t umask)
{
	struct pmu_event ev = { "t", event, umask, 0, 0, PMU_NO_FIXED, PMU_NO_ARCH_BIT, "t" };

	return pmu_constraint_counters(pmu_constraint_table_for(true, 6, model), &ev) & 0xFFu;
}

/* The tables give Linux's masks (as listed at the top) for every model Linux keys them by; the
 * models without a table here (Ice Lake, the hybrid Alder Lake, AMD) restrict nothing. */
static void tables_follow_linux(void)
{
	static const unsigned skl[] = { 0x55, 0x4E, 0x5E, 0x8E, 0x9E, 0xA6, 0xA5 };
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
	CHECK(!pmu_constraint_table_for(true, 6, 0x7E));  /* Ice Lake: intel_icl_*, not encoded */
	CHECK(!pmu_constraint_table_for(true, 6, 0x97));  /* Alder Lake: by core type */
	CHECK(!pmu_constraint_table_for(false, 0x19, 0x11));
	CHECK(!pmu_constraint_table_for(true, 0xF, 0x5E));
}

TEST_SUITE(pmu_constraints) = {
	{ "tables_follow_linux", tables_follow_linux },
	{ 0, 0 },
};
