/* The profiler's per-CPU sample store (see bench/profile/table.h): the handler path prof_table_record(),
 * the drains that empty the overflow buffers, and the aggregate they feed.
 *
 * Handler path cost: one multiply-shift hash (two multiplies, no division), one 64-byte set
 * (PROF_WAYS entries of 16 bytes; the caller's `sets` memory must be 64-byte aligned for that to be
 * one cache line: nothing is asserted at run time) and the first line of the struct; on eviction
 * also one overflow slot and the struct's second line. No loops beyond the 4 ways, no calls on a
 * hit or fill, no locks, no shared writes: each CPU has its own table. Measured on the build
 * machine by tests/perf/prof_table_cost.sh.
 *
 * Concurrency: the handler and prof_table_drain() of one table run on the same CPU (the drain may
 * be interrupted by the handler) or with that CPU's sampling stopped. The handler only writes to a
 * buffer that is not full and the drain only reads and frees full ones; `full` is cleared last, by
 * a volatile store ordered after the volatile reset of `n`. */
/* OPT_FAST: -O2 (Makefile): the profiler's sampling path and the counters it reads. */
#include "bench/profile/table.h"

#include <stddef.h>

/* The hit path reads sets and nsets and bumps samples: with the struct 64-byte aligned (the
 * caller's business, as for `sets`) that is its first cache line. Evictions also touch the
 * counters after it (a second line) and one overflow slot. */
_Static_assert(offsetof(struct prof_table, samples) + sizeof(uint64_t) <= 64,
	       "the hit path's fields of struct prof_table must share the first cache line");

/* Fibonacci hashing (Knuth, TAOCP 6.4): 2^64 / golden ratio, odd. The top bits of key * MULT are
 * the well-mixed ones; the event goes into the high bits of the key so that the same pc with
 * two events lands in different sets. */
#define PROF_HASH_MULT 0x9E3779B97F4A7C15ull
#define PROF_HASH_EVENT_SHIFT 48
#define PROF_COUNT_MAX 0xFFFFFFFFu /* a count never wraps: at this value the entry is evicted first */

static inline uint64_t prof_hash(uint64_t pc, uint16_t event)
{
	return (pc ^ ((uint64_t)event << PROF_HASH_EVENT_SHIFT)) * PROF_HASH_MULT;
}

/* The top log2(n) bits of the hash for a power-of-two n, without storing the shift: the top 32
 * bits scaled by n (Lemire's multiply-high reduction; exact multiply-shift when n is a power of
 * two <= 2^32). */
static inline uint32_t prof_slot(uint64_t h, uint32_t n)
{
	return (uint32_t)(((h >> 32) * (uint64_t)n) >> 32);
}

/* Public for tests; the handler uses the static copy (a -fpic global would not be inlined). */
uint32_t prof_table_set_index(const struct prof_table *t, uint64_t pc, uint16_t event)
{
	return prof_slot(prof_hash(pc, event), t->nsets);
}

static void entry_clear(struct prof_entry *e)
{
	e->pc = 0;
	e->count = 0;
	e->event = 0;
	e->pad = 0;
}

void prof_table_init(struct prof_table *t, struct prof_entry *sets, uint32_t nsets, struct prof_entry *ovf0,
		     struct prof_entry *ovf1, uint32_t ovf_cap)
{
	t->sets = sets;
	t->nsets = nsets;
	t->evict_next = 0;
	t->ovf[0].e = ovf0;
	t->ovf[0].n = 0;
	t->ovf[0].full = 0;
	t->ovf[1].e = ovf1;
	t->ovf[1].n = 0;
	t->ovf[1].full = 0;
	t->ovf_cap = ovf_cap;
	t->active = 0;
	t->samples = 0;
	t->evictions = 0;
	t->handoffs = 0;
	t->lost_entries = 0;
	t->lost_samples = 0;
	for (uint64_t i = 0; i < (uint64_t)nsets * PROF_WAYS; i++)
		entry_clear(&sets[i]);
}

/* Append an evicted entry to the active overflow buffer; a buffer that fills is handed over and
 * the other one becomes active. Both full: the entry is lost, and counted. */
static void ovf_push(struct prof_table *t, const struct prof_entry *e)
{
	struct prof_ovf *o = &t->ovf[t->active];

	t->evictions++;
	if (o->full) {
		/* It filled earlier while the other was full; the other may have been drained since. */
		t->active ^= 1;
		o = &t->ovf[t->active];
		if (o->full) {
			t->lost_entries++;
			t->lost_samples += e->count;
			return;
		}
	}
	o->e[o->n] = *e;
	if (++o->n >= t->ovf_cap) {
		o->full = 1;
		t->handoffs++;
		t->active ^= 1;
	}
}

void prof_table_record(struct prof_table *t, uint64_t pc, uint16_t event)
{
	struct prof_entry *set = &t->sets[(uint64_t)prof_slot(prof_hash(pc, event), t->nsets) * PROF_WAYS];
	struct prof_entry *free_way = 0;

	t->samples++;
	for (unsigned w = 0; w < PROF_WAYS; w++) {
		struct prof_entry *e = &set[w];

		if (e->count == 0) {
			if (!free_way)
				free_way = e;
			continue;
		}
		if (e->pc != pc || e->event != event)
			continue;
		if (e->count == PROF_COUNT_MAX) {
			/* Would wrap: hand the full count over and start again at one. */
			ovf_push(t, e);
			e->count = 1;
		} else {
			e->count++;
		}
		return;
	}
	if (!free_way) {
		free_way = &set[t->evict_next & (PROF_WAYS - 1)];
		t->evict_next++;
		ovf_push(t, free_way);
	}
	free_way->pc = pc;
	free_way->event = event;
	free_way->pad = 0;
	free_way->count = 1;
}

/* Pass a full (or, when flushing, partial) buffer to the sink and free it: n is reset before
 * full is cleared, both volatile stores, so the handler never sees a free buffer with a stale n. */
static uint32_t ovf_release(struct prof_ovf *o, prof_sink_fn sink, void *ctx)
{
	uint32_t n = o->n;

	if (n)
		sink(ctx, o->e, n);
	*(volatile uint32_t *)&o->n = 0;
	o->full = 0;
	return n;
}

uint32_t prof_table_drain(struct prof_table *t, prof_sink_fn sink, void *ctx)
{
	uint32_t passed = 0;

	for (unsigned i = 0; i < 2; i++)
		if (t->ovf[i].full)
			passed += ovf_release(&t->ovf[i], sink, ctx);
	return passed;
}

uint32_t prof_table_flush(struct prof_table *t, prof_sink_fn sink, void *ctx)
{
	uint32_t passed = 0;

	/* The inactive buffer first: when both hold entries it is the older one. */
	passed += ovf_release(&t->ovf[t->active ^ 1], sink, ctx);
	passed += ovf_release(&t->ovf[t->active], sink, ctx);
	t->active = 0;
	for (uint32_t s = 0; s < t->nsets; s++) {
		struct prof_entry *set = &t->sets[(uint64_t)s * PROF_WAYS], live[PROF_WAYS];
		uint32_t n = 0;

		for (unsigned w = 0; w < PROF_WAYS; w++) {
			if (set[w].count)
				live[n++] = set[w];
			entry_clear(&set[w]);
		}
		if (n)
			sink(ctx, live, n);
		passed += n;
	}
	return passed;
}

/* ---- the aggregate (outside interrupt context) ---- */

void prof_agg_init(struct prof_agg *a, struct prof_entry *mem, uint32_t cap)
{
	a->e = mem;
	a->cap = cap;
	a->n = 0;
	a->total = 0;
	a->dropped = 0;
	for (uint32_t i = 0; i < cap; i++)
		entry_clear(&mem[i]);
}

/* Linear probing from the key's home slot, over at most cap slots. A key whose count would pass
 * 2^32 - 1 gets a second entry further on (the host sums entries of one key), so nothing wraps. */
static void agg_merge(struct prof_agg *a, const struct prof_entry *in)
{
	uint32_t mask = a->cap - 1, i = a->cap ? prof_slot(prof_hash(in->pc, in->event), a->cap) : 0;

	for (uint32_t probes = 0; probes < a->cap; probes++, i = (i + 1) & mask) {
		struct prof_entry *e = &a->e[i];

		if (e->count == 0) {
			*e = *in;
			e->pad = 0;
			a->n++;
			a->total += in->count;
			return;
		}
		if (e->pc == in->pc && e->event == in->event && e->count <= PROF_COUNT_MAX - in->count) {
			e->count += in->count;
			a->total += in->count;
			return;
		}
	}
	a->dropped += in->count;
}

void prof_agg_sink(void *ctx, const struct prof_entry *e, uint32_t n)
{
	struct prof_agg *a = ctx;

	for (uint32_t i = 0; i < n; i++)
		if (e[i].count)
			agg_merge(a, &e[i]);
}

/* Sort order: descending count, then ascending pc, then ascending event. */
static int entry_before(const struct prof_entry *x, const struct prof_entry *y)
{
	if (x->count != y->count)
		return x->count > y->count;
	if (x->pc != y->pc)
		return x->pc < y->pc;
	return x->event < y->event;
}

static void entry_swap(struct prof_entry *x, struct prof_entry *y)
{
	struct prof_entry tmp = *x;

	*x = *y;
	*y = tmp;
}

/* Heap whose root is the entry that sorts last, so the heap's repeated extraction leaves v in
 * entry_before order (heapsort: no recursion, no allocation, as lib/sort.c; lib/sort.h only
 * sorts plain uint64_t values). */
static void sift_down(struct prof_entry *v, uint32_t root, uint32_t n)
{
	for (;;) {
		uint32_t child = 2 * root + 1;

		if (child >= n)
			return;
		if (child + 1 < n && entry_before(&v[child], &v[child + 1]))
			child++;
		if (!entry_before(&v[root], &v[child]))
			return;
		entry_swap(&v[root], &v[child]);
		root = child;
	}
}

uint32_t prof_agg_sort(struct prof_agg *a)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < a->cap; i++)
		if (a->e[i].count)
			a->e[n++] = a->e[i];
	for (uint32_t i = n; i < a->cap; i++)
		entry_clear(&a->e[i]);
	for (uint32_t i = n / 2; i-- > 0;)
		sift_down(a->e, i, n);
	for (uint32_t end = n; end > 1; end--) {
		entry_swap(&a->e[0], &a->e[end - 1]);
		sift_down(a->e, 0, end - 1);
	}
	a->n = n;
	return n;
}
