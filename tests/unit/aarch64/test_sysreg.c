/* The guarded system-register table (arch/aarch64/sysreg_table.h, sysreg_gate.c) against the Arm
 * ARM (DDI 0487): every row's name and op0/op1/CRn/CRm/op2 as the register descriptions give
 * them (typed here independently of the table), the MRS/MSR instruction words, and the
 * expectation each ID register field gives. */
#include "arch/aarch64/sysreg_safe.h"
#include "tests/unit/test.h"

static const struct {
	const char *name;
	unsigned op0, op1, crn, crm, op2;
} arm_arm[] = {
	{ "id_aa64pfr1_el1", 3, 0, 0, 4, 1 },	{ "id_aa64zfr0_el1", 3, 0, 0, 4, 4 },
	{ "id_aa64isar2_el1", 3, 0, 0, 6, 2 },	{ "id_aa64mmfr1_el1", 3, 0, 0, 7, 1 },
	{ "zcr_el1", 3, 0, 1, 2, 0 },		{ "pmcr_el0", 3, 3, 9, 12, 0 },
	{ "pmceid0_el0", 3, 3, 9, 12, 6 },	{ "pmceid1_el0", 3, 3, 9, 12, 7 },
	{ "pmccntr_el0", 3, 3, 9, 13, 0 },	{ "pmuserenr_el0", 3, 3, 9, 14, 0 },
	{ "pmccfiltr_el0", 3, 3, 14, 15, 7 },	{ "pmmir_el1", 3, 0, 9, 14, 6 },
	{ "pmsidr_el1", 3, 0, 9, 9, 7 },	{ "trbidr_el1", 3, 0, 9, 11, 7 },
	{ "cntvct_el0", 3, 3, 14, 0, 2 },	{ "cntpctss_el0", 3, 3, 14, 0, 5 },
	{ "cntvctss_el0", 3, 3, 14, 0, 6 },	{ "amcr_el0", 3, 3, 13, 2, 0 },
	{ "amcfgr_el0", 3, 3, 13, 2, 1 },	{ "amcntenset0_el0", 3, 3, 13, 2, 5 },
	/* AMEVCNTR0<n>_EL0: CRm = 0b010:n[3], op2 = n[2:0] */
	{ "amevcntr00_el0", 3, 3, 13, 4, 0 },	{ "amevcntr01_el0", 3, 3, 13, 4, 1 },
	{ "amevcntr02_el0", 3, 3, 13, 4, 2 },	{ "amevcntr03_el0", 3, 3, 13, 4, 3 },
	{ "erridr_el1", 3, 0, 5, 3, 0 },	{ "rndr", 3, 3, 2, 4, 0 },
	{ "hcr_el2", 3, 4, 1, 1, 0 },		{ "mdcr_el2", 3, 4, 1, 1, 1 },
	{ "cptr_el2", 3, 4, 1, 1, 2 },		{ "zcr_el2", 3, 4, 1, 2, 0 },
};

#define N_ARM_ARM (sizeof(arm_arm) / sizeof(arm_arm[0]))

static void table_matches_arm_arm(void)
{
	CHECK_EQ_U64(A64_SR_COUNT, N_ARM_ARM);
	for (unsigned i = 0; i < A64_SR_COUNT && i < N_ARM_ARM; i++) {
		const struct a64_sysreg_desc *d = &a64_sysregs[i];

		CHECK_STR(d->name, arm_arm[i].name);
		CHECK_EQ_U64(d->op0, arm_arm[i].op0);
		CHECK_EQ_U64(d->op1, arm_arm[i].op1);
		CHECK_EQ_U64(d->crn, arm_arm[i].crn);
		CHECK_EQ_U64(d->crm, arm_arm[i].crm);
		CHECK_EQ_U64(d->op2, arm_arm[i].op2);
		/* MRS/MSR can only name op0 = 2 or 3 (op0 0 and 1 are hints and system instructions) */
		CHECK(d->op0 == 3 || d->op0 == 2);
		CHECK(d->op1 < 8 && d->crn < 16 && d->crm < 16 && d->op2 < 8);
	}
	/* the enum names the rows */
	CHECK_STR(a64_sysregs[A64_SR_PMCR_EL0].name, "pmcr_el0");
	CHECK_STR(a64_sysregs[A64_SR_AMEVCNTR02_EL0].name, "amevcntr02_el0");
}

static void instruction_words(void)
{
	/* words as binutils assembles them (and the Arm ARM's MRS/MSR layout) */
	CHECK_EQ_U64(a64_sysreg_mrs_insn(&a64_sysregs[A64_SR_PMCR_EL0], 2), 0xD53B9C02u);
	CHECK_EQ_U64(a64_sysreg_mrs_insn(&a64_sysregs[A64_SR_ID_AA64PFR1_EL1], 2), 0xD5380422u);
	CHECK_EQ_U64(a64_sysreg_mrs_insn(&a64_sysregs[A64_SR_CNTVCT_EL0], 0), 0xD53BE040u);
	CHECK_EQ_U64(a64_sysreg_msr_insn(&a64_sysregs[A64_SR_ZCR_EL1], 0), 0xD5181200u);
	CHECK_EQ_U64(a64_sysreg_msr_insn(&a64_sysregs[A64_SR_MDCR_EL2], 0), 0xD51C1120u);
}

static void texts(void)
{
	char buf[48];

	a64_sysreg_enc_text(&a64_sysregs[A64_SR_PMCR_EL0], buf, sizeof(buf));
	CHECK_STR(buf, "S3_3_C9_C12_0");
	a64_sysreg_enc_text(&a64_sysregs[A64_SR_PMCCFILTR_EL0], buf, sizeof(buf));
	CHECK_STR(buf, "S3_3_C14_C15_7");
	a64_sysreg_gate_text(&a64_sysregs[A64_SR_PMCR_EL0], buf, sizeof(buf));
	CHECK_STR(buf, "ID_AA64DFR0_EL1[11:8]=1..14");
	a64_sysreg_gate_text(&a64_sysregs[A64_SR_CNTVCT_EL0], buf, sizeof(buf));
	CHECK_STR(buf, "always");
	a64_sysreg_gate_text(&a64_sysregs[A64_SR_MDCR_EL2], buf, sizeof(buf));
	CHECK_STR(buf, "EL2");
	a64_sysreg_gate_text(&a64_sysregs[A64_SR_ZCR_EL2], buf, sizeof(buf));
	CHECK_STR(buf, "EL2,ID_AA64PFR0_EL1[35:32]=1..15");
	CHECK_EQ_U64(a64_esr_ec(0x2000000), 0x00);     /* UNDEF, IL=1 */
	CHECK_EQ_U64(a64_esr_ec(0x62000000ull | 0x1234), 0x18); /* a trapped msr/mrs */
}

static bool exp_(enum a64_sysreg r, const struct a64_id_snapshot *id)
{
	return a64_sysreg_expected(&a64_sysregs[r], id);
}

static void gates(void)
{
	struct a64_id_snapshot id = { { 0 }, 1 };

	/* nothing implemented: only the ID space and CNTVCT_EL0 */
	CHECK(exp_(A64_SR_ID_AA64ISAR2_EL1, &id) && exp_(A64_SR_CNTVCT_EL0, &id));
	CHECK(!exp_(A64_SR_PMCR_EL0, &id) && !exp_(A64_SR_ZCR_EL1, &id) && !exp_(A64_SR_AMCR_EL0, &id));
	CHECK(!exp_(A64_SR_CNTVCTSS_EL0, &id) && !exp_(A64_SR_RNDR, &id) && !exp_(A64_SR_ERRIDR_EL1, &id));
	/* PMUVer [11:8]: 1 PMUv3 (no PMMIR), 5 PMUv3p4 (PMMIR), 0xF IMPLEMENTATION DEFINED (none) */
	id.reg[A64_GATE_DFR0] = 1ull << 8;
	CHECK(exp_(A64_SR_PMCR_EL0, &id) && exp_(A64_SR_PMCCFILTR_EL0, &id) && !exp_(A64_SR_PMMIR_EL1, &id));
	id.reg[A64_GATE_DFR0] = 5ull << 8;
	CHECK(exp_(A64_SR_PMMIR_EL1, &id));
	id.reg[A64_GATE_DFR0] = 0xFull << 8;
	CHECK(!exp_(A64_SR_PMCR_EL0, &id) && !exp_(A64_SR_PMMIR_EL1, &id));
	/* SPE PMSVer [35:32], TraceBuffer [47:44] */
	id.reg[A64_GATE_DFR0] = 1ull << 32;
	CHECK(exp_(A64_SR_PMSIDR_EL1, &id) && !exp_(A64_SR_TRBIDR_EL1, &id));
	/* SVE [35:32], AMU [47:44], RAS [31:28] of ID_AA64PFR0_EL1 */
	id.reg[A64_GATE_PFR0] = 1ull << 32 | 1ull << 44 | 2ull << 28;
	CHECK(exp_(A64_SR_ZCR_EL1, &id) && exp_(A64_SR_AMEVCNTR00_EL0, &id) && exp_(A64_SR_ERRIDR_EL1, &id));
	CHECK(!exp_(A64_SR_ZCR_EL2, &id)); /* an EL2 register at EL1 */
	/* ECV [63:60] of ID_AA64MMFR0_EL1 (2: also CNTPOFF), RNDR [63:60] of ID_AA64ISAR0_EL1 */
	id.reg[A64_GATE_MMFR0] = 2ull << 60;
	id.reg[A64_GATE_ISAR0] = 1ull << 60;
	CHECK(exp_(A64_SR_CNTPCTSS_EL0, &id) && exp_(A64_SR_CNTVCTSS_EL0, &id) && exp_(A64_SR_RNDR, &id));
	/* at EL2 its own registers exist; ZCR_EL2 only with SVE */
	CHECK(!exp_(A64_SR_MDCR_EL2, &id) && !exp_(A64_SR_HCR_EL2, &id));
	id.el = 2;
	CHECK(exp_(A64_SR_MDCR_EL2, &id) && exp_(A64_SR_CPTR_EL2, &id) && exp_(A64_SR_ZCR_EL2, &id));
	id.reg[A64_GATE_PFR0] = 0;
	CHECK(!exp_(A64_SR_ZCR_EL2, &id) && exp_(A64_SR_HCR_EL2, &id));
	/* at EL0 (a Linux process, the hosted build): the ID space the kernel emulates, the virtual
	 * counter and RNDR; never the PMU, SVE's ZCR, AMU, RAS or EL2's, even where implemented */
	id.el = 0;
	id.reg[A64_GATE_PFR0] = 1ull << 32 | 1ull << 44 | 2ull << 28;
	id.reg[A64_GATE_DFR0] = 1ull << 8;
	CHECK(exp_(A64_SR_ID_AA64ISAR2_EL1, &id) && exp_(A64_SR_ID_AA64PFR1_EL1, &id) && exp_(A64_SR_CNTVCT_EL0, &id));
	CHECK(exp_(A64_SR_CNTVCTSS_EL0, &id) && exp_(A64_SR_RNDR, &id) && !exp_(A64_SR_CNTPCTSS_EL0, &id));
	CHECK(!exp_(A64_SR_PMCR_EL0, &id) && !exp_(A64_SR_ZCR_EL1, &id) && !exp_(A64_SR_AMCR_EL0, &id));
	CHECK(!exp_(A64_SR_ERRIDR_EL1, &id) && !exp_(A64_SR_HCR_EL2, &id) && !exp_(A64_SR_PMSIDR_EL1, &id));
}

static void flags(void)
{
	/* trappable by a higher EL even when implemented: PMU, AMU, SVE; never the ID space */
	CHECK(a64_sysregs[A64_SR_PMCR_EL0].flags & A64_SRF_TRAPPABLE);
	CHECK(a64_sysregs[A64_SR_AMCNTENSET0_EL0].flags & A64_SRF_TRAPPABLE);
	CHECK(a64_sysregs[A64_SR_ZCR_EL1].flags & A64_SRF_TRAPPABLE);
	CHECK(!(a64_sysregs[A64_SR_ID_AA64ISAR2_EL1].flags & A64_SRF_TRAPPABLE));
	CHECK(!(a64_sysregs[A64_SR_CNTVCT_EL0].flags & A64_SRF_TRAPPABLE));
	for (unsigned i = 0; i < A64_SR_COUNT; i++)
		CHECK(((a64_sysregs[i].flags & A64_SRF_EL2) != 0) == (a64_sysregs[i].op1 == 4));
}

static void plans(void)
{
	struct a64_id_snapshot id = { { 0 }, 1 };
	const struct a64_sysreg_desc *pmcr = &a64_sysregs[A64_SR_PMCR_EL0];
	const struct a64_sysreg_desc *cntvct = &a64_sysregs[A64_SR_CNTVCT_EL0];
	const struct a64_sysreg_desc *ecv = &a64_sysregs[A64_SR_CNTVCTSS_EL0];

	/* guarded: everything is tried, the absent too (the fault is caught and reported) */
	CHECK_EQ_U64(a64_sysreg_plan(pmcr, &id, true, true), A64_SR_PLAN_ACCESS);
	CHECK_EQ_U64(a64_sysreg_plan(&a64_sysregs[A64_SR_MDCR_EL2], &id, true, false), A64_SR_PLAN_ACCESS);
	/* not guarded (boot services): the ID registers decide */
	CHECK_EQ_U64(a64_sysreg_plan(pmcr, &id, false, false), A64_SR_PLAN_SKIP_ABSENT);
	CHECK_EQ_U64(a64_sysreg_plan(ecv, &id, false, false), A64_SR_PLAN_SKIP_ABSENT);
	CHECK_EQ_U64(a64_sysreg_plan(cntvct, &id, false, true), A64_SR_PLAN_ACCESS);
	CHECK_EQ_U64(a64_sysreg_plan(&a64_sysregs[A64_SR_MDCR_EL2], &id, false, false), A64_SR_PLAN_SKIP_ABSENT);
	id.reg[A64_GATE_DFR0] = 6ull << 8; /* PMUv3p5 */
	id.reg[A64_GATE_MMFR0] = 1ull << 60;
	CHECK_EQ_U64(a64_sysreg_plan(pmcr, &id, false, false), A64_SR_PLAN_ACCESS);
	/* present, but a higher EL may still trap it: the survey leaves it alone unguarded */
	CHECK_EQ_U64(a64_sysreg_plan(pmcr, &id, false, true), A64_SR_PLAN_SKIP_TRAPPABLE);
	CHECK_EQ_U64(a64_sysreg_plan(ecv, &id, false, true), A64_SR_PLAN_ACCESS);
}

TEST_SUITE(a64_sysreg) = {
	{ "plans", plans },
	{ "table_matches_arm_arm", table_matches_arm_arm },
	{ "instruction_words", instruction_words },
	{ "texts", texts },
	{ "gates", gates },
	{ "flags", flags },
	{ 0, 0 },
};
