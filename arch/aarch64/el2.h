/* Leaving EL2 for EL1. EBBR lets firmware start a UEFI application at EL2 (most Arm servers and
 * boards do: Ampere Altra, Graviton bare metal, Grace, the Raspberry Pi's UEFI), and everything we
 * program -- the PMU's EL1 filter, VBAR_EL1 and the IRQ vectors, the EL1 generic timers, the GIC's
 * EL1 CPU interface, the other cores' start-up stub -- is EL1's. So after ExitBootServices the boot
 * core configures EL2 the way a host kernel without a hypervisor would (no traps, no interrupt
 * routing to EL2, every PMU counter given to EL1, EL1 access to the physical timer and the GIC
 * system registers, no stage 2) and continues at EL1 on the firmware's own identity map; every
 * other core, which PSCI CPU_ON starts at EL2 too, applies the same EL2 values in its start-up
 * stub before it drops. The sources of every bit are the Arm ARM (DDI 0487) register
 * descriptions; Linux's arch/arm64/include/asm/el2_setup.h does the same for a kernel booted at
 * EL2.
 *
 * el2_plan and el2_el1_mmu are pure (ID register values in, register values out: unit-tested);
 * arch/priv/aarch64/el2.c applies them (el2_leave); arch/priv/aarch64/ap_start.S holds
 * a64_el2_apply, which the boot core and the stub share. Included from assembly: constants only
 * outside the __ASSEMBLER__ part. */
#ifndef ARCH_AARCH64_EL2_H
#define ARCH_AARCH64_EL2_H

/* struct el2_config offsets (a64_el2_apply reads it with the MMU off on a starting core). */
#define EL2_C_HCR 0x00
#define EL2_C_MDCR 0x08
#define EL2_C_CPTR 0x10
#define EL2_C_CNTHCTL 0x18
#define EL2_C_ICC_SRE 0x20
#define EL2_C_ZCR 0x28
#define EL2_C_HCRX 0x30
#define EL2_C_VBAR 0x38
#define EL2_C_FLAGS 0x40
#define EL2_C_SIZE 0x48

/* EL2_C_FLAGS bits: which optional registers exist (writing an absent one is UNDEFINED). */
#define EL2_F_VALID 0      /* the boot core left EL2 with this configuration */
#define EL2_F_GIC_SYSREG 1 /* ID_AA64PFR0_EL1.GIC: ICC_SRE_EL2 and ICH_HCR_EL2 */
#define EL2_F_SVE 2        /* ID_AA64PFR0_EL1.SVE: ZCR_EL2 */
#define EL2_F_HCX 3        /* ID_AA64MMFR1_EL1.HCX: HCRX_EL2 */
#define EL2_F_FGT 4        /* ID_AA64MMFR0_EL1.FGT: the fine-grained trap registers */
#define EL2_F_AMU_FGT 5    /* FGT with AMUv1p1: HAFGRTR_EL2 */

/* SCTLR_EL1 bits that are RES1 in Armv8.0 (EOS, TSCXT, EIS, SPAN, nTLSMD, LSMAOE: their later
 * meanings at 1 are the v8.0 behaviour) -- also a starting core's value before its MMU is on. */
#define EL2_SCTLR_EL1_RES1 0x30D00800
/* SPSR_EL2 for the eret: EL1h (EL1 with SP_EL1), D, A, I, F masked. */
#define EL2_SPSR_EL1H_MASKED 0x3C5

#ifndef __ASSEMBLER__
#include <stdbool.h>
#include <stdint.h>

struct el2_config {
	uint64_t hcr, mdcr, cptr, cnthctl, icc_sre, zcr, hcrx, vbar, flags;
};

_Static_assert(__builtin_offsetof(struct el2_config, hcrx) == EL2_C_HCRX, "el2 layout");
_Static_assert(__builtin_offsetof(struct el2_config, flags) == EL2_C_FLAGS, "el2 layout");
_Static_assert(sizeof(struct el2_config) == EL2_C_SIZE, "el2 layout");

/* What the plan is made from, read at EL2. */
struct el2_ids {
	uint64_t pfr0, pfr1, dfr0, isar1, isar2, mmfr0, mmfr1;
	uint64_t hcr;     /* HCR_EL2 as the firmware left it */
	uint64_t pmcr;    /* PMCR_EL0 (read only with a PMUv3; 0 otherwise) */
	uint64_t icc_sre; /* ICC_SRE_EL2 as the firmware left it (0 without the GIC system registers) */
};

/* The EL1 translation regime that continues the firmware's EL2 one (same tables, same memory
 * attributes) and EL1's FP/SIMD access. */
struct el1_mmu {
	uint64_t mair, tcr, ttbr0, ttbr1, sctlr, cpacr;
};

/* The EL2 values (c->vbar left 0 for the caller). Returns 0, or why EL2 cannot be left (then c
 * is not to be applied). */
const char *el2_plan(const struct el2_ids *ids, struct el2_config *c);
/* EL1's registers from EL2's (E2H = 0 layouts). */
void el2_el1_mmu(uint64_t mair_el2, uint64_t tcr_el2, uint64_t ttbr0_el2, uint64_t sctlr_el2,
		 bool sve, struct el1_mmu *m);

/* Whether EL1 may execute through a leaf descriptor of the EL2 tables it inherits: 0, or why
 * not. In EL2's one-privilege regime AP[1] is RES1, so a firmware may well set it -- at EL1 it then
 * means "EL0 may read and write", and EL1 never executes what EL0 may write (AP[2:1] = 01 is
 * implicitly privileged execute-never); PXN, RES0 at EL2, forbids it outright. */
const char *el2_desc_el1_exec(uint64_t leaf_desc);

/* How this run left EL2 (arch/priv/aarch64/el2.c). */
struct el2_report {
	unsigned entry_el; /* where the firmware started us: 1 or 2 (0: not yet looked) */
	bool dropped;      /* we left EL2 and run at EL1 */
	const char *why;   /* entry_el 2 and not dropped: the reason */
	struct el2_config cfg;
	unsigned hpmn;     /* MDCR_EL2.HPMN: event counters given to EL1 */
};

/* After ExitBootServices with interrupts masked, before the vectors: at EL2, configure it and
 * continue at EL1 (true); at EL1 nothing to do (false, entry_el 1); EL2 that cannot be left, or
 * stay (non-NULL: why we stay): false with the reason, still at EL2. */
bool el2_leave(const char *stay);
const struct el2_report *el2_report(void);
/* The configuration a core started at EL2 applies (flags without EL2_F_VALID: none). */
const struct el2_config *el2_config(void);

/* ap_start.S: write the EL2 registers of c (x0), clobbering x0-x3 only. */
void a64_el2_apply(const struct el2_config *c);
#endif

#endif
