/* PMU semantics the vendors document, against the register model (pmu_model.c): the RAPL DRAM
 * unit of the Intel servers and zero-reading RAPL domains (Linux rapl.c / perf_msr_probe),
 * reference cycles only on fixed counter 2, the Zen ITLB-walk unit mask, AMD DE_CFG's lfence bit,
 * Intel FREEZE_WHILE_SMM, refused writes and intercepted rdpmc, the self-test exercising what the
 * probes use, free-running counters without a core PMU, and the pmu_check verdict. Register
 * numbers and values are literals, independently of pmu_regs.h. */
#include <stdio.h>
#include <stdlib.h>

#include "arch/pmu.h"
#include "bench/stats/pmu_check.h"
#include "tests/unit/pmu_model.h"
#include "tests/unit/test.h"

static struct pmu_model M;
static struct pmu_info P;

#define Q32_1J (1ull << 32) /* one joule in the model's 2^-32 J units */

/* CPUID of an Intel v4 PMU, 4 GP and 3 fixed counters of 48 bits, PDCM, APERF/MPERF. */
static struct pmu_cpuid intel_id(void)
{
	struct pmu_cpuid id = { 0 };

	id.leaf_a[0] = 4 | 4u << 8 | 48u << 16 | 7u << 24;
	id.leaf_a[3] = 3 | 48u << 5;
	id.leaf1_ecx = 1u << 15;
	id.leaf6_ecx = 1;
	return id;
}

static void intel_model(unsigned model_nr)
{
	struct cpu_info ci = model_cpu(true, 6, model_nr);
	struct pmu_cpuid id = intel_id();

	pmu_discover(&P, &ci, &id, &M.ops);
}

/* A refusal reason, or "" (a missing refusal fails the comparison instead of crashing). */
static const char *why0(const struct pmu_plan *pl)
{
	return pl->nrefused && pl->refused_why[0] ? pl->refused_why[0] : "";
}

static uint32_t plan_one(const char *name, struct pmu_plan *pl)
{
	pmu_plan_events(&P, &name, 1, pl);
	return pl->npasses;
}

/* ---- 1. DRAM energy unit ---------------------------------------------------------------------- */

/* Energy (2^-32 J) the counter delta stands for, at the unit discovery chose. */
static uint64_t dram_joules_q32(uint64_t *truth)
{
	struct pmu_plan pl;
	uint64_t a, b, e0;

	if (!plan_one("energy_dram", &pl) || pl.pass[0].n != 1)
		return 0;
	pmu_read(&P, &pl.pass[0], &a);
	e0 = M.dram_q32;
	for (int i = 0; i < 7; i++) /* time passes: every access is a tick of the model */
		(void)M.ops.rdmsr(M.ops.ctx, 0x611, &b);
	pmu_read(&P, &pl.pass[0], &b);
	*truth = M.dram_q32 - e0;
	return pmu_delta(a, b, pl.pass[0].c[0].mask) << (32 - P.rapl_dram_esu);
}

static void rapl_dram_unit_on_servers(void)
{
	/* Skylake-SP/Cascade/Cooper Lake, Ice Lake-SP and -D, Haswell-X: unit register ESU 14, DRAM 2^-16 J */
	static const unsigned servers[] = { 0x55, 0x6A, 0x6C, 0x3F, 0x4F, 0x56, 0x57, 0x85 };
	uint64_t truth = 0, got;

	for (unsigned i = 0; i < sizeof(servers) / sizeof(servers[0]); i++) {
		model_intel(&M, 4, 4, 48, 3, 48, true);
		model_rapl_intel(&M, 14, 16, Q32_1J, Q32_1J / 4);
		intel_model(servers[i]);
		CHECK(P.rapl && P.rapl_dram_msr == 0x619);
		CHECK_EQ_U64(P.rapl_esu, 14);
		CHECK_EQ_U64(P.rapl_dram_esu, 16);
		got = dram_joules_q32(&truth);
		CHECK(truth > 0);
		CHECK_EQ_U64(got, truth); /* scaled by 2^-14 it would read 4x too high */
	}
	/* A client part with a DRAM domain in the unit register's unit, and Sapphire Rapids (Linux:
	 * model_spr, no DRAM quirk): the unit register's ESU applies */
	model_intel(&M, 4, 4, 48, 3, 48, true);
	model_rapl_intel(&M, 14, 14, Q32_1J, Q32_1J / 4);
	intel_model(0x5E);
	CHECK_EQ_U64(P.rapl_dram_esu, 14);
	got = dram_joules_q32(&truth);
	CHECK(truth > 0);
	CHECK_EQ_U64(got, truth);
	model_intel(&M, 4, 4, 48, 3, 48, true);
	model_rapl_intel(&M, 14, 14, Q32_1J, Q32_1J / 4);
	intel_model(0x8F);
	CHECK_EQ_U64(P.rapl_dram_esu, 14);
	CHECK(!pmu_rapl_dram_fixed_unit(6, 0x8F) && !pmu_rapl_dram_fixed_unit(0x19, 0x55));
}

/* ---- 2. a zero-reading RAPL domain ------------------------------------------------------------ */

static void rapl_zero_domain_refused(void)
{
	struct pmu_plan pl;
	struct cpu_info ci;
	struct pmu_cpuid id = { 0 };

	model_intel(&M, 4, 4, 48, 3, 48, true);
	model_rapl_intel(&M, 14, 14, Q32_1J, 0); /* MSR 0x619 exists and reads 0: no DRAM domain */
	intel_model(0x5E);
	CHECK(P.rapl && P.rapl_pkg_msr == 0x611);
	CHECK_EQ_U64(P.rapl_dram_msr, 0);
	plan_one("energy_dram", &pl);
	CHECK_EQ_U64(pl.npasses, 0);
	CHECK_EQ_U64(pl.nrefused, 1);
	CHECK_STR(why0(&pl), "RAPL DRAM energy counter reads 0 (domain not implemented)");
	CHECK_EQ_U64(plan_one("energy_pkg", &pl), 1);

	/* AMD: a core-energy counter reading 0 likewise */
	ci = model_cpu(false, 0x19, 1);
	id.ext1_ecx = 1u << 23;
	id.ext7_edx = 1u << 14;
	model_amd(&M, PMU_AMD_CORE_EXT, 6);
	model_add(&M, 0xC0010299u, 0xA1003);
	model_add(&M, 0xC001029Bu, 777);
	model_add(&M, 0xC001029Au, 0);
	pmu_discover(&P, &ci, &id, &M.ops);
	CHECK(P.rapl && P.rapl_pkg_msr == 0xC001029Bu && !P.rapl_core_msr);
	plan_one("energy_core", &pl);
	CHECK_STR(why0(&pl), "RAPL core energy counter reads 0 (domain not implemented)");
}

/* ---- 3. reference cycles ---------------------------------------------------------------------- */

static void ref_cycles_only_on_fixed_counter_2(void)
{
	struct pmu_plan pl;
	struct cpu_info ci = model_cpu(true, 6, 0x5E);
	struct pmu_cpuid id = intel_id();

	model_intel(&M, 4, 4, 48, 3, 48, true);
	intel_model(0x5E);
	CHECK_EQ_U64(plan_one("ref_cycles", &pl), 1);
	CHECK(pl.pass[0].c[0].kind == PMU_CTR_FIXED && pl.pass[0].c[0].idx == 2);

	/* v1: no fixed counters. 0x3C/0x01 on a general-purpose counter would count REF_XCLK. */
	id.leaf_a[0] = 1 | 4u << 8 | 48u << 16 | 7u << 24;
	model_intel(&M, 1, 4, 48, 0, 48, true);
	pmu_discover(&P, &ci, &id, &M.ops);
	CHECK(P.present && !P.fixed_avail);
	CHECK_EQ_U64(plan_one("ref_cycles", &pl), 0);
	CHECK_EQ_U64(pl.nrefused, 1);
	CHECK(strstr(why0(&pl), "fixed counter") != 0);

	/* v5 with fixed counters 0 and 1 only (ECX bitmap) */
	id = intel_id();
	id.leaf_a[0] = 5 | 4u << 8 | 48u << 16 | 7u << 24;
	id.leaf_a[2] = 3;
	id.leaf_a[3] = 0 | 48u << 5;
	model_intel(&M, 5, 4, 48, 2, 48, true);
	pmu_discover(&P, &ci, &id, &M.ops);
	CHECK_EQ_U64(P.fixed_avail, 3);
	CHECK_EQ_U64(plan_one("ref_cycles", &pl), 0);

	/* what the refusal avoids: the model's 0x3C/0x01 on a GP counter runs MODEL_XCLK_DIV times slower */
	{
		struct pmu_event xclk = { "x", 0x3C, 0x01, 0, 0, PMU_NO_FIXED, PMU_NO_ARCH_BIT, "" };
		struct pmu_group g = { 0 };
		uint64_t a, b;

		g.n = 1;
		g.c[0] = (struct pmu_counter){ "x", &xclk, PMU_CTR_GP, 0, 0, (1ull << 48) - 1, pmu_intel_evtsel(&xclk) };
		pmu_program(&P, &g, 0);
		pmu_start(&P, &g, 0);
		pmu_read(&P, &g, &a);
		pmu_read(&P, &g, &b);
		CHECK_EQ_U64(b - a, M.step / MODEL_XCLK_DIV);
	}
}

/* ---- 4. Zen ITLB misses ----------------------------------------------------------------------- */

static void zen_itlb_counts_coalesced_walks(void)
{
	static const unsigned families[] = { 0x17, 0x19 };

	for (unsigned f = 0; f < 2; f++) {
		struct cpu_info ci = model_cpu(false, families[f], 1);
		struct pmu_cpuid id = { 0 };
		struct pmu_plan pl;
		uint64_t a, b;

		id.ext1_ecx = 1u << 23;
		model_amd(&M, PMU_AMD_CORE_EXT, 6);
		M.itlb_walk_sizes = 1u << 3; /* only coalesced-4K walks (Zen 3/4) */
		pmu_discover(&P, &ci, &id, &M.ops);
		model_clear_log(&M);
		CHECK_EQ_U64(plan_one("itlb_misses", &pl), 1);
		CHECK_EQ_U64(pl.pass[0].c[0].config, 0x2FF85); /* PMCx085 umask 0xFF, OS: Linux's 0xff85 */
		pmu_program(&P, &pl.pass[0], 0);
		pmu_start(&P, &pl.pass[0], 0);
		pmu_read(&P, &pl.pass[0], &a);
		pmu_read(&P, &pl.pass[0], &b);
		CHECK(b - a > 0);
	}
}

/* ---- 5. AMD lfence ---------------------------------------------------------------------------- */

static void amd_setup_refusing(unsigned family, bool de_cfg, uint64_t de_cfg_value, bool refuse)
{
	struct cpu_info ci = model_cpu(false, family, 1);
	struct pmu_cpuid id = { 0 };

	id.ext1_ecx = 1u << 23;
	model_amd(&M, PMU_AMD_CORE_EXT, 6);
	if (de_cfg)
		model_add(&M, 0xC0011029u, de_cfg_value);
	if (refuse)
		model_refuse_write(&M, 0xC0011029u);
	pmu_discover(&P, &ci, &id, &M.ops);
}

static void amd_setup(unsigned family, bool de_cfg, uint64_t de_cfg_value)
{
	amd_setup_refusing(family, de_cfg, de_cfg_value, false);
}

static unsigned writes_to(uint32_t msr)
{
	unsigned n = 0;

	for (unsigned i = 0; i < M.nwrites; i++)
		n += M.writes[i].msr == msr;
	return n;
}

static void amd_lfence_de_cfg(void)
{
	uint64_t v = 0;

	amd_setup(0x17, true, 0x10); /* bit 1 clear: set it, keep the other bits */
	CHECK_STR(P.lfence_serializing, "set");
	model_get(&M, 0xC0011029u, &v);
	CHECK_EQ_U64(v, 0x12);
	/* an application processor: the same bit set on its own DE_CFG */
	model_set(&M, 0xC0011029u, 0x10);
	pmu_cpu_prepare(&P);
	model_get(&M, 0xC0011029u, &v);
	CHECK_EQ_U64(v, 0x12);

	amd_setup(0x19, true, 0x2); /* already set: nothing written */
	CHECK_STR(P.lfence_serializing, "yes");
	CHECK_EQ_U64(writes_to(0xC0011029u), 0);

	amd_setup_refusing(0x17, true, 0, true);
	CHECK_STR(P.lfence_serializing, "no"); /* a hypervisor refused the write */

	amd_setup(0x17, false, 0); /* DE_CFG faults on read */
	CHECK_STR(P.lfence_serializing, "unknown");
	amd_setup(0x11, true, 0); /* family 11h: no DE_CFG, lfence serialising already */
	CHECK_STR(P.lfence_serializing, "yes");
	CHECK_EQ_U64(writes_to(0xC0011029u), 0);

	model_intel(&M, 4, 4, 48, 3, 48, true);
	intel_model(0x5E);
	CHECK_STR(P.lfence_serializing, "yes");
}

/* ---- 6. SMM ----------------------------------------------------------------------------------- */

static void freeze_while_smm(void)
{
	uint64_t v = 0;

	model_intel(&M, 4, 4, 48, 3, 48, true);
	model_set(&M, 0x345, (1ull << 13) | (1ull << 12)); /* FW_WRITE, FREEZE_WHILE_SMM offered */
	model_add(&M, 0x1D9, 0x1);                        /* DEBUGCTL with LBR on */
	intel_model(0x5E);
	CHECK_STR(P.freeze_while_smm, "set");
	model_get(&M, 0x1D9, &v);
	CHECK_EQ_U64(v, 0x4001);

	model_intel(&M, 4, 4, 48, 3, 48, true); /* not offered: DEBUGCTL untouched */
	model_add(&M, 0x1D9, 0);
	intel_model(0x5E);
	CHECK_STR(P.freeze_while_smm, "not_offered");
	CHECK_EQ_U64(writes_to(0x1D9), 0);

	model_intel(&M, 4, 4, 48, 3, 48, true);
	model_set(&M, 0x345, 1ull << 12);
	model_add(&M, 0x1D9, 0);
	model_refuse_write(&M, 0x1D9);
	intel_model(0x5E);
	CHECK_STR(P.freeze_while_smm, "refused");

	amd_setup(0x19, false, 0);
	CHECK_STR(P.freeze_while_smm, "not_offered");
}

static void fill(uint64_t *v, unsigned n, uint64_t x)
{
	for (unsigned i = 0; i < n; i++)
		v[i] = x;
}

static void pmu_check_tolerance_is_robust(void)
{
	enum { R = 15 };
	uint64_t d0[R], ds[R], dl[R];
	struct pmu_check_verdict v;

	/* exact counts: overhead 40, pass with tolerance 0 */
	fill(d0, R, 40);
	fill(ds, R, 40 + 2000);
	fill(dl, R, 40 + 2002000);
	pmu_check_judge(d0, ds, dl, R, 2000, 2002000, &v);
	CHECK(v.pass && v.tolerance == 0 && v.overhead == 40 && v.measured_long == 2002000);

	/* one SMI in an empty interval must not widen the tolerance: a counter that miscounts by
	 * 500 instructions still fails (a max-min spread would make it 4960 and pass it) */
	d0[7] = 5000;
	fill(ds, R, 40 + 2000 + 500);
	fill(dl, R, 40 + 2002000 + 500);
	pmu_check_judge(d0, ds, dl, R, 2000, 2002000, &v);
	CHECK_EQ_U64(v.tolerance, 0);
	CHECK(v.tolerance_ok && !v.pass);

	/* ... and with exact counts plus SMIs in three repetitions of every kind it passes */
	d0[2] = d0[11] = 900;
	fill(ds, R, 40 + 2000);
	fill(dl, R, 40 + 2002000);
	ds[0] += 7000;
	dl[3] += 7000;
	pmu_check_judge(d0, ds, dl, R, 2000, 2002000, &v);
	CHECK(v.pass);

	/* an overhead that is not repeatable: the tolerance itself is implausible, fail */
	for (unsigned i = 0; i < R; i++)
		d0[i] = 40 + 30 * i;
	pmu_check_judge(d0, ds, dl, R, 2000, 2002000, &v);
	CHECK(v.tolerance > PMU_CHECK_MAX_TOLERANCE && !v.tolerance_ok && !v.pass);
}

/* ---- 7. faults and the self-test ------------------------------------------------------------- */

static void selftest_uses_fixed_counters_and_rdpmc(void)
{
	bool seen[8] = { false }, fixed_seen[3] = { false };

	model_intel(&M, 4, 4, 48, 3, 48, true);
	intel_model(0x5E);
	CHECK(P.present && P.fixed_avail == 7 && P.num_gp == 4 && !P.fixed_dead);
	CHECK_STR(P.rdpmc, "ok");
	for (unsigned i = 0; i < M.nrdpmc; i++) {
		if (M.rdpmc_idx[i] & 0x40000000u)
			fixed_seen[M.rdpmc_idx[i] & 3] = true;
		else if (M.rdpmc_idx[i] < 8)
			seen[M.rdpmc_idx[i]] = true;
	}
	CHECK(seen[0] && seen[1] && seen[2] && seen[3]);
	CHECK(fixed_seen[0] && fixed_seen[1] && fixed_seen[2]);

	/* a fixed counter that exists but never counts is dropped; ref_cycles goes with it */
	model_intel(&M, 4, 4, 48, 3, 48, true);
	M.fixed_stuck = 1u << 2;
	intel_model(0x5E);
	CHECK(P.present);
	CHECK_EQ_U64(P.fixed_dead, 4);
	CHECK_EQ_U64(P.fixed_avail, 3);
	{
		struct pmu_plan pl;

		CHECK_EQ_U64(plan_one("ref_cycles", &pl), 0);
	}
}

static void rdpmc_intercepted_at_discovery(void)
{
	model_intel(&M, 4, 4, 48, 3, 48, true);
	M.rdpmc_faults = true;
	intel_model(0x5E);
	CHECK(!P.present);
	CHECK(strstr(P.reason, "rdpmc faults") != 0);
	CHECK_STR(P.rdpmc, "faults");
	CHECK(M.nrdpmc > 0); /* tried, faulted, went on */

	/* AMD the same */
	amd_setup(0x19, false, 0);
	CHECK(P.present);
	M.rdpmc_faults = true;
	{
		struct cpu_info ci = model_cpu(false, 0x19, 1);
		struct pmu_cpuid id = { 0 };

		id.ext1_ecx = 1u << 23;
		pmu_discover(&P, &ci, &id, &M.ops);
	}
	CHECK(!P.present && strstr(P.reason, "rdpmc") != 0);
}

static void refused_write_and_faulting_read_are_reported(void)
{
	static const char *const names[] = { "llc_misses", "branches", "aperf" };
	struct pmu_plan pl;
	struct pmu_faults f = { 0 };
	uint64_t v[3];
	uint32_t bad;

	model_intel(&M, 4, 4, 48, 3, 48, true);
	model_add(&M, 0xE7, 5);
	model_add(&M, 0xE8, 6);
	intel_model(0x5E);
	pmu_plan_events(&P, names, 3, &pl);
	CHECK_EQ_U64(pl.pass[0].n, 3);
	model_refuse_write(&M, 0x187); /* the hypervisor filters the second event select */
	bad = pmu_program(&P, &pl.pass[0], &f);
	CHECK_EQ_U64(bad, 2);
	CHECK_EQ_U64(f.mask, 2);
	CHECK_STR(f.why[1] ? f.why[1] : "", "the event select or counter refused the write (event filtered?)");
	/* the global control refused: every core counter of the group, not the MSR one */
	model_refuse_write(&M, 0x38F);
	f = (struct pmu_faults){ 0 };
	CHECK_EQ_U64(pmu_start(&P, &pl.pass[0], &f), 3);
	CHECK_STR(f.why[0] ? f.why[0] : "", "the global counter control refused the write");
	/* rdpmc intercepted later (an application processor): reads fault, the MSR counter reads */
	M.rdpmc_faults = true;
	CHECK_EQ_U64(pmu_read(&P, &pl.pass[0], v), 3);
	CHECK_EQ_U64(v[0], 0);
	CHECK_EQ_U64(v[2], 6);
	CHECK(strstr(pmu_read_fault_why(&pl.pass[0].c[0]), "rdpmc faulted") != 0);
}

/* ---- 8. free-running counters without a core PMU ---------------------------------------------- */

static void freerun_without_core_pmu(void)
{
	static const char *const names[] = { "cycles", "aperf", "mperf", "energy_pkg" };
	struct cpu_info ci = model_cpu(true, 6, 0x55);
	struct pmu_cpuid id = { 0 }; /* CPUID 0xA all zero: the hypervisor hides the core PMU */
	struct pmu_plan pl;

	ci.hypervisor = true;
	id.leaf6_ecx = 1;
	model_intel(&M, 4, 4, 48, 3, 48, true);
	model_add(&M, 0xE7, 100);
	model_add(&M, 0xE8, 90);
	model_rapl_intel(&M, 14, 16, Q32_1J, Q32_1J);
	pmu_discover(&P, &ci, &id, &M.ops);
	CHECK(!P.present);
	CHECK(P.aperf_mperf && P.rapl && P.rapl_pkg_msr == 0x611 && P.rapl_dram_esu == 16);
	CHECK(pmu_usable(&P));
	pmu_plan_events(&P, names, 4, &pl);
	CHECK_EQ_U64(pl.npasses, 1);
	CHECK_EQ_U64(pl.pass[0].n, 3);
	CHECK_EQ_U64(pl.nrefused, 1);
	CHECK_STR(pl.nrefused ? pl.refused[0] : "", "cycles");
	CHECK_STR(why0(&pl), P.reason);
}

/* ---- 9. the STALLS_TOTAL comment ------------------------------------------------------------- */

/* The comment of the 0xA3/0x04 entries (data/pmu_events_x86.json: the comment follows the event
 * line) names what it counts (SDM: CYCLE_ACTIVITY.STALLS_TOTAL, cycles with no uop executed), not
 * STALLS_LDM_PENDING's "load outstanding". */
static void stalls_total_comment(void)
{
	FILE *fp = fopen("data/pmu_events_x86.json", "r");
	char line[512], prev[512] = "";
	bool found = false;

	CHECK(fp != 0);
	if (!fp)
		return;
	while (fgets(line, sizeof(line), fp)) {
		if (strstr(prev, "\"stall_cycles\", \"event\": \"0xA3\", \"umask\": \"0x04\", \"cmask\": 4,") &&
		    strstr(line, "\"comment\"")) {
			found = true;
			CHECK(strstr(prev, "CYCLE_ACTIVITY.STALLS_TOTAL") != 0);
			CHECK(strstr(line, "no uop executed") != 0);
			CHECK(strstr(line, "load") == 0);
		}
		strcpy(prev, line);
	}
	fclose(fp);
	CHECK(found);
}

/* ---- the model counts per event ----------------------------------------------------------------- */

static void model_counts_only_known_events(void)
{
	struct pmu_event unknown = { "u", 0x99, 0x42, 0, 0, PMU_NO_FIXED, PMU_NO_ARCH_BIT, "" };
	struct pmu_group g = { 0 };
	uint64_t a, b;

	model_intel(&M, 4, 4, 48, 3, 48, true);
	intel_model(0x5E);
	g.n = 1;
	g.c[0] = (struct pmu_counter){ "u", &unknown, PMU_CTR_GP, 0, 0, (1ull << 48) - 1, pmu_intel_evtsel(&unknown) };
	pmu_program(&P, &g, 0);
	pmu_start(&P, &g, 0);
	pmu_read(&P, &g, &a);
	pmu_read(&P, &g, &b);
	CHECK_EQ_U64(b - a, 0);
}

TEST_SUITE(pmu_vendor) = {
	{ "rapl_dram_unit_on_servers", rapl_dram_unit_on_servers },
	{ "rapl_zero_domain_refused", rapl_zero_domain_refused },
	{ "ref_cycles_only_on_fixed_counter_2", ref_cycles_only_on_fixed_counter_2 },
	{ "zen_itlb_counts_coalesced_walks", zen_itlb_counts_coalesced_walks },
	{ "amd_lfence_de_cfg", amd_lfence_de_cfg },
	{ "freeze_while_smm", freeze_while_smm },
	{ "pmu_check_tolerance_is_robust", pmu_check_tolerance_is_robust },
	{ "selftest_uses_fixed_counters_and_rdpmc", selftest_uses_fixed_counters_and_rdpmc },
	{ "rdpmc_intercepted_at_discovery", rdpmc_intercepted_at_discovery },
	{ "refused_write_and_faulting_read_are_reported", refused_write_and_faulting_read_are_reported },
	{ "freerun_without_core_pmu", freerun_without_core_pmu },
	{ "stalls_total_comment", stalls_total_comment },
	{ "model_counts_only_known_events", model_counts_only_known_events },
	{ 0, 0 },
};
