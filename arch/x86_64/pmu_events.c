/* Event tables (see pmu_events.h). Sources: Intel SDM vol. 3B table "UMask and Event Select
 * Encodings for Pre-Defined Architectural Performance Events" and the Skylake event list of
 * vol. 3B ch. 19 (perfmon event files); AMD PPR for family 17h/19h, "Core Performance Monitor
 * Counters" (PMCxNNN), and the APM's events common to every AMD family since K8. The demand-only
 * miss events are taken from Linux's perf event tables (tools/perf/pmu-events/arch/x86/<model>/
 * cache.json), named at each. */
#include "arch/x86_64/pmu_events.h"

#include "arch/x86_64/pmu_regs.h"

#define TABLE(tname, array) { tname, array, sizeof(array) / sizeof(array[0]) }

/* Architectural events: the same encoding on every Intel CPU that announces them in CPUID 0xA. */
static const struct pmu_event intel_arch[] = {
	{ "cycles", 0x3C, 0x00, 0, 0, FIXED_CTR_CORE_CYCLES, ARCH_EVENT_CORE_CYCLES, "CPU_CLK_UNHALTED.THREAD_P" },
	{ "instructions", 0xC0, 0x00, 0, 0, FIXED_CTR_INSTRUCTIONS, ARCH_EVENT_INSTRUCTIONS, "INST_RETIRED.ANY_P" },
	/* Reference cycles at the TSC rate exist only on fixed counter 2 (CPU_CLK_UNHALTED.REF_TSC);
	 * 0x3C/0x01 on a general-purpose counter is REF_XCLK, another clock: fixed counter only. */
	{ "ref_cycles", 0x3C, 0x01, 0, PMU_EV_FIXED_ONLY, FIXED_CTR_REF_CYCLES, ARCH_EVENT_REF_CYCLES, "CPU_CLK_UNHALTED.REF_TSC" },
	{ "llc_references", 0x2E, 0x4F, 0, 0, PMU_NO_FIXED, ARCH_EVENT_LLC_REFERENCES, "LONGEST_LAT_CACHE.REFERENCE" },
	{ "llc_misses", 0x2E, 0x41, 0, 0, PMU_NO_FIXED, ARCH_EVENT_LLC_MISSES, "LONGEST_LAT_CACHE.MISS" },
	{ "branches", 0xC4, 0x00, 0, 0, PMU_NO_FIXED, ARCH_EVENT_BRANCHES, "BR_INST_RETIRED.ALL_BRANCHES" },
	{ "branch_misses", 0xC5, 0x00, 0, 0, PMU_NO_FIXED, ARCH_EVENT_BRANCH_MISSES, "BR_MISP_RETIRED.ALL_BRANCHES" },
};

/* Skylake client/server and its derivatives (Kaby, Coffee, Whiskey, Comet Lake; Cascade Lake). */
static const struct pmu_event intel_skylake[] = {
	{ "l1d_misses", 0x51, 0x01, 0, 0, PMU_NO_FIXED, PMU_NO_ARCH_BIT, "L1D.REPLACEMENT" },
	{ "l1i_misses", 0x83, 0x02, 0, 0, PMU_NO_FIXED, PMU_NO_ARCH_BIT, "ICACHE_64B.IFTAG_MISS" },
	{ "l2_misses", 0x24, 0x3F, 0, 0, PMU_NO_FIXED, PMU_NO_ARCH_BIT, "L2_RQSTS.MISS" },
	{ "dtlb_misses", 0x08, 0x01, 0, 0, PMU_NO_FIXED, PMU_NO_ARCH_BIT, "DTLB_LOAD_MISSES.MISS_CAUSES_A_WALK" },
	{ "itlb_misses", 0x85, 0x01, 0, 0, PMU_NO_FIXED, PMU_NO_ARCH_BIT, "ITLB_MISSES.MISS_CAUSES_A_WALK" },
	/* cycles in which no uop executed (total execution stalls): a counter-mask event */
	{ "stall_cycles", 0xA3, 0x04, 4, 0, PMU_NO_FIXED, PMU_NO_ARCH_BIT, "CYCLE_ACTIVITY.STALLS_TOTAL" },
	/* Demand-only misses (Linux tools/perf/pmu-events/arch/x86/skylake/cache.json): retired loads
	 * that missed L1 (one per line for a pointer chase; no prefetch is a retired load), and demand
	 * data reads that missed L2 (L2_RQSTS.MISS, umask 0x3F, counts the prefetchers' misses too). */
	{ "l1d_demand_misses", 0xD1, 0x08, 0, 0, PMU_NO_FIXED, PMU_NO_ARCH_BIT, "MEM_LOAD_RETIRED.L1_MISS" },
	{ "l2_demand_misses", 0x24, 0x21, 0, 0, PMU_NO_FIXED, PMU_NO_ARCH_BIT, "L2_RQSTS.DEMAND_DATA_RD_MISS" },
};

/* Events every AMD family since K8 counts the same way. */
static const struct pmu_event amd_core[] = {
	{ "cycles", 0x076, 0x00, 0, 0, PMU_NO_FIXED, PMU_NO_ARCH_BIT, "CPU clocks not halted (PMCx076)" },
	{ "instructions", 0x0C0, 0x00, 0, 0, PMU_NO_FIXED, PMU_NO_ARCH_BIT, "Retired instructions (PMCx0C0)" },
	{ "branches", 0x0C2, 0x00, 0, 0, PMU_NO_FIXED, PMU_NO_ARCH_BIT, "Retired branch instructions (PMCx0C2)" },
	{ "branch_misses", 0x0C3, 0x00, 0, 0, PMU_NO_FIXED, PMU_NO_ARCH_BIT, "Retired branch instructions mispredicted (PMCx0C3)" },
};

/* The rows every Zen core table shares (a macro: C has no table inheritance). */
#define AMD_ZEN_COMMON \
	{ "l1d_misses", 0x060, 0xC8, 0, 0, PMU_NO_FIXED, PMU_NO_ARCH_BIT, "L2RequestG1 DC misses (PMCx060 RdBlkL|RdBlkX|ChangeToX)" }, \
	{ "l1i_misses", 0x060, 0x10, 0, 0, PMU_NO_FIXED, PMU_NO_ARCH_BIT, "L2RequestG1 CacheableIcRead (PMCx060)" }, \
	{ "l2_misses", 0x064, 0x09, 0, 0, PMU_NO_FIXED, PMU_NO_ARCH_BIT, "L2CacheReqStat IcFillMiss|LsRdBlkC (PMCx064)" }, \
	{ "dtlb_misses", 0x045, 0xF0, 0, 0, PMU_NO_FIXED, PMU_NO_ARCH_BIT, "LsL1DTlbMiss L2 TLB misses (PMCx045)" }, \
	/* umask 0xFF as Linux (amd/core.c, f17h cache events: 0xff85): 0x07 would miss bit 3, the \
	 * coalesced-4K walks of Zen 3/4 */ \
	{ "itlb_misses", 0x085, 0xFF, 0, 0, PMU_NO_FIXED, PMU_NO_ARCH_BIT, "BpL1TlbMissL2TlbMiss all sizes (PMCx085)" }

/* Zen 1..3 (family 17h; the family 19h models Linux's perf maps to amdzen3). The L3 is counted by
 * the separate L3 PMU, not the core counters, so there is no llc_* event in a Zen table: such a
 * request is refused, not approximated. No demand-only miss event is known here: the footprint
 * falls back to l1d_misses / l2_misses (and says demand_only=0). */
static const struct pmu_event amd_zen[] = {
	AMD_ZEN_COMMON,
};

/* Zen 4 (family 19h, the models Linux's tools/perf/pmu-events/arch/x86/mapfile.csv maps to amdzen4:
 * all but 00h-0Fh, 20h-2Fh and 40h-5Fh: 30h-3Fh included). Demand-only data cache fills by source, PMCx043
 * (tools/perf/pmu-events/arch/x86/amdzen4/cache.json): ls_dmnd_fills_from_sys.all (umask 0xFF) is
 * every demand L1D fill, i.e. every demand L1D miss; without its local_l2 bit (0x01) it is the
 * demand fills from beyond the L2, i.e. the demand L2 misses of data. Prefetch fills are counted
 * by PMCx059/PMCx05A instead. */
static const struct pmu_event amd_zen4[] = {
	AMD_ZEN_COMMON,
	{ "l1d_demand_misses", 0x043, 0xFF, 0, 0, PMU_NO_FIXED, PMU_NO_ARCH_BIT, "ls_dmnd_fills_from_sys.all (PMCx043)" },
	{ "l2_demand_misses", 0x043, 0xFE, 0, 0, PMU_NO_FIXED, PMU_NO_ARCH_BIT, "ls_dmnd_fills_from_sys.all minus .local_l2 (PMCx043)" },
};

const struct pmu_event_table pmu_intel_arch_events = TABLE("intel_arch", intel_arch);
const struct pmu_event_table pmu_intel_skylake_events = TABLE("intel_skylake", intel_skylake);
const struct pmu_event_table pmu_amd_core_events = TABLE("amd_core", amd_core);
const struct pmu_event_table pmu_amd_zen_events = TABLE("amd_zen", amd_zen);
const struct pmu_event_table pmu_amd_zen4_events = TABLE("amd_zen4", amd_zen4);

/* Family 6 display models of the Skylake family (SDM vol. 4, table 2-1). */
static const uint8_t skylake_models[] = { 0x4E, 0x5E, 0x55, 0x8E, 0x9E, 0xA5, 0xA6 };

#define AMD_FAMILY_ZEN 0x17
#define AMD_FAMILY_ZEN3 0x19
/* Family 19h models Linux's perf maps to amdzen3: mapfile.csv "AuthenticAMD-25-([245][[:xdigit:]]|[[:xdigit:]])",
 * matched against the whole model as perf prints it, "%X" (tools/perf/arch/x86/util/header.c):
 * one hex digit (00h-0Fh), or two whose first is 2, 4 or 5 (20h-2Fh, 40h-5Fh; [245] is a set,
 * not a range, so 30h-3Fh are not amdzen3). The rest of the family is amdzen4. By the model's
 * high nibble: */
#define MODEL_HIGH_NIBBLE_SHIFT 4
#define ZEN3_HIGH_NIBBLES ((1u << 0x0) | (1u << 0x2) | (1u << 0x4) | (1u << 0x5))
#define MODEL_MAX 0xFF

static bool amd_zen4_model(unsigned model)
{
	return model > MODEL_MAX || !((ZEN3_HIGH_NIBBLES >> (model >> MODEL_HIGH_NIBBLE_SHIFT)) & 1u);
}

const struct pmu_event_table *pmu_family_events(bool intel, bool amd, unsigned family, unsigned model)
{
	if (intel && family == 6) {
		for (unsigned i = 0; i < sizeof(skylake_models); i++)
			if (skylake_models[i] == model)
				return &pmu_intel_skylake_events;
	}
	if (amd && family == AMD_FAMILY_ZEN3 && amd_zen4_model(model))
		return &pmu_amd_zen4_events;
	if (amd && (family == AMD_FAMILY_ZEN || family == AMD_FAMILY_ZEN3))
		return &pmu_amd_zen_events;
	return 0;
}

const struct pmu_event_table *pmu_base_events(bool intel, bool amd)
{
	return intel ? &pmu_intel_arch_events : amd ? &pmu_amd_core_events : 0;
}

static bool name_eq(const char *a, const char *b)
{
	while (*a && *a == *b) {
		a++;
		b++;
	}
	return *a == *b;
}

const struct pmu_event *pmu_table_find(const struct pmu_event_table *t, const char *name)
{
	if (!t)
		return 0;
	for (unsigned i = 0; i < t->n; i++)
		if (name_eq(t->events[i].name, name))
			return &t->events[i];
	return 0;
}
