/* Real machines' CPUID through the firmware's x86 discovery: every fixture of tests/cpuid/fixtures
 * (InstLatx64's AIDA64 dumps, the leaves the code reads; README there) decodes without a crash and
 * agrees with its references (AIDA64's own decodings, the file name's signature, the dump's APIC
 * id list), disagreements only where the fixture explains them; then a few thousand seeded bit
 * flips, lost leaves and cut leaf lists never crash (ASan) and never give an insane record. */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "arch/x86_64/cpu.h"
#include "arch/x86_64/cpuid_source.h"
#include "tests/cpuid/cpuid_replay.h"
#include "tests/unit/test.h"

#define FIXTURE_DIR_ENV "BAREMETRIC_CPUID_FIXTURES"
#define FIXTURE_DIR "tests/cpuid/fixtures" /* make runs the tests from the top of the tree */
#define MAX_FIXTURES 256
#define MIN_FIXTURES 60   /* at least 60 machines across vendors and generations */
#define MUTATIONS 4000
#define MUTATION_SEED 0x28C0FFEEu

static char names[MAX_FIXTURES][128];
static unsigned n_names;

static const char *dir(void)
{
	const char *d = getenv(FIXTURE_DIR_ENV);

	return d && *d ? d : FIXTURE_DIR;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(a, b);
}

static bool list_fixtures(void)
{
	DIR *d = opendir(dir());
	struct dirent *e;

	n_names = 0;
	if (!d)
		return false;
	while ((e = readdir(d)) && n_names < MAX_FIXTURES) {
		size_t n = strlen(e->d_name);

		if (n > 4 && !strcmp(e->d_name + n - 4, ".txt") && n < sizeof(names[0]))
			memcpy(names[n_names++], e->d_name, n + 1);
	}
	closedir(d);
	qsort(names, n_names, sizeof(names[0]), by_name);
	return true;
}

static bool load(struct replay_machine *m, const char *name)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", dir(), name);
	return replay_load(m, path);
}

static void fixtures_agree_with_references(void)
{
	struct replay_counts all = { 0 };

	if (!list_fixtures())
		return test_fail(__FILE__, __LINE__, "no fixture directory %s (run from the top of the tree or set %s)",
				 dir(), FIXTURE_DIR_ENV);
	CHECK(n_names >= MIN_FIXTURES);
	for (unsigned i = 0; i < n_names; i++) {
		struct replay_machine m;
		struct replay_counts k = { 0 };

		if (!load(&m, names[i])) {
			test_fail(__FILE__, __LINE__, "%s refused: %s", names[i], m.error);
			replay_free(&m);
			continue;
		}
		replay_check(&m, 0, &k);
		if (k.disagree) {
			test_fail(__FILE__, __LINE__, "%s: %u fields disagree with the reference:", names[i], k.disagree);
			replay_check(&m, stdout, &(struct replay_counts){ 0 });
		}
		if (!k.agree) /* every fixture has a signature at least */
			test_fail(__FILE__, __LINE__, "%s: nothing compared", names[i]);
		all.agree += k.agree;
		all.disagree += k.disagree;
		all.explained += k.explained;
		all.noref += k.noref;
		replay_free(&m);
	}
	test_note("%u fixtures: %u fields agree, %u disagree, %u explained, %u without a reference", n_names, all.agree,
		  all.disagree, all.explained, all.noref);
}

/* The refusals: bad input gets a reason, never a crash. */
static void bad_fixtures_refused(void)
{
	static const char *const bad[] = {
		"",
		"machine x\n",
		"c 00000000 00 1 2 3 4\n",
		"cpu 0 id\nc 00000000 00 1 2 3 4\n",
		"cpu 0 full\nc 00000000 zz\n",
		"cpu 0 full\nref cache cpuid4\n",
		"cpu 0 full\nbogus line\n",
		"sig nothex\ncpu 0 full\n",
	};

	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct replay_machine m;

		CHECK(!replay_parse(&m, bad[i]));
		CHECK(m.error[0] != '\0');
		replay_free(&m);
	}
}

static uint32_t rnd(uint32_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	return *s;
}

/* One mutation of a full CPU: bit flips in its registers, a leaf moved to another subleaf (so
 * the code sees it missing), or the list cut short. */
static void mutate(struct replay_cpu *c, uint32_t *s)
{
	unsigned kind = rnd(s) % 4;

	if (!c->n_leaves)
		return;
	if (kind == 3) {
		c->n_leaves = rnd(s) % c->n_leaves;
		return;
	}
	for (unsigned f = 1 + rnd(s) % 6; f--;) {
		struct replay_leaf *l = &c->leaves[rnd(s) % c->n_leaves];

		if (kind == 2)
			l->sub ^= 1u << (rnd(s) % 8);
		else if (kind == 1)
			l->r[rnd(s) % 4] = rnd(s); /* a whole register of noise */
		else
			l->r[rnd(s) % 4] ^= 1u << (rnd(s) % 32);
	}
}

static void mutated_cpuid_never_crashes(void)
{
	static struct replay_cpu copy;
	static struct replay_result r;
	uint32_t seed = MUTATION_SEED;
	unsigned insane = 0, done = 0;

	if (!list_fixtures() || !n_names)
		TEST_SKIP("no fixtures");
	for (unsigned i = 0; i < n_names; i++) {
		struct replay_machine m;
		unsigned per = (MUTATIONS - done) / (n_names - i);

		if (!load(&m, names[i])) {
			replay_free(&m);
			continue;
		}
		for (unsigned j = 0; j < per; j++, done++) {
			const char *bad;

			copy = m.cpus[rnd(&seed) % m.n_cpus];
			mutate(&copy, &seed);
			replay_decode(&copy, &r);
			bad = replay_sane(&r);
			if (bad && insane++ < 5)
				test_fail(__FILE__, __LINE__, "%s, mutation %u: %s", names[i], j, bad);
		}
		replay_free(&m);
	}
	test_note("%u mutated machines (seed %#x)", done, MUTATION_SEED);
	CHECK(done >= MUTATIONS * 9 / 10);
	CHECK_EQ_U64(insane, 0);
}

/* This host, three ways: arch_cpu_identify (the instruction), cpu_info_decode with a source that
 * runs the instruction and records each answer, and cpu_info_decode replaying that recording. All
 * three agree: the firmware's path is the decoder the corpus exercises, and a replay is faithful. */
static void record_read(void *ctx, uint32_t leaf, uint32_t sub, uint32_t out[4])
{
	struct replay_cpu *c = ctx;

	cpu_cpuid(leaf, sub, &out[0], &out[1], &out[2], &out[3]);
	for (unsigned i = 0; i < c->n_leaves; i++)
		if (c->leaves[i].leaf == leaf && c->leaves[i].sub == sub)
			return;
	if (c->n_leaves < REPLAY_MAX_LEAVES)
		c->leaves[c->n_leaves++] = (struct replay_leaf){ leaf, sub, { out[0], out[1], out[2], out[3] } };
}

static bool same_info(const struct cpu_info *a, const struct cpu_info *b)
{
	bool same = !strcmp(a->vendor, b->vendor) && !strcmp(a->brand, b->brand) && a->family == b->family &&
		    a->model == b->model && a->stepping == b->stepping && a->logical_cpus == b->logical_cpus &&
		    a->num_caches == b->num_caches && a->pmu_present == b->pmu_present && a->avx2 == b->avx2 &&
		    a->tsc_hz_cpuid15 == b->tsc_hz_cpuid15 && a->hypervisor == b->hypervisor;

	for (unsigned i = 0; same && i < a->num_caches; i++)
		same = a->caches[i].size == b->caches[i].size && a->caches[i].ways == b->caches[i].ways &&
		       a->caches[i].sets == b->caches[i].sets && a->caches[i].line == b->caches[i].line;
	return same;
}

static void this_host_recorded_and_replayed(void)
{
	static struct replay_cpu rec;
	static struct replay_result r;
	static struct cpu_info hw, via;
	struct cpuid_source src = { record_read, &rec };

	memset(&rec, 0, sizeof(rec));
	rec.full = true;
	static struct cpu_info judged;

	arch_cpu_identify(&hw);
	cpu_info_decode(&via, &src);
	replay_decode(&rec, &r);
	CHECK(rec.n_leaves > 2 && rec.n_leaves < REPLAY_MAX_LEAVES);
	/* arch_cpu_identify = the decoding + the plausibility judgement of the caches */
	cpu_info_judge_caches(&via);
	judged = r.ci;
	cpu_info_judge_caches(&judged);
	CHECK(same_info(&hw, &via));
	CHECK(same_info(&hw, &judged));
	CHECK(replay_sane(&r) == 0);
	test_note("this host: %s, family %Xh model %Xh, %u caches, %u leaves read", hw.vendor, hw.family, hw.model,
		  hw.num_caches, rec.n_leaves);
}

TEST_SUITE(cpuid_corpus) = {
	{ "this_host_recorded_and_replayed", this_host_recorded_and_replayed },
	{ "fixtures_agree_with_references", fixtures_agree_with_references },
	{ "bad_fixtures_refused", bad_fixtures_refused },
	{ "mutated_cpuid_never_crashes", mutated_cpuid_never_crashes },
	{ 0, 0 },
};
