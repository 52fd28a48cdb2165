/* Leaving EL2 (arch/aarch64/el2_plan.c) against the Arm ARM (DDI 0487 K.a) register descriptions,
 * bit by bit, with ID register values built here from their documented fields:
 *   HCR_EL2:  RW [31] (EL1 is AArch64), E2H [34], APK [40], API [41] (D23.2.xx "HCR_EL2")
 *   MDCR_EL2: HPMN [4:0], TPMCR [5], TPM [6], HPME [7], E2PB [13:12], TPMS [14], E2TB [25:24]
 *   CPTR_EL2 (E2H = 0): RES1 [13], [9], [7:0]; TZ [8] (RES1 without SVE); TFP [10]; TSM [12]
 *             (RES1 without SME); TTA [20]; TAM [30]; TCPAC [31]
 *   CNTHCTL_EL2 (E2H = 0): EL1PCTEN [0], EL1PCEN [1]
 *   ICC_SRE_EL2: SRE [0], DFB [1], DIB [2], Enable [3]
 *   TCR_EL2 (E2H = 0): T0SZ [5:0], IRGN0 [9:8], ORGN0 [11:10], SH0 [13:12], TG0 [15:14], PS [18:16],
 *             TBI [20], HA [21], HD [22];  TCR_EL1: same T0 fields, T1SZ [21:16], EPD1 [23],
 *             TG1 [31:30] (0b10 = 4 KB), IPS [34:32], TBI0 [37], HA [39], HD [40]
 *   SCTLR_EL1: M [0], A [1], C [2], SA [3], I [12], WXN [19], EE [25]; RES1 in v8.0: 11, 20, 22,
 *             23, 28, 29;  CPACR_EL1: ZEN [17:16], FPEN [21:20]
 *   ID_AA64PFR0_EL1: EL1 [7:4], GIC [27:24], SVE [35:32], AMU [47:44]; ID_AA64PFR1_EL1: SME
 *   [27:24]; ID_AA64DFR0_EL1: PMUVer [11:8], PMSVer [35:32], TraceBuffer [47:44];
 *   ID_AA64ISAR1_EL1: APA [7:4], API [11:8]; ID_AA64ISAR2_EL1: APA3 [15:12], MOPS [19:16];
 *   ID_AA64MMFR0_EL1: FGT [59:56]; ID_AA64MMFR1_EL1: HCX [43:40]; PMCR_EL0: N [15:11]. */
#include <string.h>

#include "arch/aarch64/el2.h"
#include "tests/unit/test.h"

#define BIT(n) (1ull << (n))
#define F(v, shift) ((uint64_t)(v) << (shift))

/* A plain Armv8.0 core at EL2 as EDK2 leaves it: EL1 AArch64, PMUv3 with 6 counters, the GIC
 * system registers with SRE set, nothing optional. */
static struct el2_ids plain(void)
{
	struct el2_ids ids;

	memset(&ids, 0, sizeof(ids));
	ids.pfr0 = F(2, 4) | F(1, 24);          /* EL1 AArch64+32; GIC system registers */
	ids.dfr0 = F(4, 8);                      /* PMUv3 v8.1 */
	ids.pmcr = F(6, 11);                     /* N = 6 */
	ids.icc_sre = BIT(0);                    /* SRE */
	return ids;
}

static void plain_core(void)
{
	struct el2_ids ids = plain();
	struct el2_config c;

	CHECK(el2_plan(&ids, &c) == 0);
	CHECK_EQ_U64(c.hcr, BIT(31));            /* RW only: no IMO/FMO/AMO, no TGE, no traps */
	CHECK_EQ_U64(c.mdcr, 6);                 /* HPMN = N, no TPM/TPMCR/HPME/TDE */
	/* RES1 13, 9, 7:0; TZ and TSM set as the absent SVE and SME make them RES1; TFP clear */
	CHECK_EQ_U64(c.cptr, BIT(13) | BIT(9) | 0xFF | BIT(8) | BIT(12));
	CHECK(!(c.cptr & (BIT(10) | BIT(20) | BIT(30) | BIT(31))));
	CHECK_EQ_U64(c.cnthctl, BIT(0) | BIT(1));
	CHECK_EQ_U64(c.icc_sre, BIT(0) | BIT(1) | BIT(2) | BIT(3));
	CHECK_EQ_U64(c.flags, BIT(EL2_F_VALID) | BIT(EL2_F_GIC_SYSREG));
}

static void optional_features(void)
{
	struct el2_ids ids = plain();
	struct el2_config c;

	ids.pfr0 |= F(1, 32) | F(2, 44);        /* SVE, AMUv1p1 */
	ids.pfr1 = F(1, 24);                     /* SME */
	ids.dfr0 |= F(1, 32) | F(1, 44);         /* SPE, TRBE */
	ids.isar1 = F(1, 4);                     /* APA: QARMA address authentication */
	ids.isar2 = F(1, 16);                    /* MOPS */
	ids.mmfr0 = F(1, 56);                    /* FGT */
	ids.mmfr1 = F(1, 40);                    /* HCX */
	CHECK(el2_plan(&ids, &c) == 0);
	CHECK_EQ_U64(c.hcr, BIT(31) | BIT(40) | BIT(41));
	CHECK_EQ_U64(c.mdcr, 6 | F(3, 12) | F(3, 24)); /* SPE and TRBE buffers owned by EL1 */
	CHECK_EQ_U64(c.cptr, BIT(13) | BIT(9) | 0xFF);   /* TZ, TSM clear: SVE and SME untrapped */
	CHECK_EQ_U64(c.zcr, 0xF);
	CHECK_EQ_U64(c.hcrx, BIT(11));                    /* MSCEn */
	CHECK_EQ_U64(c.flags, BIT(EL2_F_VALID) | BIT(EL2_F_GIC_SYSREG) | BIT(EL2_F_SVE) | BIT(EL2_F_HCX) |
				      BIT(EL2_F_FGT) | BIT(EL2_F_AMU_FGT));
	/* API alone (IMPLEMENTATION DEFINED algorithm), APA3 alone: pointer authentication too */
	ids.isar1 = F(1, 8);
	ids.isar2 = 0;
	CHECK(el2_plan(&ids, &c) == 0 && (c.hcr & (BIT(40) | BIT(41))) == (BIT(40) | BIT(41)));
	ids.isar1 = 0;
	ids.isar2 = F(1, 12);
	CHECK(el2_plan(&ids, &c) == 0 && (c.hcr & (BIT(40) | BIT(41))) == (BIT(40) | BIT(41)));
	/* HCX without MOPS: HCRX_EL2 written, MSCEn clear; FGT with AMUv1 only: no HAFGRTR_EL2 */
	ids.isar2 = 0;
	ids.pfr0 = (ids.pfr0 & ~F(0xF, 44)) | F(1, 44);
	CHECK(el2_plan(&ids, &c) == 0);
	CHECK_EQ_U64(c.hcrx, 0);
	CHECK(!(c.flags & BIT(EL2_F_AMU_FGT)) && (c.flags & BIT(EL2_F_FGT)));
}

static void no_pmu_no_gic_sysregs(void)
{
	struct el2_ids ids = plain();
	struct el2_config c;

	ids.dfr0 = F(0xF, 8);                    /* PMUVer 0xF: IMPLEMENTATION DEFINED, no PMUv3 */
	ids.pmcr = F(6, 11);                     /* not to be believed */
	ids.pfr0 &= ~F(0xF, 24);                 /* no GIC system registers (a GICv2 board) */
	CHECK(el2_plan(&ids, &c) == 0);
	CHECK_EQ_U64(c.mdcr & 0x1F, 0);
	CHECK(!(c.flags & BIT(EL2_F_GIC_SYSREG)));
	/* GIC system registers present but the firmware left SRE clear (legacy, memory-mapped
	 * interface): kept as it is, EL1 is not given the system registers */
	ids = plain();
	ids.icc_sre = 0;
	CHECK(el2_plan(&ids, &c) == 0);
	CHECK_EQ_U64(c.icc_sre, 0);
}

static void refusals(void)
{
	struct el2_ids ids = plain();
	struct el2_config c;
	const char *why;

	ids.hcr = BIT(34);                       /* E2H: a VHE firmware */
	why = el2_plan(&ids, &c);
	CHECK(why && strstr(why, "E2H"));
	CHECK(!(c.flags & BIT(EL2_F_VALID)));    /* never applied by a starting core */
	ids = plain();
	ids.pfr0 &= ~F(0xF, 4);
	CHECK(el2_plan(&ids, &c) != 0);
}

static void el1_regime_from_el2(void)
{
	struct el1_mmu m;
	/* EDK2 at EL2 on QEMU virt: T0SZ 16 (48-bit VA), WBWA inner/outer, inner shareable, 4 KB
	 * granule, PS 40 bits (2), TBI clear; SCTLR_EL2 with M, C, SA, I and RES1 bits of its own */
	uint64_t tcr2 = 16 | F(1, 8) | F(1, 10) | F(3, 12) | F(0, 14) | F(2, 16) | BIT(23) | BIT(31);
	uint64_t sctlr2 = BIT(0) | BIT(2) | BIT(3) | BIT(12) | 0x30C50830ull;

	el2_el1_mmu(0x44FF04, tcr2, 0x7FFF0000, sctlr2, false, &m);
	CHECK_EQ_U64(m.mair, 0x44FF04);
	CHECK_EQ_U64(m.ttbr0, 0x7FFF0000);
	CHECK_EQ_U64(m.ttbr1, 0);
	CHECK_EQ_U64(m.tcr & 0xFFFF, 16 | F(1, 8) | F(1, 10) | F(3, 12));
	CHECK_EQ_U64((m.tcr >> 16) & 0x3F, 16);  /* T1SZ: a valid size although TTBR1 never walks */
	CHECK(m.tcr & BIT(23));                  /* EPD1 */
	CHECK_EQ_U64((m.tcr >> 30) & 3, 2);      /* TG1 4 KB */
	CHECK_EQ_U64((m.tcr >> 32) & 7, 2);      /* IPS = PS */
	CHECK(!(m.tcr & (BIT(37) | BIT(39) | BIT(40))));
	/* EL2's RES1 bits 23 and 31 are not EL1's EPD1/TG1 by accident: TG1 is 0b10 from us */
	CHECK_EQ_U64(m.sctlr, BIT(0) | BIT(2) | BIT(3) | BIT(12) | BIT(11) | BIT(20) | BIT(22) | BIT(23) |
				      BIT(28) | BIT(29));
	CHECK_EQ_U64(m.cpacr, F(3, 20));
	/* TBI, HA, HD move to TBI0, HA, HD; WXN and EE are kept; SVE opens ZEN */
	el2_el1_mmu(0, tcr2 | BIT(20) | BIT(21) | BIT(22), 0, BIT(19) | BIT(25), true, &m);
	CHECK((m.tcr & (BIT(37) | BIT(39) | BIT(40))) == (BIT(37) | BIT(39) | BIT(40)));
	CHECK((m.sctlr & (BIT(19) | BIT(25))) == (BIT(19) | BIT(25)));
	CHECK_EQ_U64(m.cpacr, F(3, 20) | F(3, 16));
}

/* Stage 1 leaf descriptors (Arm ARM D8.3, "Stage 1 ... permissions"): AP[2:1] at [7:6] -- 00 RW
 * at EL1 only, 01 RW at EL1 and EL0, 10 RO at EL1, 11 RO at both; PXN at 53, UXN/XN at 54. At
 * EL1&0 a region writable at EL0 is never executable at EL1 (implicit PXN). */
static void code_descriptor(void)
{
	uint64_t page = 0x40000000ull | 3 | BIT(10); /* valid page, AF */

	CHECK(el2_desc_el1_exec(page) == 0);                       /* AP 00: EDK2's */
	CHECK(el2_desc_el1_exec(page | F(2, 6)) == 0);             /* read-only code */
	CHECK(el2_desc_el1_exec(page | F(3, 6)) == 0);             /* RO at EL0 too: still executable */
	CHECK(el2_desc_el1_exec(page | BIT(54)) == 0);             /* EL2's XN is EL1's UXN only */
	CHECK(el2_desc_el1_exec(page | F(1, 6)) != 0);             /* AP[1] as RES1 at EL2: EL0-writable */
	CHECK(el2_desc_el1_exec(page | BIT(53)) != 0);             /* PXN */
}

TEST_SUITE(a64_el2_plan) = {
	{ "code_descriptor", code_descriptor },
	{ "plain_core", plain_core },
	{ "optional_features", optional_features },
	{ "no_pmu_no_gic_sysregs", no_pmu_no_gic_sysregs },
	{ "refusals", refusals },
	{ "el1_regime_from_el2", el1_regime_from_el2 },
	{ 0, 0 },
};
