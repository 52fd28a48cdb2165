/* The runner with counters attached (bench/core/runner.c + bench/core/counters.c) over the PMU register
 * model: every sample carries a delta per event, the probe record declares the set, events beyond
 * the counters become further passes, refused events and a missing PMU become skip records while
 * the timing samples stay exactly as without counters. */
#include <stdlib.h>

#include "arch/cycles.h"
#include "arch/x86_64/pmu_regs.h"
#include "bench/core/counters.h"
#include "bench/core/runner.h"
#include "lib/emit.h"
#include "tests/unit/pmu_model.h"
#include "tests/unit/test.h"

#define MAX_LINES 256

static char lines[MAX_LINES][REC_MAX_LINE];
static unsigned nlines;
static struct pmu_model M;
static struct pmu_info P;
static struct config cfg;
static struct cpu_info ci;
static struct arena arena;
static struct probe_env env;

static void sink(const char *line, unsigned len)
{
	if (nlines < MAX_LINES) {
		memcpy(lines[nlines], line, len);
		lines[nlines++][len] = '\0';
	}
}

/* Stand-ins for the two suite.c helpers the runner uses (suite.c drags in every probe). */
uint32_t probe_declare_set(struct probe_env *e, struct record **r, const char *name, uint64_t n,
			   uint64_t iters, uint64_t overhead)
{
	uint32_t set = e->next_set++;

	*r = emit_start("probe");
	rec_str(*r, "name", name);
	rec_u64(*r, "set", set);
	rec_u64(*r, "n", n);
	rec_u64(*r, "iters", iters);
	rec_u64(*r, "overhead", overhead);
	return set;
}

uint64_t *probe_sample_buffer(struct probe_env *e, uint64_t n)
{
	return arena_alloc(e->arena, n * sizeof(uint64_t), 64);
}

static void busy(void *arg, uint64_t iters)
{
	(void)arg;
	for (volatile uint64_t i = 0; i < iters; i++)
		;
}

static unsigned count(const char *needle)
{
	unsigned c = 0;

	for (unsigned i = 0; i < nlines; i++)
		c += strstr(lines[i], needle) != 0;
	return c;
}

static const char *find(const char *needle)
{
	for (unsigned i = 0; i < nlines; i++)
		if (strstr(lines[i], needle))
			return lines[i];
	return "";
}

static void setup(unsigned num_gp, bool pmu)
{
	static void *mem;
	struct pmu_cpuid id = { 0 };

	if (!mem)
		mem = malloc(8 << 20);
	arena_init(&arena, mem, 8 << 20);
	config_defaults(&cfg);
	cfg.samples = 5;
	ci = (struct cpu_info){ .is_intel = true, .family = 6, .model = 0x5E, .max_leaf = 0x16 };
	id.leaf_a[0] = 4 | num_gp << 8 | 48u << 16 | 7u << 24;
	id.leaf_a[3] = 3 | 48u << 5;
	id.leaf1_ecx = CPUID1_ECX_PDCM;
	id.leaf6_ecx = CPUID6_ECX_APERFMPERF;
	model_intel(&M, 4, num_gp, 48, 3, 48, true);
	model_add(&M, MSR_IA32_APERF, 0);
	model_add(&M, MSR_IA32_MPERF, 0);
	model_add(&M, MSR_RAPL_POWER_UNIT, 0xA1003);
	model_add(&M, MSR_PKG_ENERGY_STATUS, 12345); /* a running part: not 0 */
	if (!pmu)
		model_dead(&M);
	pmu_discover(&P, &ci, &id, &M.ops);
	env = (struct probe_env){ .cfg = &cfg, .cpu = &ci, .arena = &arena, .timer_overhead = 40,
				  .target_cycles = 2000, .pmu = &P };
	tsc_init(false);
	nlines = 0;
	emit_init(sink);
}

static void measure(const char *ctr_set)
{
	static const char *const params[] = { "what", "test", 0 };
	struct bench_op op = { .probe = "t", .run = busy, .params = params, .ctr_set = ctr_set };

	CHECK(runner_measure(&env, &op) == PROBE_OK);
}

static void every_sample_carries_deltas(void)
{
	setup(4, true);
	CHECK(P.present);
	measure(CTR_SET_BANDWIDTH);
	CHECK(strstr(find(" probe "), " ctr_set=bandwidth ctr_events=cycles,instructions,llc_misses,l1d_misses,"
				       "l2_misses,aperf,mperf,energy_pkg ctr_passes=1 ctr_refused=energy_dram ") != 0);
	CHECK_EQ_U64(count(" samples set=0 i=0 n=5 "), 1);
	/* one ctr record per event, aligned with the 5 samples, pass 0, overhead stated */
	CHECK_EQ_U64(count(" ctr set=0 event="), 8);
	CHECK_EQ_U64(count(" pass=0 overhead="), 8);
	CHECK_EQ_U64(count(" i=0 n=5 v="), 9);
	CHECK(strstr(find("event=cycles"), " wraps=0 i=0 n=5 v=") != 0);
	/* the refused event: one skip naming it, with the reason */
	CHECK(strstr(find(" skip "), "probe=t set=0 ctr_set=bandwidth event=energy_dram reason=no%20RAPL%20DRAM") != 0);
	/* measured again: the refusal is not repeated, the set is */
	measure(CTR_SET_BANDWIDTH);
	CHECK_EQ_U64(count(" skip "), 1);
	CHECK_EQ_U64(count(" ctr set=1 "), 8);
	/* the PMU is left stopped and the selects disabled */
	{
		uint64_t v = 1;

		model_get(&M, MSR_IA32_PERF_GLOBAL_CTRL, &v);
		CHECK_EQ_U64(v, 0);
		model_get(&M, MSR_IA32_PERFEVTSEL0, &v);
		CHECK_EQ_U64(v, 0);
	}
}

static void more_events_than_counters_repeat(void)
{
	setup(2, true);
	measure(CTR_SET_BANDWIDTH); /* llc, l1d, l2 on 2 counters: a second pass */
	CHECK(strstr(find(" probe "), " ctr_passes=2 ") != 0);
	CHECK_EQ_U64(count(" ctr set=0 event=tsc pass=1 overhead=40 "), 1);
	CHECK_EQ_U64(count(" event=l2_misses pass=1 "), 1);
	CHECK_EQ_U64(count(" pass=0 "), 7);
	CHECK_EQ_U64(count(" samples set=0 "), 1);
}

static void absent_pmu_skips_and_keeps_samples(void)
{
	setup(4, false); /* TCG-like: CPUID claims a PMU, nothing counts */
	CHECK(!P.present);
	measure(CTR_SET_SPIN);
	/* the probe record names the counter set it went without, and nothing else of counters */
	CHECK(strstr(find(" probe "), " ctr_skipped=spin ") != 0);
	CHECK(strstr(strstr(find(" probe "), "ctr_skipped") + 1, "ctr_") == 0);
	CHECK_EQ_U64(count(" samples set=0 i=0 n=5 "), 1);
	CHECK_EQ_U64(count(" ctr "), 0);
	CHECK(strstr(find(" skip "), "probe=t set=0 ctr_set=spin events=cycles,instructions reason=counter%20MSRs") != 0);
	nlines = 0;
	measure(CTR_SET_SPIN); /* the next set of the same probe: no second identical skip */
	CHECK_EQ_U64(count(" skip "), 0);
	CHECK(strstr(find(" probe "), " ctr_skipped=spin") != 0);

	str_copy(cfg.pmu_events, "none", sizeof(cfg.pmu_events));
	nlines = 0;
	measure(CTR_SET_SPIN);
	CHECK_EQ_U64(count(" skip "), 0); /* none asked for: nothing said */
	CHECK_EQ_U64(nlines, 2);

	str_copy(cfg.pmu_events, "branches,itlb_misses", sizeof(cfg.pmu_events));
	nlines = 0;
	measure(0); /* the configured list applies to every probe */
	CHECK(strstr(find(" skip "), "ctr_set=config events=branches,itlb_misses ") != 0);
}

/* A hypervisor refusing one event select: that event is a refused event with the reason, the
 * others are counted; no values are made up for it. */
static void refused_select_becomes_refused_event(void)
{
	setup(4, true);
	model_refuse_write(&M, MSR_IA32_PERFEVTSEL0 + 1); /* l1d_misses' counter */
	measure(CTR_SET_BANDWIDTH);
	CHECK(strstr(find(" probe "), " ctr_events=cycles,instructions,llc_misses,l2_misses,aperf,mperf,energy_pkg "
				       "ctr_passes=1 ctr_refused=energy_dram,l1d_misses ") != 0);
	CHECK_EQ_U64(count(" ctr set=0 event="), 7);
	CHECK_EQ_U64(count("event=l1d_misses pass="), 0);
	CHECK(strstr(find("event=l1d_misses reason="), "reason=the%20event%20select%20or%20counter%20refused") != 0);
	CHECK_EQ_U64(count(" samples set=0 i=0 n=5 "), 1);
}

/* rdpmc intercepted on the CPU that measures (an application processor, or a hypervisor that
 * changed its mind): the rdpmc counters become refused events, the MSR ones are still counted,
 * the samples stay. */
static void rdpmc_fault_mid_run(void)
{
	setup(4, true);
	CHECK(P.present);
	M.rdpmc_faults = true;
	measure(CTR_SET_BANDWIDTH);
	CHECK(strstr(find(" probe "), " ctr_events=aperf,mperf,energy_pkg ctr_passes=1 "
				       "ctr_refused=energy_dram,cycles,instructions,llc_misses,l1d_misses,l2_misses ") != 0);
	CHECK_EQ_U64(count(" ctr set=0 event="), 3);
	CHECK(strstr(find("event=cycles reason="), "reason=rdpmc%20faulted%20on%20this%20CPU") != 0);
	CHECK_EQ_U64(count(" samples set=0 i=0 n=5 "), 1);
}

/* APERF/MPERF and RAPL are counted where the core PMU is hidden (CPUID 0xA zero); the core events
 * are refused with the PMU's reason; a set of core events only is one skip with that reason. */
static void freerun_counted_without_core_pmu(void)
{
	struct pmu_cpuid id = { 0 };

	setup(4, true);
	id.leaf6_ecx = CPUID6_ECX_APERFMPERF;
	ci.hypervisor = true;
	pmu_discover(&P, &ci, &id, &M.ops);
	ci.hypervisor = false;
	CHECK(!P.present && P.aperf_mperf && P.rapl_pkg_msr);
	/* a configured list (refusals are reported once per probe, set and event: a set of its own) */
	str_copy(cfg.pmu_events, "cycles,aperf,mperf,energy_pkg", sizeof(cfg.pmu_events));
	measure(0);
	CHECK(strstr(find(" probe "), " ctr_events=aperf,mperf,energy_pkg ctr_passes=1 ctr_refused=cycles ") != 0);
	CHECK_EQ_U64(count(" ctr set=0 event="), 3);
	CHECK(strstr(find("event=cycles reason="), "reason=CPUID%200xA%20reports%20no%20counters") != 0);
	nlines = 0;
	str_copy(cfg.pmu_events, "auto", sizeof(cfg.pmu_events));
	measure(CTR_SET_SPIN);
	CHECK_EQ_U64(count(" ctr "), 0);
	CHECK(strstr(find(" skip "), "ctr_set=spin events=cycles,instructions reason=CPUID%200xA%20reports%20no%20counters") != 0);
}

static void latency_set_follows_the_level(void)
{
	struct cpu_info c = { 0 };

	c.num_caches = 3;
	c.caches[0] = (struct cache_desc){ .level = 1, .type = CACHE_DATA, .size = 32 << 10 };
	c.caches[1] = (struct cache_desc){ .level = 2, .type = CACHE_UNIFIED, .size = 1 << 20 };
	c.caches[2] = (struct cache_desc){ .level = 3, .type = CACHE_UNIFIED, .size = 32 << 20 };
	CHECK_STR(ctr_latency_set(&c, 16 << 10), CTR_SET_LATENCY_L1);
	CHECK_STR(ctr_latency_set(&c, 32 << 10), CTR_SET_LATENCY_L1);
	CHECK_STR(ctr_latency_set(&c, 512 << 10), CTR_SET_LATENCY_L2);
	CHECK_STR(ctr_latency_set(&c, 8 << 20), CTR_SET_LATENCY_L3);
	CHECK_STR(ctr_latency_set(&c, 64 << 20), CTR_SET_LATENCY_MEM);
	CHECK(strstr(ctr_set_events(CTR_SET_LATENCY_L2), "l1d_misses,l2_misses") != 0);
}

/* membw_mc's split (bench/probes/mem/membw_mc.c): RAPL's package energy is one counter for the
 * whole package (Intel SDM vol. 3B, "Platform Specific Power Management Support": MSR_PKG_ENERGY_STATUS
 * is package scope), so a core's set refuses it and the aggregate set counts only it; the order
 * membw_mc uses (aggregate begin, core begin, samples, core end, aggregate end) leaves the
 * core's counters counting. */
struct core_sample {
	struct ctr_run *core;
	uint64_t i;
};

static uint64_t timed_busy(void *arg, uint64_t iters)
{
	uint64_t t0 = cycles_begin();

	busy(arg, iters);
	return cycles_end() - t0;
}

static uint64_t core_inside(void *arg, uint64_t iters)
{
	struct core_sample *cs = arg;

	return ctr_sample(cs->core, 0, cs->i, timed_busy, 0, iters);
}

static void package_energy_on_the_aggregate_only(void)
{
	struct ctr_run core, all;
	struct core_sample cs = { &core, 0 };
	struct record *r;
	uint64_t v = 1;

	setup(4, true);
	CHECK(ctr_prepare_scoped(&core, &env, "membw_mc", CTR_SET_BANDWIDTH, 5, CTR_SCOPE_CORE) == 1);
	CHECK(ctr_prepare_scoped(&all, &env, "membw_mc", CTR_SET_BANDWIDTH, 5, CTR_SCOPE_PACKAGE) == 1);
	CHECK_EQ_U64(all.plan.pass[0].n, 1);
	CHECK_STR(all.plan.pass[0].c[0].name, "energy_pkg");
	r = emit_start("probe");
	ctr_describe(&core, r);
	emit_finish();
	/* energy_dram keeps the planner's reason (no DRAM domain here), energy_pkg is moved */
	CHECK(strstr(find(" probe "), " ctr_events=cycles,instructions,llc_misses,l1d_misses,l2_misses,aperf,mperf "
				       "ctr_passes=1 ctr_refused=energy_dram,energy_pkg") != 0);
	CHECK(strstr(core.plan.refused_why[1], "aggregate set (cpu=all)") != 0);
	ctr_pass_begin(&all, 0);
	ctr_pass_begin(&core, 0);
	for (cs.i = 0; cs.i < 5; cs.i++)
		(void)ctr_sample(&all, 0, cs.i, core_inside, &cs, 1000);
	ctr_pass_end(&core, 0);
	ctr_pass_end(&all, 0);
	CHECK(core.vals[0][0] > 0 && core.vals[0][4] > 0); /* cycles counted inside the aggregate's window */
	model_get(&M, MSR_IA32_PERF_GLOBAL_CTRL, &v);
	CHECK_EQ_U64(v, 0);

	/* a configured list: the aggregate takes its package events only; none, no request */
	str_copy(cfg.pmu_events, "cycles,energy_pkg", sizeof(cfg.pmu_events));
	CHECK(ctr_prepare_scoped(&all, &env, "membw_mc", CTR_SET_BANDWIDTH, 5, CTR_SCOPE_PACKAGE) == 1);
	CHECK_EQ_U64(all.plan.pass[0].n, 1);
	str_copy(cfg.pmu_events, "cycles,energy_dram", sizeof(cfg.pmu_events));
	CHECK(ctr_prepare_scoped(&all, &env, "membw_mc", CTR_SET_BANDWIDTH, 5, CTR_SCOPE_PACKAGE) == 0);
	CHECK(!all.requested);
	CHECK(ctr_prepare_scoped(&core, &env, "membw_mc", CTR_SET_BANDWIDTH, 5, CTR_SCOPE_CORE) == 1);
	CHECK_EQ_U64(core.plan.nrefused, 1); /* energy_dram: the planner's refusal, counted nowhere */
	CHECK(ctr_package_event("energy_core") && !ctr_package_event("aperf"));
}

/* A hybrid part (SDM vol. 2A: CPUID 07H EDX[15], 1AH EAX[31:24] 40H Core / 20H Atom), PMU
 * discovered on a P-core: a set run there is counted and its record says core_type=p; run on an
 * E-core (the PMU the plan was made for is not that core's) every counter is refused with the
 * reason, and the record says core_type=e. */
/* The boot processor: an Alder Lake P-core (its leaf 0xA says six counters, Linux adds two). */
static void setup_hybrid_p_core(void)
{
	struct pmu_cpuid id = { 0 };

	setup(8, true);
	ci.model = 0x97;
	ci.max_leaf = 0x23;
	id.leaf_a[0] = 4 | 6u << 8 | 48u << 16 | 7u << 24;
	id.leaf_a[3] = 3 | 48u << 5;
	id.leaf7_edx = 1u << 15;
	id.leaf1a_eax = 0x40u << 24;
	M.leaf1a_eax = id.leaf1a_eax;
	pmu_discover(&P, &ci, &id, &M.ops);
}

static void hybrid_set_says_its_core_type(void)
{
	setup_hybrid_p_core();
	CHECK(P.present);
	CHECK_EQ_U64(P.num_gp, 8);
	measure(CTR_SET_SPIN);
	CHECK(strstr(find(" probe "), " ctr_set=spin core_type=p ctr_events=cycles,instructions ") != 0);
	CHECK_EQ_U64(count(" skip "), 0);
	nlines = 0;
	M.leaf1a_eax = 0x20u << 24;
	measure(CTR_SET_SPIN);
	CHECK(strstr(find(" probe "), " ctr_set=spin core_type=e ") != 0);
	CHECK(strstr(find(" skip "), "event=cycles reason=this%20core's%20type%20differs") != 0);
}

/* On an E-core (leaf 1AH 20H, leaf 23H GP 0x3F, fixed 0x7), a set prepared with the description
 * discovered there (membw_mc's per-core sets) is programmed and counted, core_type=e; the same
 * set prepared with the P-core's description is refused on it. */
static void hybrid_set_on_its_own_core_description(void)
{
	static struct pmu_info e;
	struct ctr_run cr;

	setup_hybrid_p_core();
	model_intel(&M, 4, 6, 48, 3, 48, true); /* the code runs on an E-core from here */
	M.leaf7_edx = 1u << 15;
	M.leaf1a_eax = 0x20u << 24;
	M.leaf23[0] = 0x3;
	M.leaf23[1] = 0x3F;
	M.leaf23[2] = 0x7;
	pmu_discover_this_cpu(&e, &ci, &P);
	CHECK(e.present);
	CHECK_EQ_U64(ctr_prepare_scoped_on(&cr, &env, &e, "t", CTR_SET_SPIN, 5, CTR_SCOPE_CORE), 1);
	ctr_pass_begin(&cr, 0);
	CHECK_EQ_U64(cr.faults[0].mask, 0);
	CHECK_STR(cr.core_type ? cr.core_type : "(none)", "e");
	ctr_pass_end(&cr, 0);
	CHECK_EQ_U64(ctr_prepare_scoped(&cr, &env, "t", CTR_SET_SPIN, 5, CTR_SCOPE_CORE), 1);
	ctr_pass_begin(&cr, 0);
	CHECK_EQ_U64(cr.faults[0].mask, 0x3);
	ctr_pass_end(&cr, 0);
}

TEST_SUITE(counters) = {
	{ "every_sample_carries_deltas", every_sample_carries_deltas },
	{ "more_events_than_counters_repeat", more_events_than_counters_repeat },
	{ "absent_pmu_skips_and_keeps_samples", absent_pmu_skips_and_keeps_samples },
	{ "refused_select_becomes_refused_event", refused_select_becomes_refused_event },
	{ "rdpmc_fault_mid_run", rdpmc_fault_mid_run },
	{ "freerun_counted_without_core_pmu", freerun_counted_without_core_pmu },
	{ "latency_set_follows_the_level", latency_set_follows_the_level },
	{ "package_energy_on_the_aggregate_only", package_energy_on_the_aggregate_only },
	{ "hybrid_set_says_its_core_type", hybrid_set_says_its_core_type },
	{ "hybrid_set_on_its_own_core_description", hybrid_set_on_its_own_core_description },
	{ 0, 0 },
};
