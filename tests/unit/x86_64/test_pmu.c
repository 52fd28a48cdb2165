/* PMU programming against the register model (pmu_model.c): discovery from CPUID words for Intel
 * PMU v1..v5 and AMD legacy / core-extension / PerfMonV2, the exact MSR writes of programming
 * (event-select bit layout per the SDM and the PPR), enable and disable order, fenced reads and
 * the fixed-counter rdpmc range, wrap and overflow handling, passes when events outnumber
 * counters, and the refusal of events a model does not have. Expected register values are written
 * out as literals, independently of pmu_regs.h. */
#include "arch/pmu.h"
#include "bench/core/options.h"
#include "pmu_events_tables.h" /* generated (build/gen): the tables by name */
#include "tests/unit/pmu_model.h"
#include "tests/unit/test.h"

static struct pmu_model M;
static struct pmu_info P;

/* CPUID 0xA for an Intel model: EAX version/GP/width/EBX length 7, EDX fixed count/width. */
static struct pmu_cpuid intel_cpuid(unsigned version, unsigned gp, unsigned gp_width, unsigned fixed,
				    unsigned fixed_width, uint32_t ebx_unavailable, bool pdcm)
{
	struct pmu_cpuid id = { 0 };

	id.leaf_a[0] = version | gp << 8 | gp_width << 16 | 7u << 24;
	id.leaf_a[1] = ebx_unavailable;
	id.leaf_a[3] = fixed | fixed_width << 5;
	id.leaf1_ecx = pdcm ? 1u << 15 : 0;
	return id;
}

static void setup_intel(unsigned version, unsigned gp, unsigned fixed, bool fw, unsigned model)
{
	struct cpu_info ci = model_cpu(true, 6, model);
	struct pmu_cpuid id = intel_cpuid(version, gp, 48, fixed, 48, 0, fw);

	model_intel(&M, version, gp, 48, fixed, 48, fw);
	pmu_discover(&P, &ci, &id, &M.ops);
	model_clear_log(&M);
}

static void setup_amd(enum pmu_kind kind, unsigned family)
{
	struct cpu_info ci = model_cpu(false, family, 1);
	struct pmu_cpuid id = { 0 };

	if (kind == PMU_AMD_V2) {
		id.ext22[0] = 1;
		id.ext22[1] = 6;
	}
	if (kind != PMU_AMD_LEGACY)
		id.ext1_ecx = 1u << 23;
	model_amd(&M, kind, 6);
	pmu_discover(&P, &ci, &id, &M.ops);
	model_clear_log(&M);
}

static unsigned plan(const char *const *names, unsigned n, struct pmu_plan *pl)
{
	return pmu_plan_events(&P, names, n, pl);
}

static void intel_discovery_v2_to_v5(void)
{
	struct cpu_info ci = model_cpu(true, 6, 0x5E);
	struct pmu_cpuid id = intel_cpuid(2, 2, 40, 3, 40, 0, false);

	model_intel(&M, 2, 2, 40, 3, 40, false);
	pmu_discover(&P, &ci, &id, &M.ops);
	CHECK(P.present && P.kind == PMU_INTEL && P.version == 2);
	CHECK_EQ_U64(P.num_gp, 2);
	CHECK_EQ_U64(P.gp_width, 40);
	CHECK_EQ_U64(P.num_fixed, 3);
	CHECK_EQ_U64(P.fixed_avail, 7);
	CHECK(P.global_ctrl && !P.status_reset && !P.full_width);
	CHECK_EQ_U64(P.arch_events, 0x7F);

	id = intel_cpuid(4, 4, 48, 3, 48, 1u << 4, true); /* v4, LLC misses marked unavailable */
	model_intel(&M, 4, 4, 48, 3, 48, true);
	pmu_discover(&P, &ci, &id, &M.ops);
	CHECK(P.present && P.version == 4 && P.status_reset && P.full_width);
	CHECK_EQ_U64(P.arch_events, 0x6F);

	/* v5: EDX says no fixed counters in the contiguous range, ECX's bitmap adds counter 2 */
	id = intel_cpuid(5, 8, 48, 0, 48, 0, true);
	id.leaf_a[2] = 1u << 2;
	model_intel(&M, 5, 8, 48, 3, 48, true);
	pmu_discover(&P, &ci, &id, &M.ops);
	CHECK(P.present && P.version == 5);
	CHECK_EQ_U64(P.fixed_avail, 4);
	CHECK_EQ_U64(P.num_gp, 8);
}

static void intel_absent_and_emulated(void)
{
	struct cpu_info ci = model_cpu(true, 6, 0x5E);
	struct pmu_cpuid id = { 0 };
	static const struct pmu_ops refusing = { 0, 0, 0, 0, "hosted build: counters need ring 0 (perf_event serves only pmu_check)", 0 };

	ci.hypervisor = true;
	model_intel(&M, 2, 4, 48, 3, 48, false);
	pmu_discover(&P, &ci, &id, &M.ops);
	CHECK(!P.present);
	CHECK_STR(P.reason, "CPUID 0xA reports no counters (hypervisor hides the PMU)");
	CHECK_EQ_U64(M.nwrites, 0); /* nothing touched */

	/* QEMU TCG with a CPUID that claims a PMU: MSRs read 0 and ignore writes -> absent; the
	 * liveness check used rdmsr only; the one fault-safe rdpmc of discovery faulted (#UD there) */
	id = intel_cpuid(2, 4, 48, 3, 48, 0, false);
	model_intel(&M, 2, 4, 48, 3, 48, false);
	model_dead(&M);
	pmu_discover(&P, &ci, &id, &M.ops);
	CHECK(!P.present);
	CHECK(strstr(P.reason, "do not count") != 0);
	CHECK_EQ_U64(M.nrdpmc, 1);
	CHECK_STR(P.rdpmc, "faults");

	pmu_discover(&P, &ci, &id, &refusing);
	CHECK(!P.present);
	CHECK_STR(P.reason, "hosted build: counters need ring 0 (perf_event serves only pmu_check)");
	CHECK_EQ_U64(P.version, 2); /* the CPUID facts are still reported */
}

static void intel_v4_program_exact_writes(void)
{
	static const char *const names[] = { "cycles", "instructions", "llc_misses", "l1d_misses" };
	struct pmu_plan pl;

	setup_intel(4, 4, 3, true, 0x5E);
	CHECK_EQ_U64(plan(names, 4, &pl), 1);
	CHECK_EQ_U64(pl.nrefused, 0);
	CHECK(pl.pass[0].c[0].kind == PMU_CTR_FIXED && pl.pass[0].c[0].idx == 1);
	CHECK(pl.pass[0].c[1].kind == PMU_CTR_FIXED && pl.pass[0].c[1].idx == 0);
	CHECK(pl.pass[0].c[2].kind == PMU_CTR_GP && pl.pass[0].c[2].idx == 0);
	CHECK(pl.pass[0].c[3].kind == PMU_CTR_GP && pl.pass[0].c[3].idx == 1);

	pmu_program(&P, &pl.pass[0], 0);
	CHECK_EQ_U64(M.nwrites, 11);
	CHECK_MODEL_WRITE(&M, 0, 0x38F, 0);                  /* global control off first */
	CHECK_MODEL_WRITE(&M, 1, 0x30A, 0);                  /* fixed counter 1 (core cycles) zeroed */
	CHECK_MODEL_WRITE(&M, 2, 0x309, 0);                  /* fixed counter 0 (instructions) zeroed */
	CHECK_MODEL_WRITE(&M, 3, 0x186, 0);                  /* PERFEVTSEL0 disabled */
	CHECK_MODEL_WRITE(&M, 4, 0x4C1, 0);                  /* full-width PMC0 alias zeroed */
	CHECK_MODEL_WRITE(&M, 5, 0x186, 0x42412E);           /* LLC misses: 2E/41, OS, EN */
	CHECK_MODEL_WRITE(&M, 6, 0x187, 0);
	CHECK_MODEL_WRITE(&M, 7, 0x4C2, 0);
	CHECK_MODEL_WRITE(&M, 8, 0x187, 0x420151);           /* L1D.REPLACEMENT: 51/01, OS, EN */
	CHECK_MODEL_WRITE(&M, 9, 0x38D, 0x11);               /* fixed 0 and 1: OS only */
	CHECK_MODEL_WRITE(&M, 10, 0x390, 0x8000000300000003ull); /* STATUS_RESET: the group and CondChgd */

	pmu_start(&P, &pl.pass[0], 0);
	CHECK_MODEL_WRITE(&M, 11, 0x38F, 0x300000003ull);
	{
		uint64_t a[4], b[4];

		pmu_read(&P, &pl.pass[0], a);
		pmu_read(&P, &pl.pass[0], b);
		CHECK_EQ_U64(M.rdpmc_idx[0], 0x40000001u); /* fixed counters via bit 30 */
		CHECK_EQ_U64(M.rdpmc_idx[1], 0x40000000u);
		CHECK_EQ_U64(M.rdpmc_idx[2], 0);
		CHECK_EQ_U64(M.rdpmc_idx[3], 1);
		for (int i = 0; i < 4; i++)
			CHECK(pmu_delta(a[i], b[i], pl.pass[0].c[i].mask) > 0);
	}
	CHECK_EQ_U64(pmu_stop(&P, &pl.pass[0]), 0);
	CHECK_MODEL_WRITE(&M, 12, 0x38F, 0);
	pmu_release(&P, &pl.pass[0]);
	CHECK_MODEL_WRITE(&M, 13, 0x38F, 0);
	CHECK_MODEL_WRITE(&M, 14, 0x186, 0);
	CHECK_MODEL_WRITE(&M, 15, 0x187, 0);
	CHECK_MODEL_WRITE(&M, 16, 0x38D, 0);
}

static void intel_v2_legacy_counter_writes(void)
{
	static const char *const names[] = { "branches" };
	struct pmu_plan pl;

	setup_intel(2, 2, 3, false, 0x3A); /* no PDCM: 32-bit writes at IA32_PMCx */
	plan(names, 1, &pl);
	pmu_program(&P, &pl.pass[0], 0);
	CHECK_MODEL_WRITE(&M, 0, 0x38F, 0);
	CHECK_MODEL_WRITE(&M, 1, 0x186, 0);
	CHECK_MODEL_WRITE(&M, 2, 0xC1, 0);
	CHECK_MODEL_WRITE(&M, 3, 0x186, 0x4200C4);
	CHECK_MODEL_WRITE(&M, 4, 0x390, 0x8000000000000001ull); /* GLOBAL_OVF_CTRL on v2 */
}

static void intel_v1_enable_bits(void)
{
	static const char *const names[] = { "instructions" };
	struct pmu_plan pl;

	setup_intel(1, 2, 0, false, 0x17);
	CHECK(P.present && !P.global_ctrl && !P.fixed_avail);
	plan(names, 1, &pl);
	CHECK(pl.pass[0].c[0].kind == PMU_CTR_GP); /* no fixed counters on v1 */
	pmu_program(&P, &pl.pass[0], 0);
	pmu_start(&P, &pl.pass[0], 0);
	pmu_stop(&P, &pl.pass[0]);
	CHECK_EQ_U64(M.nwrites, 5);
	CHECK_MODEL_WRITE(&M, 0, 0x186, 0);
	CHECK_MODEL_WRITE(&M, 1, 0xC1, 0);
	CHECK_MODEL_WRITE(&M, 2, 0x186, 0x200C0);  /* programmed without EN */
	CHECK_MODEL_WRITE(&M, 3, 0x186, 0x4200C0); /* start: EN */
	CHECK_MODEL_WRITE(&M, 4, 0x186, 0x200C0);  /* stop: EN cleared */
}

static void event_select_bit_layout(void)
{
	struct pmu_event ev = { "x", 0xA3, 0x04, 4, PMU_EV_INV | PMU_EV_EDGE, PMU_NO_FIXED, PMU_NO_ARCH_BIT, "" };
	struct pmu_event amd_hi = { "y", 0x1C0, 0x02, 0, 0, PMU_NO_FIXED, PMU_NO_ARCH_BIT, "" };

	/* cmask 31:24, INV 23, EDGE 18, OS 17, umask 15:8, event 7:0; never USR (16), INT (20), ANY (21) */
	CHECK_EQ_U64(pmu_intel_evtsel(&ev), 0x04860000ull | 0x04A3);
	/* AMD: EventSelect[11:8] at 35:32, HG-only bits 41:40 left 0 */
	CHECK_EQ_U64(pmu_amd_evtsel(&amd_hi), 0x1000202C0ull);
	CHECK_EQ_U64(pmu_amd_evtsel(&ev), 0x04860000ull | 0x04A3);
}

static void intel_refuses_what_it_lacks(void)
{
	static const char *const names[] = { "l1d_misses", "llc_misses", "bogus", "cycles", "cycles", "energy_dram" };
	struct cpu_info ci = model_cpu(true, 6, 0x3A); /* Ivy Bridge: no family table here */
	struct pmu_cpuid id = intel_cpuid(3, 4, 48, 3, 48, 1u << 4, false);
	struct pmu_plan pl;

	model_intel(&M, 3, 4, 48, 3, 48, false);
	pmu_discover(&P, &ci, &id, &M.ops);
	plan(names, 6, &pl);
	CHECK_EQ_U64(pl.nrefused, 4);
	CHECK_STR(pl.refused[0], "l1d_misses");
	CHECK_STR(pl.refused_why[0], "no such event in this CPU model's event tables");
	CHECK_STR(pl.refused[1], "llc_misses");
	CHECK_STR(pl.refused_why[1], "CPUID 0xA marks this architectural event unavailable");
	CHECK_STR(pl.refused[2], "bogus");
	CHECK_STR(pl.refused[3], "energy_dram");
	CHECK_EQ_U64(pl.npasses, 1);
	CHECK_EQ_U64(pl.pass[0].n, 1); /* cycles once: the duplicate is dropped */
}

static void more_events_than_counters_make_passes(void)
{
	static const char *const names[] = { "llc_references", "llc_misses", "branches", "branch_misses",
					     "l1d_misses", "cycles", "ref_cycles" };
	static const char *const many[] = { "llc_references", "llc_misses", "branches", "branch_misses",
					    "l1d_misses", "l1i_misses", "l2_misses", "dtlb_misses", "itlb_misses",
					    "stall_cycles" };
	struct pmu_plan pl;

	setup_intel(3, 2, 3, false, 0x4E);
	CHECK_EQ_U64(plan(names, 7, &pl), 3);
	CHECK_EQ_U64(pl.pass[0].n, 4); /* 2 GP + both fixed-capable events */
	CHECK_EQ_U64(pl.pass[1].n, 2);
	CHECK_EQ_U64(pl.pass[2].n, 1);
	CHECK_STR(pl.pass[2].c[0].name, "l1d_misses");

	setup_intel(2, 1, 0, false, 0x4E); /* one counter: 8 passes at most */
	CHECK_EQ_U64(plan(many, 10, &pl), PMU_MAX_PASSES);
	CHECK_EQ_U64(pl.nrefused, 2);
	CHECK_STR(pl.refused_why[0], "more events than counters in every pass");
}

static void wrap_and_overflow(void)
{
	static const char *const names[] = { "branch_misses" };
	struct pmu_plan pl;
	uint64_t a, b;

	setup_intel(4, 4, 3, true, 0x5E);
	plan(names, 1, &pl);
	CHECK_EQ_U64(pl.pass[0].c[0].mask, (1ull << 48) - 1);
	pmu_program(&P, &pl.pass[0], 0);
	model_set(&M, 0xC1, (1ull << 48) - 1500); /* about to wrap */
	pmu_start(&P, &pl.pass[0], 0);
	pmu_read(&P, &pl.pass[0], &a);
	pmu_read(&P, &pl.pass[0], &b);
	CHECK(b < a);                              /* the raw value wrapped ... */
	CHECK_EQ_U64(pmu_delta(a, b, pl.pass[0].c[0].mask), 1000); /* ... the delta did not */
	CHECK_EQ_U64(pmu_stop(&P, &pl.pass[0]), 1); /* overflow bit of PMC0 reported */
	CHECK_MODEL_WRITE(&M, M.nwrites - 1, 0x390, 1);     /* and cleared through STATUS_RESET */
	{
		uint64_t st = 1;

		model_get(&M, 0x38E, &st);
		CHECK_EQ_U64(st, 0);
	}
	CHECK_EQ_U64(pmu_delta(10, 5, 0xFFFFFFFFull), 0xFFFFFFFBull); /* 32-bit energy counter wrap */
}

static void amd_legacy_exact_writes(void)
{
	static const char *const names[] = { "instructions", "cycles" };
	struct pmu_plan pl;

	setup_amd(PMU_AMD_LEGACY, 0x15);
	CHECK(P.present && P.kind == PMU_AMD_LEGACY && P.num_gp == 4 && P.gp_width == 48 && !P.global_ctrl);
	plan(names, 2, &pl);
	pmu_program(&P, &pl.pass[0], 0);
	pmu_start(&P, &pl.pass[0], 0);
	{
		uint64_t v[2];

		pmu_read(&P, &pl.pass[0], v);
		CHECK_EQ_U64(M.rdpmc_idx[0], 0);
		CHECK_EQ_U64(M.rdpmc_idx[1], 1);
	}
	CHECK_EQ_U64(pmu_stop(&P, &pl.pass[0]), 0);
	CHECK_EQ_U64(M.nwrites, 10);
	CHECK_MODEL_WRITE(&M, 0, 0xC0010000u, 0);
	CHECK_MODEL_WRITE(&M, 1, 0xC0010004u, 0);
	CHECK_MODEL_WRITE(&M, 2, 0xC0010000u, 0x200C0);   /* retired instructions, OS, not yet enabled */
	CHECK_MODEL_WRITE(&M, 3, 0xC0010001u, 0);
	CHECK_MODEL_WRITE(&M, 4, 0xC0010005u, 0);
	CHECK_MODEL_WRITE(&M, 5, 0xC0010001u, 0x20076);   /* cycles not halted */
	CHECK_MODEL_WRITE(&M, 6, 0xC0010000u, 0x4200C0);  /* start: enable each */
	CHECK_MODEL_WRITE(&M, 7, 0xC0010001u, 0x420076);
	CHECK_MODEL_WRITE(&M, 8, 0xC0010000u, 0x200C0);   /* stop: disable each */
	CHECK_MODEL_WRITE(&M, 9, 0xC0010001u, 0x20076);
}

static void amd_core_ext_zen_events(void)
{
	static const char *const names[] = { "l1d_misses", "l2_misses", "dtlb_misses", "llc_misses", "ref_cycles" };
	struct pmu_plan pl;

	setup_amd(PMU_AMD_CORE_EXT, 0x17);
	CHECK(P.present && P.kind == PMU_AMD_CORE_EXT && P.num_gp == 6);
	plan(names, 5, &pl);
	CHECK_EQ_U64(pl.nrefused, 2); /* the L3 and reference cycles are not core-PMU events on AMD */
	CHECK_STR(pl.refused[0], "llc_misses");
	CHECK_STR(pl.refused[1], "ref_cycles");
	pmu_program(&P, &pl.pass[0], 0);
	CHECK_MODEL_WRITE(&M, 0, 0xC0010200u, 0);
	CHECK_MODEL_WRITE(&M, 1, 0xC0010201u, 0);
	CHECK_MODEL_WRITE(&M, 2, 0xC0010200u, 0x2C860);   /* PMCx060 umask C8 */
	CHECK_MODEL_WRITE(&M, 5, 0xC0010202u, 0x20964);   /* PMCx064 umask 09, second counter at +2 */
	CHECK_MODEL_WRITE(&M, 8, 0xC0010204u, 0x2F045);
}

static void amd_perfmon_v2_global_order(void)
{
	static const char *const names[] = { "cycles", "instructions", "branches" };
	struct pmu_plan pl;

	setup_amd(PMU_AMD_V2, 0x19);
	CHECK(P.present && P.kind == PMU_AMD_V2 && P.global_ctrl && P.num_gp == 6);
	plan(names, 3, &pl);
	pmu_program(&P, &pl.pass[0], 0);
	CHECK_MODEL_WRITE(&M, 0, 0xC0000301u, 0);         /* PerfCntrGlobalCtl off first */
	CHECK_MODEL_WRITE(&M, 3, 0xC0010200u, 0x420076);  /* enabled select: the global control gates it */
	CHECK_MODEL_WRITE(&M, 9, 0xC0010204u, 0x4200C2);  /* third counter: branches */
	CHECK_MODEL_WRITE(&M, 10, 0xC0000302u, 7);        /* StatusClr of the group */
	pmu_start(&P, &pl.pass[0], 0);
	CHECK_MODEL_WRITE(&M, 11, 0xC0000301u, 7);
	model_set(&M, 0xC0000300u, 5);          /* pretend counters 0 and 2 overflowed */
	CHECK_EQ_U64(pmu_stop(&P, &pl.pass[0]), 5);
	CHECK_MODEL_WRITE(&M, 12, 0xC0000301u, 0);
	CHECK_MODEL_WRITE(&M, 13, 0xC0000302u, 5);
}

static void free_running_counters(void)
{
	static const char *const names[] = { "aperf", "mperf", "energy_pkg", "energy_dram", "cycles" };
	struct cpu_info ci = model_cpu(true, 6, 0x55);
	struct pmu_cpuid id = intel_cpuid(4, 4, 48, 3, 48, 0, true);
	struct pmu_plan pl;
	uint64_t v[5];

	id.leaf6_ecx = 1;
	model_intel(&M, 4, 4, 48, 3, 48, true);
	model_add(&M, 0xE7, 100);
	model_add(&M, 0xE8, 90);
	model_add(&M, 0x606, 0xA1003);         /* ESU = 16: 15.3 uJ */
	model_add(&M, 0x611, 12345);
	model_add(&M, 0x619, 678);
	pmu_discover(&P, &ci, &id, &M.ops);
	CHECK(P.aperf_mperf && P.rapl);
	CHECK_EQ_U64(P.rapl_esu, 16);
	CHECK_EQ_U64(P.rapl_pkg_msr, 0x611);
	CHECK_EQ_U64(P.rapl_dram_msr, 0x619);
	plan(names, 5, &pl);
	CHECK_EQ_U64(pl.npasses, 1);
	CHECK_EQ_U64(pl.pass[0].n, 5);
	CHECK(pl.pass[0].c[2].kind == PMU_CTR_MSR && pl.pass[0].c[2].mask == 0xFFFFFFFFull);
	pmu_read(&P, &pl.pass[0], v);
	CHECK_EQ_U64(v[0], 90);
	CHECK_EQ_U64(v[3], 678);

	/* AMD: RAPL from CPUID 0x80000007 EDX[14], no DRAM domain */
	ci = model_cpu(false, 0x19, 1);
	id = (struct pmu_cpuid){ 0 };
	id.ext1_ecx = 1u << 23;
	id.ext7_edx = 1u << 14;
	model_amd(&M, PMU_AMD_CORE_EXT, 6);
	model_add(&M, 0xC0010299u, 0xA1003);
	model_add(&M, 0xC001029Bu, 1);
	model_add(&M, 0xC001029Au, 1);
	pmu_discover(&P, &ci, &id, &M.ops);
	CHECK(P.rapl && P.rapl_pkg_msr == 0xC001029Bu && P.rapl_core_msr == 0xC001029Au && !P.rapl_dram_msr);
	CHECK(!P.aperf_mperf);
	plan(names, 5, &pl);
	CHECK_EQ_U64(pl.nrefused, 3); /* aperf, mperf, energy_dram */
}

/* Every event name in the tables is in the configuration vocabulary (pmu_events= accepts it). */
static void tables_match_config_vocabulary(void)
{
	const struct pmu_event_table *tables[] = { &pmu_intel_arch_events, &pmu_intel_skylake_events,
						   &pmu_amd_core_events, &pmu_amd_zen_events, &pmu_amd_zen4_events };

	for (unsigned t = 0; t < sizeof(tables) / sizeof(tables[0]); t++)
		for (unsigned i = 0; i < tables[t]->n; i++) {
			bool found = false;

			for (const char *const *n = config_pmu_event_names; *n; n++)
				found |= strcmp(*n, pmu_table_event(tables[t], i)->name) == 0;
			if (!found)
				test_note("%s not in config_pmu_event_names", pmu_table_event(tables[t], i)->name);
			CHECK(found);
		}
}

/* Family 19h: Linux's tools/perf/pmu-events/arch/x86/mapfile.csv maps
 * "AuthenticAMD-25-([245][[:xdigit:]]|[[:xdigit:]])" to amdzen3 and the rest of family 25 to
 * amdzen4, the model printed "%X" and the whole of it matched (tools/perf/arch/x86/util/header.c):
 * 0x3X has two digits, the first not in the set [245], so it is amdzen4. */
static void amd_family_19h_models(void)
{
	static const unsigned zen3[] = { 0x00, 0x01, 0x08, 0x0F, 0x20, 0x21, 0x2F, 0x40, 0x44, 0x4F, 0x50, 0x5F };
	static const unsigned zen4[] = { 0x10, 0x11, 0x1F, 0x30, 0x31, 0x3F, 0x60, 0x61, 0x74, 0x78, 0xA0, 0xFF };

	for (unsigned i = 0; i < sizeof(zen3) / sizeof(zen3[0]); i++)
		CHECK(pmu_family_events(false, true, 0x19, zen3[i], PMU_CORE_NONE) == &pmu_amd_zen_events);
	for (unsigned i = 0; i < sizeof(zen4) / sizeof(zen4[0]); i++) {
		if (pmu_family_events(false, true, 0x19, zen4[i], PMU_CORE_NONE) != &pmu_amd_zen4_events)
			test_note("model 0x%x not amdzen4", zen4[i]);
		CHECK(pmu_family_events(false, true, 0x19, zen4[i], PMU_CORE_NONE) == &pmu_amd_zen4_events);
	}
	CHECK(pmu_family_events(false, true, 0x17, 0x31, PMU_CORE_NONE) == &pmu_amd_zen_events); /* family 17h: Zen 1/2 */
}

TEST_SUITE(pmu) = {
	{ "intel_discovery_v2_to_v5", intel_discovery_v2_to_v5 },
	{ "intel_absent_and_emulated", intel_absent_and_emulated },
	{ "intel_v4_program_exact_writes", intel_v4_program_exact_writes },
	{ "intel_v2_legacy_counter_writes", intel_v2_legacy_counter_writes },
	{ "intel_v1_enable_bits", intel_v1_enable_bits },
	{ "event_select_bit_layout", event_select_bit_layout },
	{ "intel_refuses_what_it_lacks", intel_refuses_what_it_lacks },
	{ "more_events_than_counters_make_passes", more_events_than_counters_make_passes },
	{ "wrap_and_overflow", wrap_and_overflow },
	{ "amd_legacy_exact_writes", amd_legacy_exact_writes },
	{ "amd_core_ext_zen_events", amd_core_ext_zen_events },
	{ "amd_perfmon_v2_global_order", amd_perfmon_v2_global_order },
	{ "free_running_counters", free_running_counters },
	{ "tables_match_config_vocabulary", tables_match_config_vocabulary },
	{ "amd_family_19h_models", amd_family_19h_models },
	{ 0, 0 },
};
