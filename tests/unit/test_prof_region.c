/* The profile's measured region (bench/profile/region.c): samples of the probe CPU outside the
 * region tabled apart and dropped when the probe marked a region, kept as the sampled event when
 * it marked none; other CPUs' samples always kept; the end record's balance (counted + lost =
 * attributed samples) holds when an outside entry is the one lost. */
#include "bench/profile/region.h"
#include "tests/unit/test.h"

#define SETS 16
#define OVF 4
#define AGG 256
#define PC_LOOP 0x401000ull  /* the measured kernel */
#define PC_SETUP 0x402000ull /* the probe's set-up, outside the region */

static struct prof_entry sets_mem[SETS * PROF_WAYS] __attribute__((aligned(64)));
static struct prof_entry ovf0[OVF], ovf1[OVF], agg_mem[AGG];

/* The handler's path (bench/profile/profile.c's prof_hit): n samples at pc, on cpu, in or out. */
static uint64_t hit(struct prof_table *t, unsigned cpu, uint64_t pc, bool in_region, unsigned n)
{
	uint64_t outside = 0;

	for (unsigned i = 0; i < n; i++) {
		uint16_t ev = prof_region_event(cpu, in_region, 0);

		prof_table_record(t, pc, ev);
		outside += ev == PROF_EVENT_OUTSIDE;
	}
	return outside;
}

/* Count of (pc, event) in the aggregate (0 when absent). */
static uint64_t agg_count(const struct prof_agg *a, uint64_t pc, uint16_t event)
{
	uint64_t n = 0;

	for (uint32_t i = 0; i < a->cap; i++)
		if (a->e[i].count && a->e[i].pc == pc && a->e[i].event == event)
			n += a->e[i].count;
	return n;
}

static void run(bool marked, unsigned cpu, uint64_t *loop, uint64_t *setup, uint64_t *outside_seen,
		uint64_t *attributed)
{
	struct prof_table t;
	struct prof_agg a;
	struct prof_region_sink s = { &a, marked };
	uint64_t outside;

	prof_table_init(&t, sets_mem, SETS, ovf0, ovf1, OVF);
	prof_agg_init(&a, agg_mem, AGG);
	outside = hit(&t, cpu, PC_SETUP, false, 7) + hit(&t, cpu, PC_LOOP, true, 90) + hit(&t, cpu, PC_SETUP, false, 3);
	(void)prof_table_flush(&t, prof_region_sink, &s);
	*loop = agg_count(&a, PC_LOOP, 0);
	*setup = agg_count(&a, PC_SETUP, 0);
	CHECK_EQ_U64(agg_count(&a, PC_SETUP, PROF_EVENT_OUTSIDE), 0); /* never passed on as such */
	*outside_seen = outside;
	*attributed = prof_region_attributed(marked, t.samples, outside);
	CHECK_EQ_U64(a.total, *loop + *setup);
}

static void marked_region_keeps_its_samples_only(void)
{
	uint64_t loop, setup, outside, attributed;

	run(true, 0, &loop, &setup, &outside, &attributed);
	CHECK_EQ_U64(loop, 90);
	CHECK_EQ_U64(setup, 0);
	CHECK_EQ_U64(outside, 10);
	CHECK_EQ_U64(attributed, 90);
}

static void no_region_keeps_the_whole_run(void)
{
	uint64_t loop, setup, outside, attributed;

	run(false, 0, &loop, &setup, &outside, &attributed);
	CHECK_EQ_U64(loop, 90);
	CHECK_EQ_U64(setup, 10);
	CHECK_EQ_U64(attributed, 100);
}

static void other_cpus_keep_every_sample(void)
{
	uint64_t loop, setup, outside, attributed;

	run(true, 1, &loop, &setup, &outside, &attributed);
	CHECK_EQ_U64(outside, 0);
	CHECK_EQ_U64(loop + setup, 100);
	CHECK_EQ_U64(attributed, 100);
}

/* Counts the outside samples passed on, then hands the entries to prof_region_sink. */
struct counting {
	struct prof_region_sink s;
	uint64_t outside_passed;
};

static void counting_sink(void *ctx, const struct prof_entry *e, uint32_t n)
{
	struct counting *c = ctx;

	for (uint32_t i = 0; i < n; i++)
		if (e[i].event == PROF_EVENT_OUTSIDE)
			c->outside_passed += e[i].count;
	prof_region_sink(&c->s, e, n);
}

/* One set and overflow buffers of one entry, never drained while sampling: evicted entries are
 * lost, in and outside the region. The end record's lost (attributed - counted) must be the
 * in-region samples lost, no more: an outside entry lost is not the profile's loss. */
static void balance_holds_with_lost_entries(void)
{
	struct prof_table t;
	struct prof_agg a;
	struct counting c = { { &a, true }, 0 };
	uint64_t outside = 0, attributed, lost_outside;

	prof_table_init(&t, sets_mem, 1, ovf0, ovf1, 1);
	prof_agg_init(&a, agg_mem, AGG);
	for (unsigned i = 0; i < 12; i++) /* 12 keys into 4 ways: 8 evictions, 2 kept, 6 lost */
		outside += hit(&t, 0, PC_LOOP + 16 * i, i % 2 == 0, 1 + i);
	CHECK_EQ_U64(t.lost_entries, 6);
	(void)prof_table_flush(&t, counting_sink, &c);
	attributed = prof_region_attributed(true, t.samples, outside);
	CHECK_EQ_U64(attributed, 1 + 3 + 5 + 7 + 9 + 11); /* even i: in the region */
	lost_outside = outside - c.outside_passed;
	CHECK(a.total <= attributed);
	CHECK_EQ_U64(attributed - a.total, t.lost_samples - lost_outside);
}

TEST_SUITE(prof_region) = {
	{ "marked_region_keeps_its_samples_only", marked_region_keeps_its_samples_only },
	{ "no_region_keeps_the_whole_run", no_region_keeps_the_whole_run },
	{ "other_cpus_keep_every_sample", other_cpus_keep_every_sample },
	{ "balance_holds_with_lost_entries", balance_holds_with_lost_entries },
	{ 0, 0 },
};
