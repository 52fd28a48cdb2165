/* The footprint probe's miss counter (bench/probes/irq/footprint_pmu.c) over the PMU register model: each level's
 * counter set resolves to the demand-only event on the CPU models whose tables have one (Intel
 * Skylake family; AMD Zen 4) and to the general miss event elsewhere (demand_only=0); the counted
 * event is what the model counts for a re-touch (PMCx043 without the local-L2 bit does not count
 * a fill from the L2); without a PMU the level is timed, and one skip per probe, set and reason
 * says why while every record names the set it went without. */
#include <stdlib.h>

#include "arch/cycles.h"
#include "arch/x86_64/pmu_regs.h"
#include "bench/probes/irq/footprint_pmu.h"
#include "lib/emit.h"
#include "tests/unit/pmu_model.h"
#include "tests/unit/test.h"

#define MAX_LINES 64
#define AMD_DMND_LOCAL_L2 0x01u  /* PMCx043 source: the local L2 */
#define AMD_DMND_LOCAL_CCX 0x02u /* PMCx043 source: the L3 or another L2 of the CCX */

static char lines[MAX_LINES][REC_MAX_LINE];
static unsigned nlines;
static struct pmu_model M;
static struct pmu_info P;
static struct config cfg;
static struct cpu_info ci;
static struct arena arena;
static struct probe_env env;
static struct fp_pmu fp;

static void sink(const char *line, unsigned len)
{
	if (nlines < MAX_LINES) {
		memcpy(lines[nlines], line, len);
		lines[nlines++][len] = '\0';
	}
}

static const char *find(const char *needle)
{
	for (unsigned i = 0; i < nlines; i++)
		if (strstr(lines[i], needle))
			return lines[i];
	return "";
}

static unsigned count(const char *needle)
{
	unsigned c = 0;

	for (unsigned i = 0; i < nlines; i++)
		c += strstr(lines[i], needle) != 0;
	return c;
}

static void env_init(void)
{
	static void *mem;

	if (!mem)
		mem = malloc(1 << 20);
	arena_init(&arena, mem, 1 << 20);
	config_defaults(&cfg);
	env = (struct probe_env){ .cfg = &cfg, .cpu = &ci, .arena = &arena, .timer_overhead = 40, .pmu = &P };
	tsc_init(false);
	nlines = 0;
	emit_init(sink);
}

static void intel(unsigned model)
{
	struct pmu_cpuid id = { 0 };

	ci = (struct cpu_info){ .is_intel = true, .family = 6, .model = model, .max_leaf = 0x16 };
	id.leaf_a[0] = 4 | 4u << 8 | 48u << 16 | 7u << 24;
	id.leaf_a[3] = 3 | 48u << 5;
	model_intel(&M, 4, 4, 48, 3, 48, true);
	pmu_discover(&P, &ci, &id, &M.ops);
	env_init();
}

static void amd(unsigned family, unsigned model, uint32_t fill_sources)
{
	struct pmu_cpuid id = { 0 };

	ci = (struct cpu_info){ .is_amd = true, .family = family, .model = model, .max_leaf = 0x10,
				.max_ext_leaf = 0x80000022u };
	id.ext1_ecx = 1u << 23; /* core performance counter extensions */
	model_amd(&M, PMU_AMD_CORE_EXT, 6);
	M.dmnd_fill_sources = fill_sources;
	pmu_discover(&P, &ci, &id, &M.ops);
	env_init();
}

static uint64_t empty(void *ctx, uint64_t iters)
{
	(void)ctx;
	(void)iters;
	return 1;
}

/* Resolve, begin and count one "re-touch" of level `level`; returns the delta. */
static uint64_t counted(unsigned level)
{
	uint64_t d;

	fp_pmu_begin(&env, &fp, level, false);
	if (!fp.counted)
		return 0;
	d = fp_pmu_count(&fp, empty, 0);
	fp_pmu_end(&fp);
	return d;
}

static void intel_skylake_demand_events(void)
{
	bool demand = false;

	intel(0x5E);
	CHECK_STR(fp_pmu_set(&P, 1, false, &demand), CTR_SET_FOOTPRINT_L1D);
	CHECK(demand);
	CHECK_STR(fp_pmu_set(&P, 2, false, &demand), CTR_SET_FOOTPRINT_L2);
	CHECK(demand);
	CHECK_STR(fp_pmu_set(&P, 1, true, &demand), CTR_SET_FOOTPRINT_L1I);
	CHECK(!demand);
	CHECK(counted(1) > 0);
	CHECK(fp.demand_only);
	CHECK_STR(fp.event, "l1d_demand_misses");
	CHECK_STR(fp.vendor, "MEM_LOAD_RETIRED.L1_MISS");
	CHECK_EQ_U64(fp.cr.plan.pass[0].c[0].config & 0xFFFF, 0x08D1);
	CHECK(counted(2) > 0);
	CHECK_STR(fp.event, "l2_demand_misses");
	CHECK_EQ_U64(fp.cr.plan.pass[0].c[0].config & 0xFFFF, 0x2124);
	/* the record says so */
	fp_pmu_begin(&env, &fp, 2, false);
	fp_pmu_fields(&fp, emit_start("probe"));
	emit_finish();
	fp_pmu_end(&fp);
	CHECK(strstr(find(" probe "), "method=pmu event=l2_demand_misses vendor_event=L2_RQSTS.DEMAND_DATA_RD_MISS "
				      "demand_only=1 prefetchers=on prefetchers_changed=0 ctr_set=footprint_l2") != 0);
	CHECK(strstr(find(" probe "), "ctr_events") == 0); /* the samples are the counts */
	CHECK_EQ_U64(count(" skip "), 0);
}

/* An Intel model without a family table: no demand-only event and no general miss event either
 * (the architectural events name no L1D/L2 miss): the level is timed and a skip says why. */
static void intel_unknown_model_falls_back(void)
{
	bool demand = true;

	intel(0x97);
	CHECK_STR(fp_pmu_set(&P, 1, false, &demand), CTR_SET_FOOTPRINT_L1D_ANY);
	CHECK(!demand);
	fp_pmu_begin(&env, &fp, 1, false);
	CHECK(!fp.counted);
	fp_pmu_fields(&fp, emit_start("probe"));
	emit_finish();
	fp_pmu_skips(&fp, 7);
	fp_pmu_skips(&fp, 8); /* once per level */
	CHECK(strstr(find(" probe "), "method=time prefetchers=on prefetchers_changed=0 ctr_skipped=footprint_l1d_any") != 0);
	CHECK_EQ_U64(count(" skip "), 2); /* the set, and the event with its reason */
	CHECK(strstr(find(" skip "), "probe=irq_footprint set=7 ctr_set=footprint_l1d_any events=l1d_misses") != 0);
	CHECK(strstr(find("event=l1d_misses reason="), "no%20such%20event") != 0);
}

static void amd_zen4_demand_fills(void)
{
	bool demand = false;

	/* family 19h model 11h (Genoa): amdzen4 in Linux's mapfile */
	amd(0x19, 0x11, AMD_DMND_LOCAL_L2);
	CHECK_STR(fp_pmu_set(&P, 1, false, &demand), CTR_SET_FOOTPRINT_L1D);
	CHECK(demand);
	CHECK(counted(1) > 0); /* a demand fill from the L2 is an L1D demand miss */
	CHECK_EQ_U64(fp.cr.plan.pass[0].c[0].config & 0xF0000FFFFull, 0xFF43);
	CHECK_STR(fp.vendor, "ls_dmnd_fills_from_sys.all (PMCx043)");
	CHECK_EQ_U64(counted(2), 0); /* ... but not an L2 miss */
	CHECK_EQ_U64(fp.cr.plan.pass[0].c[0].config & 0xF0000FFFFull, 0xFE43);
	CHECK(fp.demand_only);
	amd(0x19, 0x61, AMD_DMND_LOCAL_CCX); /* Raphael, fills from the L3: both levels missed */
	CHECK(counted(1) > 0);
	CHECK(counted(2) > 0);
	CHECK_STR(fp.event, "l2_demand_misses");
}

/* Zen 1..3 (and a Zen 3 model of family 19h): the general events, demand_only=0. */
static void amd_zen3_general_events(void)
{
	static const unsigned fm[][2] = { { 0x17, 0x31 }, { 0x19, 0x01 }, { 0x19, 0x21 }, { 0x19, 0x50 } };

	for (unsigned i = 0; i < sizeof(fm) / sizeof(fm[0]); i++) {
		bool demand = true;

		amd(fm[i][0], fm[i][1], AMD_DMND_LOCAL_CCX);
		CHECK_STR(fp_pmu_set(&P, 2, false, &demand), CTR_SET_FOOTPRINT_L2_ANY);
		CHECK(!demand);
		CHECK(counted(1) > 0);
		CHECK_STR(fp.event, "l1d_misses");
		CHECK(!fp.demand_only);
		CHECK_EQ_U64(fp.cr.plan.pass[0].c[0].config & 0xFFFF, 0xC860);
		CHECK(counted(2) > 0);
		CHECK_STR(fp.event, "l2_misses");
	}
}

/* QEMU TCG (no PMU) and pmu_events=none: timed; the skip only where counters were asked for. */
static void no_pmu_is_timed_with_one_skip(void)
{
	intel(0x5E);
	model_dead(&M);
	pmu_discover(&P, &ci, &(struct pmu_cpuid){ 0 }, &M.ops);
	env_init();
	fp_pmu_begin(&env, &fp, 1, false);
	CHECK(!fp.counted);
	fp_pmu_fields(&fp, emit_start("probe"));
	emit_finish();
	fp_pmu_skips(&fp, 0);
	fp_pmu_begin(&env, &fp, 1, false); /* the next level with the same set and reason */
	fp_pmu_skips(&fp, 5);
	CHECK(strstr(find(" probe "), "method=time prefetchers=on prefetchers_changed=0 ctr_skipped=footprint_l1d_any") != 0);
	CHECK_EQ_U64(count(" skip "), 1);
	CHECK(strstr(find(" skip "), "probe=irq_footprint set=0 ctr_set=footprint_l1d_any") != 0);
	env_init();
	str_copy(cfg.pmu_events, "none", sizeof(cfg.pmu_events));
	fp_pmu_begin(&env, &fp, 2, false);
	fp_pmu_fields(&fp, emit_start("probe"));
	emit_finish();
	fp_pmu_skips(&fp, 1);
	CHECK(strstr(find(" probe "), "method=time prefetchers=on prefetchers_changed=0") != 0);
	CHECK(strstr(find(" probe "), "ctr_") == 0);
	CHECK_EQ_U64(count(" skip "), 0);
}

/* A hypervisor refusing the event-select write: timed, the refusal is a skip with the reason. */
static void refused_counter_is_timed(void)
{
	intel(0x5E);
	model_refuse_write(&M, MSR_IA32_PERFEVTSEL0);
	fp_pmu_begin(&env, &fp, 1, false);
	CHECK(!fp.counted);
	CHECK(fp.refused != 0);
	fp_pmu_fields(&fp, emit_start("probe"));
	emit_finish();
	fp_pmu_skips(&fp, 3);
	CHECK(strstr(find(" probe "), "method=time ") != 0);
	CHECK(strstr(find(" probe "), "ctr_refused=l1d_demand_misses") != 0);
	CHECK(strstr(find(" skip "), "probe=irq_footprint set=3 ctr_set=footprint_l1d event=l1d_demand_misses reason=") != 0);
}

TEST_SUITE(fp_pmu) = {
	{ "intel_skylake_demand_events", intel_skylake_demand_events },
	{ "intel_unknown_model_falls_back", intel_unknown_model_falls_back },
	{ "amd_zen4_demand_fills", amd_zen4_demand_fills },
	{ "amd_zen3_general_events", amd_zen3_general_events },
	{ "no_pmu_is_timed_with_one_skip", no_pmu_is_timed_with_one_skip },
	{ "refused_counter_is_timed", refused_counter_is_timed },
	{ 0, 0 },
};
