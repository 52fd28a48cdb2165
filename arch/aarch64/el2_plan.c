/* The register values for leaving EL2 (see el2.h): pure, so the unit tests check each bit against
 * the Arm ARM (DDI 0487) register descriptions. Field positions are named below with their
 * register; E2H = 0 layouts throughout (we refuse a firmware that runs EL2 with E2H = 1). */
#include "arch/aarch64/el2.h"

#define FIELD(v, shift) (((v) >> (shift)) & 0xFull) /* a 4-bit ID register field */

/* ID registers */
#define PFR0_EL1_SHIFT 4     /* ID_AA64PFR0_EL1.EL1: 0 = not implemented (never on A-profile) */
#define PFR0_GIC_SHIFT 24    /* .GIC: non-zero = the GIC system register CPU interface */
#define PFR0_SVE_SHIFT 32    /* .SVE */
#define PFR0_AMU_SHIFT 44    /* .AMU: 2 = AMUv1p1 (HAFGRTR_EL2 with FGT) */
#define PFR0_AMU_V1P1 2
#define PFR1_SME_SHIFT 24    /* ID_AA64PFR1_EL1.SME */
#define DFR0_PMUVER_SHIFT 8  /* ID_AA64DFR0_EL1.PMUVer: 1..0xE PMUv3, 0xF IMPLEMENTATION DEFINED */
#define DFR0_PMUVER_IMPDEF 0xF
#define DFR0_PMSVER_SHIFT 32 /* .PMSVer: SPE */
#define DFR0_TRBE_SHIFT 44   /* .TraceBuffer: TRBE */
#define ISAR1_APA_SHIFT 4    /* ID_AA64ISAR1_EL1.APA, .API: address authentication */
#define ISAR1_API_SHIFT 8
#define ISAR2_APA3_SHIFT 12  /* ID_AA64ISAR2_EL1.APA3 */
#define ISAR2_MOPS_SHIFT 16  /* .MOPS */
#define MMFR0_FGT_SHIFT 56   /* ID_AA64MMFR0_EL1.FGT */
#define MMFR1_HCX_SHIFT 40   /* ID_AA64MMFR1_EL1.HCX */

/* HCR_EL2 */
#define HCR_RW (1ull << 31)  /* EL1 is AArch64 */
#define HCR_E2H (1ull << 34) /* host (VHE) layout: EL2 registers in EL1's places */
#define HCR_APK (1ull << 40) /* pointer authentication keys and instructions not trapped */
#define HCR_API (1ull << 41)

/* MDCR_EL2: HPMN [4:0] counters EL1 may use; TPMCR, TPM, HPME, TPMS, TDE... 0: no trap. */
#define MDCR_HPMN_MASK 0x1Full
#define MDCR_E2PB_EL1 (3ull << 12) /* SPE's profiling buffer owned by EL1, its registers untrapped */
#define MDCR_E2TB_EL1 (3ull << 24) /* TRBE's trace buffer likewise */
#define PMCR_N_SHIFT 11            /* PMCR_EL0.N [15:11] */
#define PMCR_N_MASK 0x1Full

/* CPTR_EL2 (E2H = 0): bits 13, 9 and 7:0 RES1; TZ (8) and TSM (12) RES1 without SVE / SME;
 * TFP (10), TTA (20), TAM (30), TCPAC (31) 0: FP/SIMD, trace, activity monitors, CPACR untrapped. */
#define CPTR_RES1 ((1ull << 13) | (1ull << 9) | 0xFFull)
#define CPTR_TZ (1ull << 8)
#define CPTR_TSM (1ull << 12)

/* CNTHCTL_EL2 (E2H = 0): EL1PCTEN, EL1PCEN: EL1 reads the physical counter and uses the EL1
 * physical timer; everything else 0 (no event stream, no ECV offsets). */
#define CNTHCTL_EL1PCTEN (1ull << 0)
#define CNTHCTL_EL1PCEN (1ull << 1)

/* ICC_SRE_EL2: SRE (system registers at EL2), DFB, DIB (FIQ/IRQ bypass off), Enable (EL1 may set
 * ICC_SRE_EL1.SRE). */
#define ICC_SRE_SRE (1ull << 0)
#define ICC_SRE_DFB (1ull << 1)
#define ICC_SRE_DIB (1ull << 2)
#define ICC_SRE_ENABLE (1ull << 3)

#define ZCR_LEN_MAX 0xFull        /* ZCR_EL2.LEN: the longest vector (capped to the implemented) */
#define HCRX_MSCEN (1ull << 11)   /* HCRX_EL2.MSCEn: the memory-copy (MOPS) instructions at EL1 */

/* TCR_EL2 (E2H = 0) and TCR_EL1 */
#define TCR_T0_FIELDS 0xFF3Full   /* T0SZ [5:0], IRGN0, ORGN0, SH0, TG0 [15:8]: same in both */
#define TCR_T0SZ_MASK 0x3Full
#define TCR_T1SZ_SHIFT 16
#define TCR2_PS_SHIFT 16          /* TCR_EL2.PS [18:16] */
#define TCR_PS_MASK 7ull
#define TCR1_IPS_SHIFT 32         /* TCR_EL1.IPS [34:32] */
#define TCR2_TBI (1ull << 20)
#define TCR2_HA (1ull << 21)
#define TCR2_HD (1ull << 22)
#define TCR1_EPD1 (1ull << 23)    /* no TTBR1 walks: the identity map is all in TTBR0 */
#define TCR1_TG1_4K (2ull << 30)
#define TCR1_TBI0 (1ull << 37)
#define TCR1_HA (1ull << 39)
#define TCR1_HD (1ull << 40)

/* SCTLR_EL2 bits kept in SCTLR_EL1 (same positions): M, A, C, SA, I, WXN, EE. */
#define SCTLR_KEEP ((1ull << 0) | (1ull << 1) | (1ull << 2) | (1ull << 3) | (1ull << 12) | \
		    (1ull << 19) | (1ull << 25))
#define DESC_AP_SHIFT 6            /* stage 1 descriptors: AP[2:1] at [7:6], PXN at 53 */
#define DESC_AP_MASK 3ull
#define DESC_AP_RW_EL0 1ull        /* AP[2:1] = 01: read/write at EL1 and EL0 */
#define DESC_PXN (1ull << 53)
#define CPACR_FPEN (3ull << 20)   /* CPACR_EL1.FPEN: FP/SIMD at EL1 and EL0 */
#define CPACR_ZEN (3ull << 16)    /* CPACR_EL1.ZEN: SVE likewise */

const char *el2_plan(const struct el2_ids *ids, struct el2_config *c)
{
	unsigned pmuver = (unsigned)FIELD(ids->dfr0, DFR0_PMUVER_SHIFT);

	*c = (struct el2_config){ 0 };
	if (ids->hcr & HCR_E2H)
		return "the firmware runs EL2 with HCR_EL2.E2H = 1 (VHE): its translation regime cannot be "
		       "handed to EL1 as it is";
	if (!FIELD(ids->pfr0, PFR0_EL1_SHIFT))
		return "ID_AA64PFR0_EL1 reports no EL1";
	c->hcr = HCR_RW;
	if (FIELD(ids->isar1, ISAR1_APA_SHIFT) || FIELD(ids->isar1, ISAR1_API_SHIFT) ||
	    FIELD(ids->isar2, ISAR2_APA3_SHIFT))
		c->hcr |= HCR_API | HCR_APK;
	if (pmuver && pmuver != DFR0_PMUVER_IMPDEF)
		c->mdcr = (ids->pmcr >> PMCR_N_SHIFT) & PMCR_N_MASK & MDCR_HPMN_MASK;
	if (FIELD(ids->dfr0, DFR0_PMSVER_SHIFT))
		c->mdcr |= MDCR_E2PB_EL1;
	if (FIELD(ids->dfr0, DFR0_TRBE_SHIFT))
		c->mdcr |= MDCR_E2TB_EL1;
	c->cptr = CPTR_RES1;
	if (!FIELD(ids->pfr0, PFR0_SVE_SHIFT))
		c->cptr |= CPTR_TZ;
	if (!FIELD(ids->pfr1, PFR1_SME_SHIFT))
		c->cptr |= CPTR_TSM;
	c->cnthctl = CNTHCTL_EL1PCTEN | CNTHCTL_EL1PCEN;
	if (FIELD(ids->pfr0, PFR0_GIC_SHIFT)) {
		c->flags |= 1ull << EL2_F_GIC_SYSREG;
		/* The firmware chose the interface: with SRE the system registers (GICv3), without it
		 * the memory-mapped one (a GICv2, or a GICv3 in legacy mode), which EL1 keeps. */
		c->icc_sre = (ids->icc_sre & ICC_SRE_SRE) ? ICC_SRE_SRE | ICC_SRE_DFB | ICC_SRE_DIB | ICC_SRE_ENABLE
							  : ids->icc_sre;
	}
	if (FIELD(ids->pfr0, PFR0_SVE_SHIFT)) {
		c->flags |= 1ull << EL2_F_SVE;
		c->zcr = ZCR_LEN_MAX;
	}
	if (FIELD(ids->mmfr1, MMFR1_HCX_SHIFT)) {
		c->flags |= 1ull << EL2_F_HCX;
		c->hcrx = FIELD(ids->isar2, ISAR2_MOPS_SHIFT) ? HCRX_MSCEN : 0;
	}
	if (FIELD(ids->mmfr0, MMFR0_FGT_SHIFT)) {
		c->flags |= 1ull << EL2_F_FGT;
		if (FIELD(ids->pfr0, PFR0_AMU_SHIFT) >= PFR0_AMU_V1P1)
			c->flags |= 1ull << EL2_F_AMU_FGT;
	}
	c->flags |= 1ull << EL2_F_VALID;
	return 0;
}

void el2_el1_mmu(uint64_t mair_el2, uint64_t tcr_el2, uint64_t ttbr0_el2, uint64_t sctlr_el2,
		 bool sve, struct el1_mmu *m)
{
	uint64_t tcr = (tcr_el2 & TCR_T0_FIELDS) | ((tcr_el2 & TCR_T0SZ_MASK) << TCR_T1SZ_SHIFT) |
		       TCR1_EPD1 | TCR1_TG1_4K |
		       (((tcr_el2 >> TCR2_PS_SHIFT) & TCR_PS_MASK) << TCR1_IPS_SHIFT);

	if (tcr_el2 & TCR2_TBI)
		tcr |= TCR1_TBI0;
	if (tcr_el2 & TCR2_HA)
		tcr |= TCR1_HA;
	if (tcr_el2 & TCR2_HD)
		tcr |= TCR1_HD;
	*m = (struct el1_mmu){
		.mair = mair_el2,
		.tcr = tcr,
		.ttbr0 = ttbr0_el2,
		.ttbr1 = 0,
		.sctlr = EL2_SCTLR_EL1_RES1 | (sctlr_el2 & SCTLR_KEEP),
		.cpacr = CPACR_FPEN | (sve ? CPACR_ZEN : 0),
	};
}

const char *el2_desc_el1_exec(uint64_t leaf_desc)
{
	if (((leaf_desc >> DESC_AP_SHIFT) & DESC_AP_MASK) == DESC_AP_RW_EL0)
		return "the firmware's EL2 tables map our code with AP[2:1] = 01 (AP[1] is RES1 at EL2): at "
		       "EL1 that is writable by EL0, so never executable";
	if (leaf_desc & DESC_PXN)
		return "the firmware's EL2 tables map our code with PXN set: not executable at EL1";
	return 0;
}
