/* The system registers the AArch64 build touches that may trap or be UNDEFINED at EL1, as one
 * X-macro list: sysreg_stubs.S builds an access stub per row (mrs/msr name the register in the
 * instruction, so each needs its own), sysreg_gate.c the table of names, encodings and the ID
 * register field that says whether the register exists. Included from assembly: #defines only.
 *
 * Row: X(ID, name, op0, op1, CRn, CRm, op2, gate, shift, min, max, flags)
 *   name      the Arm ARM's register name, lower case (what objdump prints for the encoding)
 *   op0..op2  the encoding, as the Arm ARM's register description gives it (DDI 0487 J.a)
 *   gate      the ID register whose field [shift+3:shift] says the register is implemented
 *             when min <= field <= max (A64_GATE_ALWAYS: always implemented; fields unsigned)
 *   flags     A64_SRF_EL2: an EL2 register (UNDEFINED at EL1); A64_SRF_TRAPPABLE: even when
 *             implemented, a higher EL may trap it (MDCR_EL2/EL3 for PMU/SPE/TRBE, CPTR_EL2/EL3
 *             for AMU and SVE): not touched where no vectors of ours catch the trap;
 *             A64_SRF_EL0: readable at EL0 in a Linux process (the hosted build): the ID space,
 *             which the kernel emulates for user space (Documentation/arch/arm64/cpu-feature-
 *             registers.rst), the virtual counter (CNTKCTL_EL1.EL0VCTEN, which Linux sets) and
 *             RNDR (no EL0 control); at EL0 nothing else is touched. */
#ifndef ARCH_AARCH64_SYSREG_TABLE_H
#define ARCH_AARCH64_SYSREG_TABLE_H

#define A64_GATE_ALWAYS 0
#define A64_GATE_PFR0 1  /* ID_AA64PFR0_EL1 */
#define A64_GATE_DFR0 2  /* ID_AA64DFR0_EL1 */
#define A64_GATE_ISAR0 3 /* ID_AA64ISAR0_EL1 */
#define A64_GATE_MMFR0 4 /* ID_AA64MMFR0_EL1 */
#define A64_GATE_COUNT 5

#define A64_SRF_EL2 1
#define A64_SRF_TRAPPABLE 2
#define A64_SRF_EL0 4

/* ID register fields of the gates (Arm ARM D19.2: ID_AA64PFR0_EL1, ID_AA64DFR0_EL1, ...). */
#define A64_PFR0_RAS_SHIFT 28
#define A64_PFR0_SVE_SHIFT 32
#define A64_PFR0_AMU_SHIFT 44
#define A64_DFR0_PMUVER_F 8
#define A64_DFR0_PMSVER_SHIFT 32
#define A64_DFR0_TRACEBUFFER_SHIFT 44
#define A64_ISAR0_RNDR_SHIFT 60
#define A64_MMFR0_ECV_SHIFT 60
#define A64_PMUVER_V3_MIN 1     /* PMUv3 .. PMUv3p9; 0xF is an IMPLEMENTATION DEFINED PMU */
#define A64_PMUVER_V3P4_MIN 5   /* PMMIR_EL1 arrives with PMUv3p4 */
#define A64_PMUVER_V3_MAX 0xE
#define A64_FIELD_ANY_MAX 0xF

#define A64_SYSREG_LIST(X)                                                                              \
	/* ID space (op0=3, op1=0, CRn=0, CRm=1..7): unallocated encodings read as zero, so these      \
	 * never trap; ID_AA64ISAR2_EL1 is zero on cores older than Armv8.7's fields. */              \
	X(ID_AA64PFR1_EL1, id_aa64pfr1_el1, 3, 0, 0, 4, 1, A64_GATE_ALWAYS, 0, 0, 0, A64_SRF_EL0)       \
	X(ID_AA64ZFR0_EL1, id_aa64zfr0_el1, 3, 0, 0, 4, 4, A64_GATE_ALWAYS, 0, 0, 0, A64_SRF_EL0)       \
	X(ID_AA64ISAR2_EL1, id_aa64isar2_el1, 3, 0, 0, 6, 2, A64_GATE_ALWAYS, 0, 0, 0, A64_SRF_EL0)     \
	X(ID_AA64MMFR1_EL1, id_aa64mmfr1_el1, 3, 0, 0, 7, 1, A64_GATE_ALWAYS, 0, 0, 0, A64_SRF_EL0)     \
	/* SVE: UNDEFINED without it; CPACR_EL1.ZEN / CPTR_EL2 / CPTR_EL3.EZ may trap it. */           \
	X(ZCR_EL1, zcr_el1, 3, 0, 1, 2, 0, A64_GATE_PFR0, A64_PFR0_SVE_SHIFT, 1, A64_FIELD_ANY_MAX,         \
	  A64_SRF_TRAPPABLE)                                                                            \
	/* PMUv3: UNDEFINED with PMUVer 0 or 0xF; MDCR_EL2.TPM/TPMCR and MDCR_EL3.TPM may trap it. */  \
	X(PMCR_EL0, pmcr_el0, 3, 3, 9, 12, 0, A64_GATE_DFR0, A64_DFR0_PMUVER_F, A64_PMUVER_V3_MIN,          \
	  A64_PMUVER_V3_MAX, A64_SRF_TRAPPABLE)                                                         \
	X(PMCEID0_EL0, pmceid0_el0, 3, 3, 9, 12, 6, A64_GATE_DFR0, A64_DFR0_PMUVER_F, A64_PMUVER_V3_MIN,    \
	  A64_PMUVER_V3_MAX, A64_SRF_TRAPPABLE)                                                         \
	X(PMCEID1_EL0, pmceid1_el0, 3, 3, 9, 12, 7, A64_GATE_DFR0, A64_DFR0_PMUVER_F, A64_PMUVER_V3_MIN,    \
	  A64_PMUVER_V3_MAX, A64_SRF_TRAPPABLE)                                                         \
	X(PMCCNTR_EL0, pmccntr_el0, 3, 3, 9, 13, 0, A64_GATE_DFR0, A64_DFR0_PMUVER_F, A64_PMUVER_V3_MIN,    \
	  A64_PMUVER_V3_MAX, A64_SRF_TRAPPABLE)                                                         \
	X(PMUSERENR_EL0, pmuserenr_el0, 3, 3, 9, 14, 0, A64_GATE_DFR0, A64_DFR0_PMUVER_F,                 \
	  A64_PMUVER_V3_MIN, A64_PMUVER_V3_MAX, A64_SRF_TRAPPABLE)                                      \
	X(PMCCFILTR_EL0, pmccfiltr_el0, 3, 3, 14, 15, 7, A64_GATE_DFR0, A64_DFR0_PMUVER_F,                \
	  A64_PMUVER_V3_MIN, A64_PMUVER_V3_MAX, A64_SRF_TRAPPABLE)                                      \
	X(PMMIR_EL1, pmmir_el1, 3, 0, 9, 14, 6, A64_GATE_DFR0, A64_DFR0_PMUVER_F, A64_PMUVER_V3P4_MIN,      \
	  A64_PMUVER_V3_MAX, A64_SRF_TRAPPABLE)                                                         \
	/* SPE and the trace buffer: only their ID registers. */                                      \
	X(PMSIDR_EL1, pmsidr_el1, 3, 0, 9, 9, 7, A64_GATE_DFR0, A64_DFR0_PMSVER_SHIFT, 1,                   \
	  A64_FIELD_ANY_MAX, A64_SRF_TRAPPABLE)                                                         \
	X(TRBIDR_EL1, trbidr_el1, 3, 0, 9, 11, 7, A64_GATE_DFR0, A64_DFR0_TRACEBUFFER_SHIFT, 1,             \
	  A64_FIELD_ANY_MAX, A64_SRF_TRAPPABLE)                                                         \
	/* The generic timer: CNTVCT_EL0 always; the self-synchronised views need FEAT_ECV. */       \
	X(CNTVCT_EL0, cntvct_el0, 3, 3, 14, 0, 2, A64_GATE_ALWAYS, 0, 0, 0, A64_SRF_EL0)                \
	X(CNTPCTSS_EL0, cntpctss_el0, 3, 3, 14, 0, 5, A64_GATE_MMFR0, A64_MMFR0_ECV_SHIFT, 1,              \
	  A64_FIELD_ANY_MAX, 0)                                                                         \
	X(CNTVCTSS_EL0, cntvctss_el0, 3, 3, 14, 0, 6, A64_GATE_MMFR0, A64_MMFR0_ECV_SHIFT, 1,              \
	  A64_FIELD_ANY_MAX, A64_SRF_EL0)                                                               \
	/* Activity monitors (FEAT_AMU): group 0 counter 0 core cycles, 1 constant-frequency         \
	 * cycles, 2 instructions retired, 3 memory stall cycles; CPTR_EL2/EL3.TAM may trap them. */   \
	X(AMCR_EL0, amcr_el0, 3, 3, 13, 2, 0, A64_GATE_PFR0, A64_PFR0_AMU_SHIFT, 1, A64_FIELD_ANY_MAX,      \
	  A64_SRF_TRAPPABLE)                                                                            \
	X(AMCFGR_EL0, amcfgr_el0, 3, 3, 13, 2, 1, A64_GATE_PFR0, A64_PFR0_AMU_SHIFT, 1, A64_FIELD_ANY_MAX,  \
	  A64_SRF_TRAPPABLE)                                                                            \
	X(AMCNTENSET0_EL0, amcntenset0_el0, 3, 3, 13, 2, 5, A64_GATE_PFR0, A64_PFR0_AMU_SHIFT, 1,           \
	  A64_FIELD_ANY_MAX, A64_SRF_TRAPPABLE)                                                         \
	X(AMEVCNTR00_EL0, amevcntr00_el0, 3, 3, 13, 4, 0, A64_GATE_PFR0, A64_PFR0_AMU_SHIFT, 1,             \
	  A64_FIELD_ANY_MAX, A64_SRF_TRAPPABLE)                                                         \
	X(AMEVCNTR01_EL0, amevcntr01_el0, 3, 3, 13, 4, 1, A64_GATE_PFR0, A64_PFR0_AMU_SHIFT, 1,             \
	  A64_FIELD_ANY_MAX, A64_SRF_TRAPPABLE)                                                         \
	X(AMEVCNTR02_EL0, amevcntr02_el0, 3, 3, 13, 4, 2, A64_GATE_PFR0, A64_PFR0_AMU_SHIFT, 1,             \
	  A64_FIELD_ANY_MAX, A64_SRF_TRAPPABLE)                                                         \
	X(AMEVCNTR03_EL0, amevcntr03_el0, 3, 3, 13, 4, 3, A64_GATE_PFR0, A64_PFR0_AMU_SHIFT, 1,             \
	  A64_FIELD_ANY_MAX, A64_SRF_TRAPPABLE)                                                         \
	/* RAS error records (FEAT_RAS) and the random number registers (FEAT_RNG). */               \
	X(ERRIDR_EL1, erridr_el1, 3, 0, 5, 3, 0, A64_GATE_PFR0, A64_PFR0_RAS_SHIFT, 1, A64_FIELD_ANY_MAX,   \
	  A64_SRF_TRAPPABLE)                                                                            \
	X(RNDR, rndr, 3, 3, 2, 4, 0, A64_GATE_ISAR0, A64_ISAR0_RNDR_SHIFT, 1, A64_FIELD_ANY_MAX, A64_SRF_EL0) \
	/* EL2's own: UNDEFINED at EL1 (where we run them, a fault on purpose shows the path). */     \
	X(HCR_EL2, hcr_el2, 3, 4, 1, 1, 0, A64_GATE_ALWAYS, 0, 0, 0, A64_SRF_EL2)                          \
	X(MDCR_EL2, mdcr_el2, 3, 4, 1, 1, 1, A64_GATE_ALWAYS, 0, 0, 0, A64_SRF_EL2)                        \
	X(CPTR_EL2, cptr_el2, 3, 4, 1, 1, 2, A64_GATE_ALWAYS, 0, 0, 0, A64_SRF_EL2)                        \
	X(ZCR_EL2, zcr_el2, 3, 4, 1, 2, 0, A64_GATE_PFR0, A64_PFR0_SVE_SHIFT, 1, A64_FIELD_ANY_MAX,         \
	  A64_SRF_EL2 | A64_SRF_TRAPPABLE)

#define A64_SYSREG_STUB_BYTES 16 /* each access stub: four instructions, the access first */

#endif
