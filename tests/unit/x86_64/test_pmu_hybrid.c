/* The event tables by CPU (data/pmu_events_x86.json, generated) and the discovery of a hybrid
 * part's PMU per core type, against the register model (pmu_model.c). The expected values are the
 * vendors' documents, written out here, never read from our tables:
 *   - Linux tools/perf/pmu-events/arch/x86/mapfile.csv: which model gets which event list
 *     (GenuineIntel-6-7[DE] icelake, 6-6[AC] icelakex, 6-8F sapphirerapids, 6-CF emeraldrapids,
 *     6-A[DE] graniterapids, 6-(97|9A|B7|BA|BF) alderlake; amdzen5 AuthenticAMD-26-
 *     ([12467][[:xdigit:]]|[[:xdigit:]]) since "perf vendor events amd: Add Zen 6 mapping" made
 *     family 1Ah models 50h-57h Zen 6, AMD 69163);
 *   - Linux tools/perf/pmu-events/arch/x86/amdzen5/{l2-cache,load-store,branch-prediction}.json
 *     and intel/perfmon's <model>_core.json (the same codes as Linux's converted JSON);
 *   - Intel SDM vol. 2A, CPUID leaf 07H EDX[15] Hybrid, leaf 1AH EAX[31:24] core type (20H Intel
 *     Atom, 40H Intel Core), leaf 23H (subleaf 0 EAX: valid subleaves; subleaf 1 EAX / EBX: the
 *     general-purpose / fixed counter bitmaps);
 *   - Linux arch/x86/events/intel/core.c, intel_pmu_init, Alder Lake: the hybrid cpu_core PMU has
 *     num_counters + 2 (leaf 0xA reports the six every core type has). */
#include "arch/pmu.h"
#include "pmu_events_tables.h" /* generated (build/gen): the tables by name */
#include "tests/unit/pmu_model.h"
#include "tests/unit/test.h"

static struct pmu_model M;
static struct pmu_info P;

#define LEAF7_EDX_HYBRID (1u << 15)      /* SDM vol. 2A, CPUID 07H EDX bit 15 */
#define LEAF1A_EAX_ATOM (0x20u << 24)    /* SDM vol. 2A, CPUID 1AH EAX[31:24] = 20H */
#define LEAF1A_EAX_CORE (0x40u << 24)    /* ... = 40H */
#define LEAF23_SUBLEAVES_0_AND_1 0x3u    /* CPUID 23H.0 EAX: subleaves 0 and 1 valid */

static const char *or_none(const char *s)
{
	return s ? s : "(none)";
}

/* An event's event select and unit mask in table t (0xFFFFFFFF: not there). */
static uint32_t code(const struct pmu_event_table *t, const char *name)
{
	const struct pmu_event *e = pmu_table_find(t, name);

	return e ? (uint32_t)e->event << 8 | e->umask : 0xFFFFFFFFu;
}

/* Family 1Ah models 00h-2Fh, 40h-4Fh, 60h-7Fh are Zen 5 (mapfile.csv amdzen5; 50h-57h are Zen 6,
 * other models unknown: no table rather than Zen 5's codes), with the codes of
 * Linux's amdzen5 JSON: l2_request_g1.all_dc 0x60/0xe0, .cacheable_ic_read 0x60/0x10,
 * l2_cache_req_stat.ic_dc_miss_in_l2 0x64/0x09, ls_l1_d_tlb_miss.all_l2_miss 0x45/0xf0,
 * bp_l1_tlb_miss_l2_tlb_miss.all 0x85/0x0f, ls_dmnd_fills_from_sys.all 0x43/0xff, whose
 * local_l2 bit is 0x01 (so the fills from beyond the L2 are 0xfe). */
static void zen5_family_1ah(void)
{
	static const unsigned models[] = { 0x00, 0x02, 0x0F, 0x11, 0x24, 0x2F, 0x44, 0x60, 0x70, 0x7F };
	static const unsigned not_zen5[] = { 0x30, 0x3F, 0x50, 0x57, 0x5F, 0x80, 0xFF };
	const struct pmu_event_table *t = pmu_family_events(false, true, 0x1A, 0x44, PMU_CORE_NONE);

	for (unsigned i = 0; i < sizeof(models) / sizeof(models[0]); i++)
		CHECK(pmu_family_events(false, true, 0x1A, models[i], PMU_CORE_NONE) == t);
	for (unsigned i = 0; i < sizeof(not_zen5) / sizeof(not_zen5[0]); i++)
		CHECK(pmu_family_events(false, true, 0x1A, not_zen5[i], PMU_CORE_NONE) == 0);
	CHECK(t != 0);
	if (!t)
		return;
	CHECK_EQ_U64(code(t, "l1d_misses"), 0x060E0);
	CHECK_EQ_U64(code(t, "l1i_misses"), 0x06010);
	CHECK_EQ_U64(code(t, "l2_misses"), 0x06409);
	CHECK_EQ_U64(code(t, "dtlb_misses"), 0x045F0);
	CHECK_EQ_U64(code(t, "itlb_misses"), 0x0850F);
	CHECK_EQ_U64(code(t, "l1d_demand_misses"), 0x043FF);
	CHECK_EQ_U64(code(t, "l2_demand_misses"), 0x043FE);
	CHECK_EQ_U64(code(t, "llc_misses"), 0xFFFFFFFF); /* the L3 PMU counts it: not a core event */
	CHECK(pmu_family_events(true, false, 0x1A, 0x44, PMU_CORE_NONE) == 0); /* AMD's family */
}

/* A Zen 5 machine counts its demand misses with PMCx043: the event select the planner programs
 * (AMD PPR: EventSelect[7:0] at 7:0, UnitMask at 15:8, OS at bit 17). */
static void zen5_discovery_plans_demand_fills(void)
{
	struct cpu_info ci = model_cpu(false, 0x1A, 0x44);
	struct pmu_cpuid id = { .ext1_ecx = 1u << 23, .ext22 = { 1, 6 } };
	static const char *const names[] = { "l1d_demand_misses" };
	struct pmu_plan pl;

	model_amd(&M, PMU_AMD_V2, 6);
	pmu_discover(&P, &ci, &id, &M.ops);
	CHECK(P.present);
	CHECK_EQ_U64(pmu_plan_events(&P, names, 1, &pl), 1);
	CHECK_EQ_U64(pl.nrefused, 0);
	CHECK_EQ_U64(pl.pass[0].c[0].config, 0x2FF43);
}

/* Intel models get the event list mapfile.csv names, with codes of that list (intel/perfmon:
 * icelake_core.json V1.24 DTLB_LOAD_MISSES.WALK_COMPLETED 0x08/0x0e; sapphirerapids_core.json
 * V1.39 0x12/0x0e and ITLB_MISSES.WALK_COMPLETED 0x11/0x0e; alderlake_gracemont_core.json V1.40
 * ICACHE.MISSES 0x80/0x02, MEM_LOAD_UOPS_RETIRED.L2_MISS 0xd1/0x10). */
static void intel_models_per_mapfile(void)
{
	const struct pmu_event_table *icl = pmu_family_events(true, false, 6, 0x7E, PMU_CORE_NONE);
	const struct pmu_event_table *icx = pmu_family_events(true, false, 6, 0x6A, PMU_CORE_NONE);
	const struct pmu_event_table *spr = pmu_family_events(true, false, 6, 0x8F, PMU_CORE_NONE);
	const struct pmu_event_table *gnr = pmu_family_events(true, false, 6, 0xAD, PMU_CORE_NONE);
	const struct pmu_event_table *adl_p = pmu_family_events(true, false, 6, 0x97, PMU_CORE_P);
	const struct pmu_event_table *adl_e = pmu_family_events(true, false, 6, 0x97, PMU_CORE_E);

	CHECK(icl && icl == pmu_family_events(true, false, 6, 0x7D, PMU_CORE_NONE));
	CHECK(icx && icx != icl && icx == pmu_family_events(true, false, 6, 0x6C, PMU_CORE_NONE));
	CHECK(spr && spr == pmu_family_events(true, false, 6, 0xCF, PMU_CORE_NONE)); /* Emerald Rapids */
	CHECK(gnr && gnr == pmu_family_events(true, false, 6, 0xAE, PMU_CORE_NONE));
	CHECK(adl_p && adl_e && adl_p != adl_e);
	CHECK(adl_p == pmu_family_events(true, false, 6, 0x9A, PMU_CORE_P));
	CHECK(adl_e == pmu_family_events(true, false, 6, 0xBF, PMU_CORE_E));
	/* Alder Lake without a core type (not discovered as hybrid): neither core's list. */
	CHECK(pmu_family_events(true, false, 6, 0x97, PMU_CORE_NONE) == 0);
	CHECK(pmu_family_events(true, false, 6, 0x5E, PMU_CORE_NONE) == &pmu_intel_skylake_events);
	CHECK_EQ_U64(code(icl, "dtlb_misses"), 0x0080E);
	CHECK_EQ_U64(code(spr, "dtlb_misses"), 0x0120E);
	CHECK_EQ_U64(code(spr, "itlb_misses"), 0x0110E);
	CHECK_EQ_U64(code(adl_p, "dtlb_misses"), 0x0120E);
	CHECK_EQ_U64(code(adl_e, "l1i_misses"), 0x08002);
	CHECK_EQ_U64(code(adl_e, "l2_demand_misses"), 0x0D110);
	CHECK_EQ_U64(code(adl_p, "l1i_misses"), 0xFFFFFFFF); /* Golden Cove lists no I-cache miss count */
	CHECK_EQ_U64(code(icx, "l2_misses"), 0xFFFFFFFF);   /* icelakex_core.json has no L2_RQSTS.MISS */
}

/* Leaf 0xA of an Alder Lake core: version 5, six 48-bit GP counters, three 48-bit fixed ones. */
static struct pmu_cpuid adl_cpuid(bool hybrid, uint32_t leaf1a, uint32_t gp_bitmap, uint32_t fixed_bitmap)
{
	struct pmu_cpuid id = { 0 };

	id.leaf_a[0] = 5 | 6u << 8 | 48u << 16 | 7u << 24;
	id.leaf_a[3] = 3 | 48u << 5;
	id.leaf1_ecx = 1u << 15;
	id.leaf7_edx = hybrid ? LEAF7_EDX_HYBRID : 0;
	id.leaf1a_eax = leaf1a;
	if (gp_bitmap) {
		id.leaf23[0] = LEAF23_SUBLEAVES_0_AND_1;
		id.leaf23[1] = gp_bitmap;
		id.leaf23[2] = fixed_bitmap;
	}
	return id;
}

/* Discovery on the core that runs it, with the model having `gp` counters. */
static void discover_on(unsigned model, unsigned gp, const struct pmu_cpuid *id)
{
	struct cpu_info ci = model_cpu(true, 6, model);

	model_intel(&M, 5, gp, 48, 3, 48, true);
	M.leaf1a_eax = id->leaf1a_eax;
	ci.max_leaf = 0x23;
	pmu_discover(&P, &ci, id, &M.ops);
}

/* Leaf 23H gives each core type its counters: a P-core 8 (bitmap 0xFF), an E-core 6 (0x3F), both
 * fixed 0-2 (0x7); each core gets its own event list and says its type. */
static void hybrid_leaf_23h_per_core_type(void)
{
	struct pmu_cpuid p = adl_cpuid(true, LEAF1A_EAX_CORE, 0xFF, 0x7);
	struct pmu_cpuid e = adl_cpuid(true, LEAF1A_EAX_ATOM, 0x3F, 0x7);

	discover_on(0x97, 8, &p);
	CHECK(P.present);
	CHECK_EQ_U64(P.num_gp, 8);
	CHECK_EQ_U64(P.fixed_avail, 0x7);
	CHECK(P.family == pmu_family_events(true, false, 6, 0x97, PMU_CORE_P));
	CHECK_STR(or_none(pmu_core_type(&P)), "p");
	CHECK_STR(or_none(pmu_cpu_core_type(&P)), "p");
	discover_on(0x97, 6, &e);
	CHECK(P.present);
	CHECK_EQ_U64(P.num_gp, 6);
	CHECK_EQ_U64(P.fixed_avail, 0x7);
	CHECK(P.family == pmu_family_events(true, false, 6, 0x97, PMU_CORE_E));
	CHECK_STR(or_none(pmu_core_type(&P)), "e");
	/* The description is the E-core's: a P-core running a set says so. */
	M.leaf1a_eax = LEAF1A_EAX_CORE;
	CHECK_STR(or_none(pmu_cpu_core_type(&P)), "p");
}

/* The boot processor is a P-core; an E-core discovers its own PMU (pmu_discover_this_cpu, as
 * membw_mc does on its first core of the other type): leaf 23H's 0x3F, the E-core's table. */
static void this_cpu_discovery_on_an_e_core(void)
{
	struct pmu_cpuid p = adl_cpuid(true, LEAF1A_EAX_CORE, 0xFF, 0x7);
	struct cpu_info ci = model_cpu(true, 6, 0x97);
	struct pmu_info e;

	ci.max_leaf = 0x23;
	discover_on(0x97, 8, &p);
	CHECK_STR(or_none(pmu_core_type(&P)), "p");
	/* the code now runs on an E-core: the model's counters and CPUID are that core's */
	model_intel(&M, 5, 6, 48, 3, 48, true);
	M.leaf7_edx = LEAF7_EDX_HYBRID;
	M.leaf1a_eax = LEAF1A_EAX_ATOM;
	M.leaf23[0] = LEAF23_SUBLEAVES_0_AND_1;
	M.leaf23[1] = 0x3F;
	M.leaf23[2] = 0x7;
	pmu_discover_this_cpu(&e, &ci, &P);
	CHECK(e.present);
	CHECK_STR(or_none(pmu_core_type(&e)), "e");
	CHECK_EQ_U64(e.num_gp, 6);
	CHECK_EQ_U64(e.fixed_avail, 0x7);
	CHECK(e.family == pmu_family_events(true, false, 6, 0x97, PMU_CORE_E));
	CHECK_STR(or_none(pmu_core_type(&P)), "p"); /* the boot description is left alone */
}

/* Without leaf 23H (Alder / Raptor Lake): leaf 0xA's six are the E-core's; a P-core has two
 * more (Linux intel/core.c); a fixed bitmap with a gap keeps only the counters it lists. */
static void hybrid_without_leaf_23h(void)
{
	struct pmu_cpuid p = adl_cpuid(true, LEAF1A_EAX_CORE, 0, 0);
	struct pmu_cpuid e = adl_cpuid(true, LEAF1A_EAX_ATOM, 0, 0);
	struct pmu_cpuid gap = adl_cpuid(true, LEAF1A_EAX_CORE, 0xFF, 0x5);

	discover_on(0x9A, 8, &p);
	CHECK_EQ_U64(P.num_gp, 8);
	discover_on(0x9A, 6, &e);
	CHECK_EQ_U64(P.num_gp, 6);
	discover_on(0x9A, 8, &gap);
	CHECK_EQ_U64(P.fixed_avail, 0x5);
	CHECK_EQ_U64(P.num_fixed, 1);
}

/* Not hybrid (leaf 7 EDX[15] clear): leaves 1AH and 23H are not consulted, the leaf 0xA
 * description stands, no core type anywhere. */
static void non_hybrid_path_unchanged(void)
{
	struct pmu_cpuid id = adl_cpuid(false, LEAF1A_EAX_CORE, 0xFF, 0x7);

	discover_on(0x8F, 8, &id);
	CHECK(P.present);
	CHECK_EQ_U64(P.num_gp, 6);
	CHECK_EQ_U64(P.fixed_avail, 0x7);
	CHECK(P.core_type == PMU_CORE_NONE);
	CHECK(pmu_core_type(&P) == 0);
	CHECK(pmu_cpu_core_type(&P) == 0);
	CHECK(P.family == pmu_family_events(true, false, 6, 0x8F, PMU_CORE_NONE));
}

/* Without an ops hook (the firmware's and the hosted build's path) CPUID is the machine's own:
 * on this host leaf 1 has the family in EAX and the APIC/feature bits in ECX/EDX, never all zero,
 * and the call returns (a hook-less path that called itself recursed until the stack ran out). */
static void read_cpuid_without_hook(void)
{
	struct cpu_info ci = { 0 };
	struct pmu_cpuid id;

	ci.max_leaf = 1;
	pmu_read_cpuid(&ci, &id);
	CHECK(id.leaf1_ecx != 0);
	CHECK_EQ_U64(id.leaf7_edx, 0); /* not read: max_leaf 1 */
}

TEST_SUITE(pmu_hybrid) = {
	{ "read_cpuid_without_hook", read_cpuid_without_hook },
	{ "zen5_family_1ah", zen5_family_1ah },
	{ "zen5_discovery_plans_demand_fills", zen5_discovery_plans_demand_fills },
	{ "intel_models_per_mapfile", intel_models_per_mapfile },
	{ "hybrid_leaf_23h_per_core_type", hybrid_leaf_23h_per_core_type },
	{ "this_cpu_discovery_on_an_e_core", this_cpu_discovery_on_an_e_core },
	{ "hybrid_without_leaf_23h", hybrid_without_leaf_23h },
	{ "non_hybrid_path_unchanged", non_hybrid_path_unchanged },
	{ 0, 0 },
};
