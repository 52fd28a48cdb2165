/* Performance-monitoring registers of Intel and AMD x86_64 CPUs, spelled out as named MSR numbers
 * and bit fields (Intel SDM vol. 3B ch. 20 "Performance Monitoring" and vol. 4 MSR tables; AMD APM
 * vol. 2 ch. 13.2 and the family 17h/19h PPRs). The CPUID bits that announce them are here too.
 * Nothing but constants: pmu.c composes them, the unit tests check the composition. */
#ifndef ARCH_X86_64_PMU_REGS_H
#define ARCH_X86_64_PMU_REGS_H

/* ---- CPUID ---------------------------------------------------------------------------------- */
#define PMU_LEAF_FEATURES 0x1u
#define PMU_LEAF_POWER_MGMT 0x6u
#define PMU_LEAF_ARCH_PERFMON 0xAu
#define PMU_LEAF_STRUCT_EXT 0x7u              /* structured extended features, subleaf 0 */
#define PMU_LEAF_HYBRID 0x1Au                 /* hybrid information (native model ID, core type) */
#define PMU_LEAF_ARCH_PERFMON_EXT 0x23u       /* architectural performance monitoring extended */
#define PMU_LEAF_EXT_FEATURES1 0x80000001u
#define PMU_LEAF_EXT_POWER 0x80000007u
#define PMU_LEAF_AMD_PERFMON 0x80000022u

#define CPUID1_ECX_PDCM (1u << 15)            /* IA32_PERF_CAPABILITIES exists */
#define CPUID6_ECX_APERFMPERF (1u << 0)       /* IA32_APERF / IA32_MPERF exist (Intel and AMD) */

/* Hybrid parts (Intel SDM vol. 2A, CPUID leaves 07H, 1AH and 23H). Leaf 0xA describes only what
 * every core type has; a core's own counters are in leaf 23H where it exists. */
#define CPUID7_EDX_HYBRID (1u << 15)          /* the package has more than one core type */
#define HYBRID_EAX_CORE_TYPE_SHIFT 24         /* leaf 1AH EAX[31:24]: this core's type */
#define HYBRID_CORE_TYPE_ATOM 0x20u           /* Intel Atom: the E-core */
#define HYBRID_CORE_TYPE_CORE 0x40u           /* Intel Core: the P-core */
#define PERFMON_EXT_SUBLEAF_COUNTERS 1u       /* leaf 23H subleaf 1: EAX GP, EBX fixed counter bitmaps */
/* Leaf 23H subleaf 0 EAX: bit i = subleaf i valid. */
#define PERFMON_EXT_EAX_COUNTERS_VALID (1u << PERFMON_EXT_SUBLEAF_COUNTERS)
/* Alder / Raptor Lake P-cores without leaf 23H: two general-purpose counters beyond leaf 0xA's
 * common six (Linux arch/x86/events/intel/core.c, intel_pmu_init, hybrid cpu_core:
 * num_counters = x86_pmu.num_counters + 2). */
#define HYBRID_P_CORE_EXTRA_GP 2u

/* Leaf 0xA (Intel architectural performance monitoring) */
#define ARCH_PERFMON_EAX_VERSION_SHIFT 0      /* 7:0 version ID */
#define ARCH_PERFMON_EAX_NUM_GP_SHIFT 8       /* 15:8 general-purpose counters per logical CPU */
#define ARCH_PERFMON_EAX_GP_WIDTH_SHIFT 16    /* 23:16 bit width of the general-purpose counters */
#define ARCH_PERFMON_EAX_EBX_LEN_SHIFT 24     /* 31:24 length of the EBX event bit vector */
#define ARCH_PERFMON_EDX_NUM_FIXED_SHIFT 0    /* 4:0 fixed-function counters (version > 1) */
#define ARCH_PERFMON_EDX_NUM_FIXED_BITS 5
#define ARCH_PERFMON_EDX_FIXED_WIDTH_SHIFT 5  /* 12:5 bit width of the fixed counters */
/* EBX bit i set = architectural event i NOT available. ECX (version >= 5): bit i = fixed counter i
 * supported, in addition to the first EDX[4:0] counters. */
#define ARCH_EVENT_CORE_CYCLES 0
#define ARCH_EVENT_INSTRUCTIONS 1
#define ARCH_EVENT_REF_CYCLES 2
#define ARCH_EVENT_LLC_REFERENCES 3
#define ARCH_EVENT_LLC_MISSES 4
#define ARCH_EVENT_BRANCHES 5
#define ARCH_EVENT_BRANCH_MISSES 6

#define EXT1_ECX_PERFCTR_CORE (1u << 23)      /* AMD: 6 core counters at C001_0200.. */
#define EXTPWR_EDX_RAPL (1u << 14)            /* AMD: RAPL energy MSRs C001_0299.. */
#define AMD_PERFMON_EAX_V2 (1u << 0)          /* AMD PerfMonV2: global control/status */
#define AMD_PERFMON_EBX_NUM_CORE_SHIFT 0      /* 3:0 core counters */
#define AMD_PERFMON_EBX_NUM_CORE_BITS 4

/* ---- Intel architectural PMU ------------------------------------------------------------------ */
#define MSR_IA32_PMC0 0xC1u                   /* + i: general-purpose counter (32-bit writes, sign-extended) */
#define MSR_IA32_PERFEVTSEL0 0x186u           /* + i: event select of counter i */
#define MSR_IA32_FIXED_CTR0 0x309u            /* + j: fixed counter j */
#define MSR_IA32_PERF_CAPABILITIES 0x345u
#define MSR_IA32_FIXED_CTR_CTRL 0x38Du
#define MSR_IA32_PERF_GLOBAL_STATUS 0x38Eu    /* version >= 2 */
#define MSR_IA32_PERF_GLOBAL_CTRL 0x38Fu      /* version >= 2 */
#define MSR_IA32_PERF_GLOBAL_OVF_CTRL 0x390u  /* version 2, 3: write 1 to clear status bits */
#define MSR_IA32_PERF_GLOBAL_STATUS_RESET 0x390u /* version >= 4: the same MSR, renamed and widened */
#define MSR_IA32_PERF_GLOBAL_STATUS_SET 0x391u   /* version >= 4 */
#define MSR_IA32_PERF_GLOBAL_INUSE 0x392u        /* version >= 4 */
#define MSR_IA32_A_PMC0 0x4C1u                /* + i: full-width alias of PMC i (PERF_CAPABILITIES.FW_WRITE) */

/* IA32_PERFEVTSELx */
#define EVTSEL_EVENT_SHIFT 0                  /* 7:0 event select */
#define EVTSEL_EVENT_MASK 0xFFull
#define EVTSEL_UMASK_SHIFT 8                  /* 15:8 unit mask */
#define EVTSEL_USR (1ull << 16)               /* count at CPL > 0 */
#define EVTSEL_OS (1ull << 17)                /* count at CPL 0 */
#define EVTSEL_EDGE (1ull << 18)              /* count rising edges of the condition */
#define EVTSEL_PC (1ull << 19)                /* pin control (Intel) */
#define EVTSEL_INT (1ull << 20)               /* interrupt on overflow */
#define EVTSEL_ANY (1ull << 21)               /* Intel: any thread of the core */
#define EVTSEL_EN (1ull << 22)                /* counter enable */
#define EVTSEL_INV (1ull << 23)               /* invert the counter-mask comparison */
#define EVTSEL_CMASK_SHIFT 24                 /* 31:24 counter mask (threshold) */

/* IA32_FIXED_CTR_CTRL: a 4-bit field per fixed counter */
#define FIXED_CTRL_FIELD_BITS 4
#define FIXED_CTRL_EN_OS 0x1ull               /* count at CPL 0 */
#define FIXED_CTRL_EN_USR 0x2ull              /* count at CPL > 0 */
#define FIXED_CTRL_ANY 0x4ull
#define FIXED_CTRL_PMI 0x8ull
/* What the first fixed counters count (SDM table "Association of Fixed-Function Counters"). */
#define FIXED_CTR_INSTRUCTIONS 0
#define FIXED_CTR_CORE_CYCLES 1
#define FIXED_CTR_REF_CYCLES 2

/* IA32_PERF_GLOBAL_CTRL / STATUS / OVF_CTRL (STATUS_RESET) bit positions */
#define GLOBAL_FIXED_SHIFT 32                 /* fixed counter j at bit 32 + j */
#define GLOBAL_STATUS_COND_CHGD (1ull << 63)  /* PMU configuration changed (e.g. by SMM/VMM) */
/* Other IA32_PERF_GLOBAL_STATUS indicators (SDM vol. 4, table "Architectural MSRs", 38EH..391H):
 * each clearable through OVF_CTRL (v2, v3: 55, 61, 62, 63) or STATUS_RESET (v4+: all of these),
 * settable through STATUS_SET (v4+: all but 63). */
#define GLOBAL_STATUS_TRACE_TOPA_PMI (1ull << 55) /* Intel PT ToPA PMI */
#define GLOBAL_STATUS_LBR_FRZ (1ull << 58)    /* v4+: LBRs frozen on PMI */
#define GLOBAL_STATUS_CTR_FRZ (1ull << 59)    /* v4+: counters frozen on PMI */
#define GLOBAL_STATUS_ASCI (1ull << 60)       /* v4+: counting suppressed by an SGX enclave */
#define GLOBAL_STATUS_OVF_UNCORE (1ull << 61) /* uncore counter overflow (model-specific) */
#define GLOBAL_STATUS_OVF_BUF (1ull << 62)    /* DS (PEBS/BTS) buffer overflow */
/* Writes to IA32_PMCx keep bits 31:0 and sign-extend bit 31 to the counter width (SDM vol. 3B
 * "Full-Width Writes to Performance Counter Registers"): only periods up to 2^31 - 1 can be
 * preloaded as -period there. */
#define PMC_LEGACY_WRITE_BITS 32

/* IA32_PERF_CAPABILITIES */
#define PERF_CAP_FREEZE_WHILE_SMM (1ull << 12) /* IA32_DEBUGCTL.FREEZE_WHILE_SMM is supported */
#define PERF_CAP_FW_WRITE (1ull << 13)        /* full-width writes through IA32_A_PMCx */

/* IA32_DEBUGCTL (SDM vol. 3B 18.4.1, 20.8.1): with FREEZE_WHILE_SMM set, the counters stop while
 * the CPU is in SMM, so an SMI's own instructions and cycles do not land in a measurement. */
#define MSR_IA32_DEBUGCTL 0x1D9u
#define DEBUGCTL_FREEZE_WHILE_SMM (1ull << 14)

/* rdpmc index: bit 30 selects the fixed-counter range on Intel */
#define RDPMC_FIXED (1u << 30)

/* ---- AMD core performance counters -------------------------------------------------------------- */
#define MSR_AMD_PERF_CTL0 0xC0010000u         /* + i, i < 4: legacy event selects */
#define MSR_AMD_PERF_CTR0 0xC0010004u         /* + i, i < 4: legacy counters */
#define MSR_AMD_LEGACY_STRIDE 1u
#define AMD_LEGACY_COUNTERS 4
#define MSR_AMD_CORE_PERF_CTL0 0xC0010200u    /* + 2n: core-extension event selects, n < 6 */
#define MSR_AMD_CORE_PERF_CTR0 0xC0010201u    /* + 2n: core-extension counters */
#define MSR_AMD_CORE_STRIDE 2u
#define AMD_CORE_EXT_COUNTERS 6
#define MSR_AMD_PERF_CNTR_GLOBAL_STATUS 0xC0000300u  /* PerfMonV2 */
#define MSR_AMD_PERF_CNTR_GLOBAL_CTL 0xC0000301u
#define MSR_AMD_PERF_CNTR_GLOBAL_STATUS_CLR 0xC0000302u
/* PerfCntrGlobalStatus bit n = core counter n overflowed (read-only; cleared by writing 1s to
 * PerfCntrGlobalStatusClr). Bits above the counters are reserved (APM vol. 2, 13.2 "PerfMonV2"
 * registers), yet Zen 4 parts with old microcode set some (Linux commit 599522d9d2e1): only the
 * counter bits are acted on. Without PerfMonV2 there is no status: an overflowed counter is one
 * whose top bit (width - 1) is clear again after counting up from -period (Linux
 * amd_pmu_handle_irq). */
#define AMD_COUNTER_WIDTH 48

/* PERF_CTLx: bits 7:0 and 15:8 as Intel's; USR 16, OS 17, Edge 18, Int 20, En 22, Inv 23,
 * CntMask 31:24 (the EVTSEL_ names above); in addition: */
#define AMD_EVTSEL_EVENT_HI_SHIFT 32          /* 35:32 EventSelect[11:8] */
#define AMD_EVTSEL_EVENT_HI_MASK 0xFull
#define AMD_EVTSEL_HOST_ONLY (1ull << 41)     /* with SVM: count only in host mode */
#define AMD_EVTSEL_GUEST_ONLY (1ull << 40)    /* with SVM: count only in guest mode */

/* AMD DE_CFG (Decode Configuration): bit 1 makes lfence dispatch-serialising (AMD's "Software
 * techniques for managing speculation", 2018; Linux arch/x86/kernel/cpu/amd.c sets it). Families
 * 0Fh and 11h have no such MSR: lfence is already dispatch-serialising there. */
#define MSR_AMD_DE_CFG 0xC0011029u
#define DE_CFG_LFENCE_SERIALIZE (1ull << 1)
#define AMD_FAMILY_K8 0x0Fu
#define AMD_FAMILY_11H 0x11u

/* ---- Free-running counters read with rdmsr ------------------------------------------------------ */
#define MSR_IA32_MPERF 0xE7u                  /* counts at a fixed (TSC / P0) rate while in C0 */
#define MSR_IA32_APERF 0xE8u                  /* counts actual core clocks while in C0 */
#define APERF_MPERF_WIDTH 64

#define MSR_RAPL_POWER_UNIT 0x606u            /* Intel */
#define MSR_PKG_ENERGY_STATUS 0x611u
#define MSR_DRAM_ENERGY_STATUS 0x619u
#define MSR_AMD_RAPL_POWER_UNIT 0xC0010299u   /* AMD family 17h+ */
#define MSR_AMD_CORE_ENERGY_STATUS 0xC001029Au
#define MSR_AMD_PKG_ENERGY_STATUS 0xC001029Bu
#define RAPL_UNIT_ESU_SHIFT 8                 /* 12:8 energy status unit: 1 / 2^ESU joules */
#define RAPL_UNIT_ESU_MASK 0x1Full
#define RAPL_ENERGY_WIDTH 32                  /* energy status counters wrap at 32 bits */
/* DRAM energy on Haswell/Broadwell/Skylake/Ice Lake servers and Xeon Phi counts in a fixed unit,
 * whatever MSR_RAPL_POWER_UNIT says (Xeon E5 v3 datasheet vol. 2, 330784; Linux rapl.c, the
 * RAPL_UNIT_QUIRK_INTEL_HSW models). */
#define RAPL_DRAM_FIXED_ESU 16

#endif
