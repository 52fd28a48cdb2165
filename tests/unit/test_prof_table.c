/* The profiler's sample store (bench/profile/table.c) and period randomisation (bench/profile/period.c):
 * hits, 4-way collisions, the mod-4 eviction order, overflow-buffer hand-over and loss counting,
 * the aggregate's merging, dropping and sort order, and the period's range and uniformity. */
#include <stdlib.h>

#include "bench/profile/period.h"
#include "bench/profile/table.h"
#include "lib/rand.h"
#include "tests/unit/test.h"

#define SETS_MAX 1024
#define OVF_MAX 4096
#define AGG_MAX 8192
#define COUNT_MAX 0xFFFFFFFFu

static struct prof_entry sets_mem[SETS_MAX * PROF_WAYS] __attribute__((aligned(64)));
static struct prof_entry ovf0_mem[OVF_MAX], ovf1_mem[OVF_MAX];
static struct prof_entry agg_mem[AGG_MAX];

static void table(struct prof_table *t, uint32_t nsets, uint32_t ovf_cap)
{
	prof_table_init(t, sets_mem, nsets, ovf0_mem, ovf1_mem, ovf_cap);
}

/* Up to n pcs (step 4, from 0x401000) whose (pc, event) maps to the same set as the first. */
static unsigned colliding(const struct prof_table *t, uint16_t event, uint64_t *pc, unsigned n)
{
	uint32_t want = prof_table_set_index(t, 0x401000, event);
	unsigned got = 0;

	for (uint64_t p = 0x401000; got < n && p < 0x401000 + (1u << 24); p += 4)
		if (prof_table_set_index(t, p, event) == want)
			pc[got++] = p;
	return got;
}

static const struct prof_entry *set_of(const struct prof_table *t, uint64_t pc, uint16_t event)
{
	return &t->sets[(uint64_t)prof_table_set_index(t, pc, event) * PROF_WAYS];
}

/* Count held for (pc, event) in the table (0 when absent). */
static uint64_t held(const struct prof_table *t, uint64_t pc, uint16_t event)
{
	const struct prof_entry *s = set_of(t, pc, event);

	for (unsigned w = 0; w < PROF_WAYS; w++)
		if (s[w].count && s[w].pc == pc && s[w].event == event)
			return s[w].count;
	return 0;
}

/* A sink that only records what it was passed. */
struct capture {
	struct prof_entry e[64];
	unsigned n, calls;
};

static void capture_sink(void *ctx, const struct prof_entry *e, uint32_t n)
{
	struct capture *c = ctx;

	c->calls++;
	for (uint32_t i = 0; i < n && c->n < 64; i++)
		c->e[c->n++] = e[i];
}

static uint64_t agg_count(const struct prof_agg *a, uint64_t pc, uint16_t event)
{
	uint64_t sum = 0;

	for (uint32_t i = 0; i < a->cap; i++)
		if (a->e[i].count && a->e[i].pc == pc && a->e[i].event == event)
			sum += a->e[i].count;
	return sum;
}

static void set_index_in_range_and_spread(void)
{
	struct prof_table t;
	unsigned load[256] = { 0 }, max = 0, ok = 1;

	table(&t, 256, 16);
	/* 4096 consecutive instruction addresses (step 1: x86 pcs are byte-granular) over 256 sets. */
	for (uint64_t p = 0x7f0000401000ull; p < 0x7f0000402000ull; p++) {
		uint32_t s = prof_table_set_index(&t, p, 0);

		ok &= s < 256;
		if (s < 256 && ++load[s] > max)
			max = load[s];
	}
	CHECK(ok);
	CHECK(max <= 2 * 4096 / 256); /* at most twice the mean of 16 */
	/* The event is part of the key: the same pc with another event goes elsewhere mostly. */
	unsigned differ = 0;
	for (uint64_t p = 0x401000; p < 0x401000 + 64 * 4; p += 4)
		differ += prof_table_set_index(&t, p, 0) != prof_table_set_index(&t, p, 1);
	CHECK(differ >= 48);
	/* One set: everything maps to set 0. */
	table(&t, 1, 16);
	CHECK_EQ_U64(prof_table_set_index(&t, 0xdeadbeef, 3), 0);
}

static void hits_count_in_place(void)
{
	struct prof_table t;

	table(&t, 64, 16);
	for (int i = 0; i < 10; i++)
		prof_table_record(&t, 0x401234, 0);
	for (int i = 0; i < 3; i++)
		prof_table_record(&t, 0x401234, 1);
	prof_table_record(&t, 0x401238, 0);
	CHECK_EQ_U64(held(&t, 0x401234, 0), 10);
	CHECK_EQ_U64(held(&t, 0x401234, 1), 3);
	CHECK_EQ_U64(held(&t, 0x401238, 0), 1);
	CHECK_EQ_U64(t.samples, 14);
	CHECK_EQ_U64(t.evictions, 0);
	CHECK_EQ_U64(t.ovf[0].n + t.ovf[1].n, 0);
}

static void four_way_collisions_and_mod4_order(void)
{
	struct prof_table t;
	uint64_t pc[9];

	table(&t, 64, 16);
	CHECK_EQ_U64(colliding(&t, 0, pc, 9), 9);
	/* Four keys share the set without eviction; key i counted i + 1 times. */
	for (unsigned k = 0; k < 4; k++)
		for (unsigned c = 0; c <= k; c++)
			prof_table_record(&t, pc[k], 0);
	CHECK_EQ_U64(t.evictions, 0);
	for (unsigned k = 0; k < 4; k++)
		CHECK_EQ_U64(held(&t, pc[k], 0), k + 1);
	/* Keys 4..8 each evict the way the mod-4 counter names: ways 0, 1, 2, 3, 0. The free ways
	 * were filled in order, so way w held key w; the fifth eviction takes key 4 from way 0. */
	for (unsigned k = 4; k < 9; k++)
		prof_table_record(&t, pc[k], 0);
	CHECK_EQ_U64(t.evictions, 5);
	CHECK_EQ_U64(t.evict_next, 5);
	const struct prof_ovf *o = &t.ovf[0];
	CHECK_EQ_U64(o->n, 5);
	CHECK_EQ_U64(o->full, 0);
	uint64_t want_pc[5] = { pc[0], pc[1], pc[2], pc[3], pc[4] };
	uint32_t want_count[5] = { 1, 2, 3, 4, 1 };
	for (unsigned i = 0; i < 5 && i < o->n; i++) {
		CHECK_EQ_U64(o->e[i].pc, want_pc[i]);
		CHECK_EQ_U64(o->e[i].count, want_count[i]);
	}
	const struct prof_entry *s = set_of(&t, pc[0], 0);
	CHECK_EQ_U64(s[0].pc, pc[8]);
	CHECK_EQ_U64(s[1].pc, pc[5]);
	CHECK_EQ_U64(s[2].pc, pc[6]);
	CHECK_EQ_U64(s[3].pc, pc[7]);
	/* A hit after the evictions still counts in place. */
	prof_table_record(&t, pc[6], 0);
	CHECK_EQ_U64(held(&t, pc[6], 0), 2);
	CHECK_EQ_U64(t.evictions, 5);
}

static void eviction_counter_is_table_wide(void)
{
	struct prof_table t;
	uint64_t a[5], b[5];

	table(&t, 64, 16);
	CHECK_EQ_U64(colliding(&t, 0, a, 5), 5);
	/* A second group in another set: search from another start. */
	uint32_t sa = prof_table_set_index(&t, a[0], 0);
	unsigned nb = 0;
	for (uint64_t p = 0x500000; nb < 5 && p < 0x500000 + (1u << 24); p += 4) {
		if (prof_table_set_index(&t, p, 0) == sa)
			continue;
		if (nb == 0 || prof_table_set_index(&t, p, 0) == prof_table_set_index(&t, b[0], 0))
			b[nb++] = p;
	}
	CHECK_EQ_U64(nb, 5);
	for (unsigned k = 0; k < 4; k++) {
		prof_table_record(&t, a[k], 0);
		prof_table_record(&t, b[k], 0);
	}
	prof_table_record(&t, a[4], 0); /* counter 0: way 0 of set a */
	prof_table_record(&t, b[4], 0); /* counter 1: way 1 of set b, not way 0 */
	CHECK_EQ_U64(t.ovf[0].n, 2);
	CHECK_EQ_U64(t.ovf[0].e[0].pc, a[0]);
	CHECK_EQ_U64(t.ovf[0].e[1].pc, b[1]);
	CHECK_EQ_U64(held(&t, b[0], 0), 1);
}

/* Evict `n` fresh keys from one set (whose 4 ways are already taken). */
static void evict_fresh(struct prof_table *t, const uint64_t *pc, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		prof_table_record(t, pc[i], 0);
}

static void overflow_handover_drain_and_loss(void)
{
	struct prof_table t;
	struct capture c = { 0 };
	uint64_t pc[16];

	table(&t, 64, 2);
	CHECK_EQ_U64(colliding(&t, 0, pc, 16), 16);
	evict_fresh(&t, pc, 4); /* fills the set's ways, no eviction */
	CHECK_EQ_U64(t.evictions, 0);
	evict_fresh(&t, pc + 4, 2); /* evictions 1, 2: buffer 0 full, handed over */
	CHECK_EQ_U64(t.ovf[0].full, 1);
	CHECK_EQ_U64(t.ovf[0].n, 2);
	CHECK_EQ_U64(t.handoffs, 1);
	CHECK_EQ_U64(t.active, 1);
	/* The drain passes the full buffer and frees it; the active one (empty) is left alone. */
	CHECK_EQ_U64(prof_table_drain(&t, capture_sink, &c), 2);
	CHECK_EQ_U64(c.calls, 1);
	CHECK_EQ_U64(c.e[0].pc, pc[0]);
	CHECK_EQ_U64(c.e[1].pc, pc[1]);
	CHECK_EQ_U64(t.ovf[0].full, 0);
	CHECK_EQ_U64(t.ovf[0].n, 0);
	CHECK_EQ_U64(prof_table_drain(&t, capture_sink, &c), 0); /* nothing full: nothing passed */
	CHECK_EQ_U64(c.calls, 1);
	/* Evictions 3, 4 fill buffer 1; 5, 6 fill buffer 0 again: both full. */
	evict_fresh(&t, pc + 6, 4);
	CHECK_EQ_U64(t.ovf[0].full, 1);
	CHECK_EQ_U64(t.ovf[1].full, 1);
	CHECK_EQ_U64(t.handoffs, 3);
	CHECK_EQ_U64(t.lost_entries, 0);
	/* Make the next victim carry a count of 3, then evict it with both buffers full: lost. */
	uint32_t victim_way = t.evict_next & 3;
	uint64_t victim_pc = set_of(&t, pc[0], 0)[victim_way].pc;
	prof_table_record(&t, victim_pc, 0);
	prof_table_record(&t, victim_pc, 0);
	CHECK_EQ_U64(held(&t, victim_pc, 0), 3);
	evict_fresh(&t, pc + 10, 1);
	CHECK_EQ_U64(t.lost_entries, 1);
	CHECK_EQ_U64(t.lost_samples, 3);
	CHECK_EQ_U64(t.evictions, 7);
	/* Drained, both are free; the next eviction lands again. */
	c.n = 0;
	CHECK_EQ_U64(prof_table_drain(&t, capture_sink, &c), 4);
	CHECK_EQ_U64(t.ovf[0].full + t.ovf[1].full, 0);
	evict_fresh(&t, pc + 11, 1);
	CHECK_EQ_U64(t.lost_entries, 1);
	CHECK_EQ_U64(t.ovf[0].n + t.ovf[1].n, 1);
	/* Flush: the partial buffer and the 4 live ways; the table is empty afterwards. */
	c.n = 0;
	CHECK_EQ_U64(prof_table_flush(&t, capture_sink, &c), 5);
	CHECK_EQ_U64(c.n, 5);
	CHECK_EQ_U64(t.ovf[0].n + t.ovf[1].n, 0);
	for (unsigned k = 0; k < 16; k++)
		CHECK_EQ_U64(held(&t, pc[k], 0), 0);
	CHECK_EQ_U64(prof_table_flush(&t, capture_sink, &c), 0);
}

static void count_never_wraps(void)
{
	struct prof_table t;
	struct prof_agg a;

	table(&t, 64, 16);
	prof_table_record(&t, 0x401000, 2);
	/* White box: bring the entry to the edge instead of 4 billion samples. */
	struct prof_entry *s = &t.sets[(uint64_t)prof_table_set_index(&t, 0x401000, 2) * PROF_WAYS];
	unsigned w = 0;
	while (w < PROF_WAYS && !(s[w].count && s[w].pc == 0x401000))
		w++;
	CHECK(w < PROF_WAYS);
	if (w == PROF_WAYS)
		return;
	s[w].count = COUNT_MAX - 1;
	prof_table_record(&t, 0x401000, 2);
	CHECK_EQ_U64(s[w].count, COUNT_MAX);
	CHECK_EQ_U64(t.evictions, 0);
	prof_table_record(&t, 0x401000, 2); /* would wrap: the full count goes to the buffer */
	CHECK_EQ_U64(s[w].count, 1);
	CHECK_EQ_U64(t.evictions, 1);
	CHECK_EQ_U64(t.ovf[0].n, 1);
	CHECK_EQ_U64(t.ovf[0].e[0].count, COUNT_MAX);
	/* The aggregate keeps both (a merge would wrap) and loses nothing. */
	prof_agg_init(&a, agg_mem, 16);
	prof_table_flush(&t, prof_agg_sink, &a);
	CHECK_EQ_U64(a.n, 2);
	CHECK_EQ_U64(a.total, (uint64_t)COUNT_MAX + 1);
	CHECK_EQ_U64(agg_count(&a, 0x401000, 2), (uint64_t)COUNT_MAX + 1);
	CHECK_EQ_U64(a.dropped, 0);
}

/* Samples held by the table and its two buffers (not yet drained). */
static uint64_t held_total(const struct prof_table *t)
{
	uint64_t sum = 0;

	for (uint64_t i = 0; i < (uint64_t)t->nsets * PROF_WAYS; i++)
		sum += t->sets[i].count;
	for (unsigned b = 0; b < 2; b++)
		for (uint32_t i = 0; i < t->ovf[b].n; i++)
			sum += t->ovf[b].e[i].count;
	return sum;
}

/* Random skewed samples against a reference count per key, through small tables and buffers. */
#define REF_KEYS 512

static void accounting(uint32_t nsets, uint32_t ovf_cap, uint32_t agg_cap, unsigned drain_every, int exact)
{
	static uint64_t ref[REF_KEYS][2];
	struct prof_table t;
	struct prof_agg a;
	struct rand_state r;
	uint64_t n = 200000;
	int ok_mid = 1;

	memset(ref, 0, sizeof(ref));
	table(&t, nsets, ovf_cap);
	prof_agg_init(&a, agg_mem, agg_cap);
	rand_seed(&r, 11);
	for (uint64_t i = 0; i < n; i++) {
		/* Skewed: a few hot pcs, a long tail (min of two uniform draws). */
		uint64_t k1 = rand_below(&r, REF_KEYS), k2 = rand_below(&r, REF_KEYS);
		uint64_t k = k1 < k2 ? k1 : k2;
		uint16_t ev = (uint16_t)(rand_next(&r) & 1);

		prof_table_record(&t, 0x401000 + 3 * k, ev);
		ref[k][ev]++;
		if (drain_every && i % drain_every == 0)
			prof_table_drain(&t, prof_agg_sink, &a);
		/* Mid-run too, every sample is somewhere: table, buffers, aggregate, or a loss counter. */
		if (i % 9973 == 0)
			ok_mid &= held_total(&t) + a.total + a.dropped + t.lost_samples == t.samples;
	}
	CHECK(ok_mid);
	prof_table_flush(&t, prof_agg_sink, &a);
	CHECK_EQ_U64(held_total(&t), 0);
	CHECK_EQ_U64(t.samples, n);
	/* Every sample is counted once: in the aggregate, lost at the buffers, or dropped by the agg. */
	CHECK_EQ_U64(a.total + t.lost_samples + a.dropped, n);
	if (exact) {
		int ok = 1;

		CHECK_EQ_U64(t.lost_samples + a.dropped, 0);
		for (unsigned k = 0; k < REF_KEYS; k++)
			for (uint16_t ev = 0; ev < 2; ev++)
				ok &= agg_count(&a, 0x401000 + 3 * k, ev) == ref[k][ev];
		CHECK(ok);
		CHECK(t.evictions > 0); /* the test did exercise eviction */
	} else {
		CHECK(t.lost_samples > 0);
		CHECK(t.lost_entries > 0);
		CHECK(a.dropped > 0);
	}
}

static void accounting_exact_with_evictions(void)
{
	accounting(32, 64, 2048, 16, 1);
}

static void accounting_with_losses(void)
{
	/* Buffers of 4 drained rarely, an aggregate of 256 for 1024 keys: both kinds of loss. */
	accounting(16, 4, 256, 5000, 0);
}

static void agg_merges_duplicates(void)
{
	struct prof_agg a;
	const struct prof_entry in[] = {
		{ .pc = 0x10, .count = 3, .event = 1 }, { .pc = 0x20, .count = 2, .event = 1 },
		{ .pc = 0x10, .count = 4, .event = 1 }, { .pc = 0x10, .count = 1, .event = 2 },
		{ .pc = 0x30, .count = 0, .event = 1 }, /* empty: ignored */
	};

	prof_agg_init(&a, agg_mem, 8);
	prof_agg_sink(&a, in, 5);
	prof_agg_sink(&a, in, 2);
	CHECK_EQ_U64(a.n, 3);
	CHECK_EQ_U64(a.total, 15);
	CHECK_EQ_U64(agg_count(&a, 0x10, 1), 10);
	CHECK_EQ_U64(agg_count(&a, 0x20, 1), 4);
	CHECK_EQ_U64(agg_count(&a, 0x10, 2), 1);
	CHECK_EQ_U64(agg_count(&a, 0x30, 1), 0);
	CHECK_EQ_U64(a.dropped, 0);
}

static void agg_full_drops_and_counts(void)
{
	struct prof_agg a;
	struct prof_entry in[6];

	for (unsigned i = 0; i < 6; i++)
		in[i] = (struct prof_entry){ .pc = 0x1000 + 16 * i, .count = 10 + i, .event = 0 };
	prof_agg_init(&a, agg_mem, 4);
	prof_agg_sink(&a, in, 6);
	CHECK_EQ_U64(a.n, 4);
	CHECK_EQ_U64(a.total, 10 + 11 + 12 + 13);
	CHECK_EQ_U64(a.dropped, 14 + 15);
	/* Full, a known key still merges; a new one is dropped. */
	prof_agg_sink(&a, in, 1);
	CHECK_EQ_U64(agg_count(&a, 0x1000, 0), 20);
	struct prof_entry fresh = { .pc = 0x9000, .count = 7 };
	prof_agg_sink(&a, &fresh, 1);
	CHECK_EQ_U64(a.dropped, 14 + 15 + 7);
	CHECK_EQ_U64(a.total + a.dropped, 10 + 11 + 12 + 13 + 14 + 15 + 10 + 7);
	/* A zero-capacity aggregate drops everything, cleanly. */
	prof_agg_init(&a, agg_mem, 0);
	prof_agg_sink(&a, in, 2);
	CHECK_EQ_U64(a.n, 0);
	CHECK_EQ_U64(a.dropped, 21);
}

static void sort_descending_count_then_pc(void)
{
	struct prof_agg a;
	const struct prof_entry in[] = {
		{ .pc = 0x50, .count = 5 }, { .pc = 0x30, .count = 9 }, { .pc = 0x10, .count = 5 },
		{ .pc = 0x20, .count = 1 }, { .pc = 0x40, .count = 9 }, { .pc = 0x30, .count = 9, .event = 1 },
	};

	prof_agg_init(&a, agg_mem, 16);
	prof_agg_sink(&a, in, 6);
	CHECK_EQ_U64(prof_agg_sort(&a), 6);
	const uint64_t pc[6] = { 0x30, 0x30, 0x40, 0x10, 0x50, 0x20 };
	const uint16_t ev[6] = { 0, 1, 0, 0, 0, 0 };
	for (unsigned i = 0; i < 6; i++) {
		CHECK_EQ_U64(a.e[i].pc, pc[i]);
		CHECK_EQ_U64(a.e[i].event, ev[i]);
	}
	for (unsigned i = 6; i < 16; i++)
		CHECK_EQ_U64(a.e[i].count, 0);
	/* Many entries with few distinct counts: order holds, nothing is lost. */
	struct rand_state r;
	uint64_t sum = 0;
	rand_seed(&r, 5);
	prof_agg_init(&a, agg_mem, AGG_MAX);
	for (unsigned i = 0; i < 3000; i++) {
		struct prof_entry e = { .pc = 0x401000 + rand_below(&r, 4000), .count = 1 + (uint32_t)rand_below(&r, 20) };

		sum += e.count;
		prof_agg_sink(&a, &e, 1);
	}
	uint32_t n = a.n;
	CHECK_EQ_U64(prof_agg_sort(&a), n);
	int ok = 1;
	uint64_t after = a.e[0].count;
	for (uint32_t i = 1; i < n; i++) {
		const struct prof_entry *p = &a.e[i - 1], *q = &a.e[i];

		ok &= p->count > q->count || (p->count == q->count && p->pc < q->pc);
		after += q->count;
	}
	CHECK(ok);
	CHECK_EQ_U64(after, sum);
	CHECK_EQ_U64(prof_agg_sort(&a), n); /* sorting a sorted aggregate is harmless */
	prof_agg_init(&a, agg_mem, 4);
	CHECK_EQ_U64(prof_agg_sort(&a), 0);
}

/* ---- periods ---- */

#define DRAWS 160000
#define BUCKETS 16
/* Chi-square with 15 degrees of freedom: the 0.1% and 99.9% quantiles, fixed before running. */
#define CHI2_LO 3.483
#define CHI2_HI 37.697

static void period_range(void)
{
	struct prof_period p;
	uint64_t lo = UINT64_MAX, hi = 0;
	int ok = 1;

	prof_period_init(&p, 65536, 42);
	CHECK_EQ_U64(p.min, 61440);
	CHECK_EQ_U64(p.max, 65536);
	for (unsigned i = 0; i < DRAWS; i++) {
		uint64_t v = prof_period_next(&p);

		ok &= v >= 61440 && v <= 65536;
		lo = v < lo ? v : lo;
		hi = v > hi ? v : hi;
	}
	CHECK(ok);
	CHECK_EQ_U64(lo, 61440); /* both ends are reached (each value is expected ~39 times) */
	CHECK_EQ_U64(hi, 65536);
	prof_period_init(&p, 1000, 1);
	CHECK_EQ_U64(p.min, 1000 - 62);
}

static void period_uniform(void)
{
	struct prof_period p;
	uint64_t count[BUCKETS] = { 0 }, width[BUCKETS] = { 0 };

	prof_period_init(&p, 65536, 7);
	uint64_t span = p.max - p.min + 1; /* 4097 values: buckets of 256 or 257 */
	for (uint64_t v = 0; v < span; v++)
		width[v * BUCKETS / span]++;
	for (unsigned i = 0; i < DRAWS; i++)
		count[(prof_period_next(&p) - p.min) * BUCKETS / span]++;
	double chi2 = 0;
	for (unsigned b = 0; b < BUCKETS; b++) {
		double expect = (double)DRAWS * (double)width[b] / (double)span, d = (double)count[b] - expect;

		chi2 += d * d / expect;
	}
	test_note("prof period chi2 (15 dof) = %.2f, band [%.3f, %.3f]", chi2, CHI2_LO, CHI2_HI);
	CHECK(chi2 >= CHI2_LO && chi2 <= CHI2_HI);
}

static void period_small_and_reproducible(void)
{
	struct prof_period p, q;
	int ok = 1, seen15 = 0, seen16 = 0;

	for (uint64_t period = 1; period < 16; period++) {
		prof_period_init(&p, period, 3);
		ok &= p.min == period && p.max == period;
		for (int i = 0; i < 100; i++)
			ok &= prof_period_next(&p) == period;
	}
	CHECK(ok);
	prof_period_init(&p, 0, 3); /* out of contract: taken as 1, not a storm of zero periods */
	CHECK_EQ_U64(prof_period_next(&p), 1);
	prof_period_init(&p, 16, 3);
	CHECK_EQ_U64(p.min, 15);
	for (int i = 0; i < 200; i++) {
		uint64_t v = prof_period_next(&p);

		seen15 |= v == 15;
		seen16 |= v == 16;
		ok &= v == 15 || v == 16;
	}
	CHECK(ok && seen15 && seen16);
	prof_period_init(&p, 65536, 99);
	prof_period_init(&q, 65536, 99);
	for (int i = 0; i < 1000; i++)
		ok &= prof_period_next(&p) == prof_period_next(&q);
	CHECK(ok);
	prof_period_init(&q, 65536, 100);
	int differ = 0;
	for (int i = 0; i < 100; i++)
		differ += prof_period_next(&p) != prof_period_next(&q);
	CHECK(differ > 90);
}

TEST_SUITE(prof_table) = {
	{ "set_index_in_range_and_spread", set_index_in_range_and_spread },
	{ "hits_count_in_place", hits_count_in_place },
	{ "four_way_collisions_and_mod4_order", four_way_collisions_and_mod4_order },
	{ "eviction_counter_is_table_wide", eviction_counter_is_table_wide },
	{ "overflow_handover_drain_and_loss", overflow_handover_drain_and_loss },
	{ "count_never_wraps", count_never_wraps },
	{ "accounting_exact_with_evictions", accounting_exact_with_evictions },
	{ "accounting_with_losses", accounting_with_losses },
	{ "agg_merges_duplicates", agg_merges_duplicates },
	{ "agg_full_drops_and_counts", agg_full_drops_and_counts },
	{ "sort_descending_count_then_pc", sort_descending_count_then_pc },
	{ "period_range", period_range },
	{ "period_uniform", period_uniform },
	{ "period_small_and_reproducible", period_small_and_reproducible },
	{ 0, 0 },
};
