/* PMUv3 register fields and common event numbers, as the Arm Architecture Reference Manual (DDI
 * 0487) gives them: chapter "The Performance Monitors Extension" (counters, event filtering,
 * "Enabling event counters", "Counter size", "Synchronization of changes to the Performance
 * Monitors registers", "The PMU event number space and common events") and the register
 * descriptions of "Performance Monitors registers" (PMCR_EL0, PMEVTYPER<n>_EL0, PMCCFILTR_EL0,
 * PMCNTENSET/CLR_EL0, PMOVSCLR_EL0, PMINTENSET/CLR_EL1, PMSELR_EL0, PMXEVTYPER/PMXEVCNTR_EL0,
 * PMCEID0/1_EL0) and of ID_AA64DFR0_EL1 /
 * ID_AA64PFR0_EL1. Pure constants: the host unit tests include this file. */
#ifndef ARCH_AARCH64_PMU_REGS_H
#define ARCH_AARCH64_PMU_REGS_H

/* ID_AA64DFR0_EL1.PMUVer [11:8]. */
#define A64_DFR0_PMUVER_SHIFT 8
#define A64_ID_FIELD_MASK 0xFu
#define A64_PMUVER_NONE 0x0
#define A64_PMUVER_V3 0x1   /* Armv8.0 */
#define A64_PMUVER_V3P1 0x4 /* Armv8.1: 16-bit event numbers, PMCEID upper halves */
#define A64_PMUVER_V3P4 0x5
#define A64_PMUVER_V3P5 0x6 /* Armv8.5: 64-bit event counters (PMCR_EL0.LP) */
#define A64_PMUVER_V3P7 0x7
#define A64_PMUVER_V3P8 0x8
#define A64_PMUVER_V3P9 0x9
#define A64_PMUVER_IMPDEF 0xF /* an IMPLEMENTATION DEFINED PMU, not PMUv3 */

/* ID_AA64PFR0_EL1.EL2 [11:8], .EL3 [15:12]: 0 = that exception level is not implemented. */
#define A64_PFR0_EL2_SHIFT 8
#define A64_PFR0_EL3_SHIFT 12

/* PMCR_EL0. */
#define A64_PMCR_E (1u << 0)  /* enable: the event counters and (with PMCNTENSET.C) the cycle counter */
#define A64_PMCR_P (1u << 1)  /* write 1: reset every event counter (not the cycle counter) */
#define A64_PMCR_C (1u << 2)  /* write 1: reset the cycle counter */
#define A64_PMCR_D (1u << 3)  /* clock divider: the cycle counter counts every 64th cycle (kept 0) */
#define A64_PMCR_X (1u << 4)  /* export events to an external trace unit (kept 0) */
#define A64_PMCR_DP (1u << 5) /* cycle counter disabled where event counting is prohibited (kept 0) */
#define A64_PMCR_LC (1u << 6) /* the cycle counter overflows at 64 bits, not 32 */
#define A64_PMCR_LP (1u << 7) /* PMUv3p5: the event counters overflow at 64 bits, not 32 */
#define A64_PMCR_N_SHIFT 11   /* N [15:11]: event counters accessible at this EL (MDCR_EL2.HPMN at EL1) */
#define A64_PMCR_N_MASK 0x1Fu
#define A64_PMCR_IDCODE_SHIFT 16
#define A64_PMCR_IMP_SHIFT 24
#define A64_PMCR_BYTE_MASK 0xFFu

/* PMEVTYPER<n>_EL0 and PMCCFILTR_EL0 ("Filtering by exception level and Security state"): a set
 * P / U stops counting at EL1 / EL0; NSK / NSU (EL3 implemented) count Non-secure EL1 / EL0 only
 * when equal to P / U; NSH set counts at EL2; M (EL3 implemented) counts at EL3 when equal to P. */
#define A64_PMEVTYPER_P (1u << 31)
#define A64_PMEVTYPER_U (1u << 30)
#define A64_PMEVTYPER_NSK (1u << 29)
#define A64_PMEVTYPER_NSU (1u << 28)
#define A64_PMEVTYPER_NSH (1u << 27)
#define A64_PMEVTYPER_M (1u << 26)
#define A64_PMEVTYPER_MT (1u << 25) /* multithreading: count the whole core's threads (kept 0) */
#define A64_PMEVTYPER_EVT_MASK_V3 0x3FFu    /* evtCount [9:0] in PMUv3 */
#define A64_PMEVTYPER_EVT_MASK_V3P1 0xFFFFu /* evtCount [15:0] from PMUv3p1 */

/* PMCNTENSET/CLR_EL0, PMOVSSET/CLR_EL0, PMINTENSET/CLR_EL1: bit n = event counter n (n < 31),
 * bit 31 = the cycle counter PMCCNTR_EL0. */
#define A64_PMU_MAX_EVENT_COUNTERS 31u
#define A64_PMU_CYCLE_IDX 31u
#define A64_PMU_ALL_COUNTERS 0xFFFFFFFFu /* every event counter and the cycle counter */
/* Event counters overflow at 32 bits unless PMCR_EL0.LP (PMUv3p5) makes it 64. */
#define A64_PMU_COUNTER_BITS_V3 32u

/* PMSELR_EL0.SEL [4:0]: the counter PMXEVTYPER_EL0 / PMXEVCNTR_EL0 reach (31: PMCCFILTR_EL0). */
#define A64_PMSELR_SEL_MASK 0x1Fu

/* PMCEID0_EL0 [31:0] = common events 0x00..0x1F, PMCEID1_EL0 [31:0] = 0x20..0x3F; from PMUv3p1
 * the upper halves [63:32] = 0x4000..0x401F and 0x4020..0x403F. */
#define A64_PMCEID_EVENTS_PER_HALF 32u
#define A64_PMCEID_EXT_BASE 0x4000u

/* Common architectural and microarchitectural events ("Common event numbers"). */
#define A64_EV_SW_INCR 0x00
#define A64_EV_L1I_CACHE_REFILL 0x01
#define A64_EV_L1D_CACHE_REFILL 0x03
#define A64_EV_L1D_CACHE 0x04
#define A64_EV_L1D_TLB_REFILL 0x05
#define A64_EV_INST_RETIRED 0x08
#define A64_EV_BR_MIS_PRED 0x10
#define A64_EV_CPU_CYCLES 0x11
#define A64_EV_BR_PRED 0x12
#define A64_EV_MEM_ACCESS 0x13
#define A64_EV_L2D_CACHE_REFILL 0x17
#define A64_EV_BR_RETIRED 0x21
#define A64_EV_BR_MIS_PRED_RETIRED 0x22
#define A64_EV_STALL_FRONTEND 0x23
#define A64_EV_STALL_BACKEND 0x24
#define A64_EV_DTLB_WALK 0x34
#define A64_EV_ITLB_WALK 0x35
#define A64_EV_LL_CACHE_RD 0x36
#define A64_EV_LL_CACHE_MISS_RD 0x37
#define A64_EV_STALL 0x3C

#endif
