/* The profiler handler path's own cost (issue 11: "within a few hundred cycles"), measured hosted
 * on this machine with the TSC: prof_table_record() per record for a hit, a miss that fills a free
 * way, a miss that evicts into the overflow buffer (all with the table's lines cache-warm), a hit
 * whose set is cold (a 64 MiB table visited at random: a cache and TLB miss per record, the case of
 * a handler interrupting a memory-bound probe), and prof_period_next() (the per-sample draw with
 * rand_below's divisions). Built and run by tests/perf/prof_table_cost.sh.
 *
 * Every call is timed alone between lfence-fenced TSC reads (latency, as in the handler, not the
 * throughput of back-to-back calls); a batch sums BATCH such calls, a round takes the median batch,
 * and rounds alternate the order of the cases. The same timing around an empty function is the
 * baseline (fences, TSC reads, the call): `net` = median - baseline median. Output: one line per
 * case with median, min, max over rounds and net, in TSC ticks per call, net in ns, and the verdict
 * on net against a band fixed before the first run; then "band ok|FAIL". Hosted-only file: libc
 * and floating point for the printout. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "arch/cycles.h"
#include "bench/profile/period.h"
#include "bench/profile/table.h"
#include "lib/rand.h"

#define BATCH 256
#define BATCHES 1000
#define MAX_ROUNDS 64
#define WARM_SETS 1024             /* 64 KiB: warm in L2, the keys' lines in L1 */
#define EVICT_SETS 64              /* small: every fresh key evicts */
#define COLD_SETS (1u << 20)       /* 64 MiB: beyond the last-level cache */
#define OVF_CAP (1u << 16)
#define KEY_BASE 0x7f0000401000ull
#define PROF_PERIOD_DEFAULT_FOR_BENCH 65536 /* DCPI's 60K..64K window */
/* Pass bands, TSC ticks per call, fixed before the first run: a warm table operation is a few
 * dozen instructions (well under 100); a cold set costs one DRAM access plus a page walk (under a
 * VM's nested paging up to ~1500); the period draw has two 64-bit divisions (under 150). */
#define BAND_WARM 100
#define BAND_COLD 1500
#define BAND_PERIOD 150

enum { C_BASE, C_HIT, C_MISS, C_EVICT, C_COLD, C_PERIOD, NCASES };
static const char *const case_name[NCASES] = { "baseline", "hit", "miss_fill", "evict", "hit_cold", "period_next" };
static const uint64_t case_band[NCASES] = { 0, BAND_WARM, BAND_WARM, BAND_WARM, BAND_COLD, BAND_PERIOD };

static volatile uint64_t sink_v;

__attribute__((noinline)) static void noop_record(struct prof_table *t, uint64_t pc, uint16_t event)
{
	sink_v = pc ^ event ^ (uint64_t)(uintptr_t)t;
}

static void noop_sink(void *ctx, const struct prof_entry *e, uint32_t n)
{
	(void)ctx;
	sink_v += e[0].count + n;
}

static void *xalloc(size_t bytes)
{
	void *p = aligned_alloc(64, (bytes + 63) / 64 * 64);

	if (!p) {
		fprintf(stderr, "prof_table_cost: out of memory (%zu bytes)\n", bytes);
		exit(2);
	}
	memset(p, 0, bytes);
	return p;
}

struct tbl {
	struct prof_table t;
	struct prof_entry *sets, *o0, *o1;
	uint32_t nsets;
};

static void tbl_new(struct tbl *b, uint32_t nsets)
{
	b->nsets = nsets;
	b->sets = xalloc((size_t)nsets * PROF_WAYS * sizeof(struct prof_entry));
	b->o0 = xalloc(OVF_CAP * sizeof(struct prof_entry));
	b->o1 = xalloc(OVF_CAP * sizeof(struct prof_entry));
	prof_table_init(&b->t, b->sets, nsets, b->o0, b->o1, OVF_CAP);
}

/* Fill up to n keys that each get a way of their own (no eviction): the hit cases' keys. */
static uint32_t place_keys(struct tbl *b, uint64_t *keys, uint32_t n, struct rand_state *r, int random_pcs)
{
	uint8_t *used = xalloc(b->nsets);
	uint32_t got = 0;

	for (uint64_t i = 0; got < n && i < 8ull * n; i++) {
		uint64_t pc = random_pcs ? KEY_BASE + rand_below(r, 1ull << 32) : KEY_BASE + 3 * i;
		uint32_t s = prof_table_set_index(&b->t, pc, 0);

		if (used[s] < PROF_WAYS) {
			used[s]++;
			keys[got++] = pc;
			prof_table_record(&b->t, pc, 0);
		}
	}
	free(used);
	return got;
}

static void shuffle(uint64_t *v, uint32_t n, struct rand_state *r)
{
	for (uint32_t i = n; i > 1; i--) {
		uint32_t j = (uint32_t)rand_below(r, i);
		uint64_t x = v[i - 1];

		v[i - 1] = v[j];
		v[j] = x;
	}
}

struct state {
	struct tbl warm, miss, evict, cold;
	uint64_t warm_keys[BATCH], *cold_keys, fresh_next;
	uint32_t cold_n, cold_pos;
	struct prof_period period;
};

/* Every way of the evict table taken by a fresh key, so that each later fresh key evicts. */
static void evict_fill(struct state *s)
{
	struct tbl *b = &s->evict;

	for (uint32_t set = 0; set < b->nsets; set++)
		for (;;) {
			const struct prof_entry *e = &b->sets[(uint64_t)set * PROF_WAYS];
			unsigned w = 0;

			while (w < PROF_WAYS && e[w].count)
				w++;
			if (w == PROF_WAYS)
				break;
			prof_table_record(&b->t, KEY_BASE + 3 * (s->fresh_next++), 0);
		}
	prof_table_drain(&b->t, noop_sink, NULL);
}

/* Each call between its own fenced TSC reads, as the handler runs: alone, one record per
 * interrupt, so a cold set's miss cannot overlap with the next record's (a plain loop would let
 * out-of-order execution overlap them and report throughput, not latency). */
static uint64_t time_records(struct prof_table *t, const uint64_t *keys, void (*rec)(struct prof_table *, uint64_t, uint16_t))
{
	uint64_t sum = 0;

	for (uint32_t i = 0; i < BATCH; i++) {
		uint64_t t0 = cycles_begin();

		rec(t, keys[i], 0);
		sum += cycles_begin() - t0;
	}
	return sum;
}

/* One batch of `c`: TSC ticks for BATCH calls. */
static uint64_t batch(struct state *s, int c)
{
	uint64_t keys[BATCH], t0, sum = 0, ticks = 0;

	switch (c) {
	case C_BASE:
		return time_records(&s->warm.t, s->warm_keys, noop_record);
	case C_HIT:
		return time_records(&s->warm.t, s->warm_keys, prof_table_record);
	case C_MISS:
		/* A fresh table each batch (cleared outside the timing): every key fills a free way. */
		prof_table_init(&s->miss.t, s->miss.sets, s->miss.nsets, s->miss.o0, s->miss.o1, OVF_CAP);
		for (uint32_t i = 0; i < BATCH; i++)
			keys[i] = KEY_BASE + 3 * (s->fresh_next++);
		return time_records(&s->miss.t, keys, prof_table_record);
	case C_EVICT:
		/* Room for the batch's evictions in the active buffer (freed outside the timing). */
		if (s->evict.t.ovf[s->evict.t.active].n + BATCH > OVF_CAP) {
			prof_table_flush(&s->evict.t, noop_sink, NULL);
			evict_fill(s);
			prof_table_flush(&s->evict.t, noop_sink, NULL);
			evict_fill(s);
		}
		for (uint32_t i = 0; i < BATCH; i++)
			keys[i] = KEY_BASE + 3 * (s->fresh_next++);
		return time_records(&s->evict.t, keys, prof_table_record);
	case C_COLD:
		if (s->cold_pos + BATCH > s->cold_n)
			s->cold_pos = 0;
		s->cold_pos += BATCH;
		return time_records(&s->cold.t, s->cold_keys + s->cold_pos - BATCH, prof_table_record);
	case C_PERIOD:
		for (uint32_t i = 0; i < BATCH; i++) {
			t0 = cycles_begin();
			sum += prof_period_next(&s->period);
			ticks += cycles_begin() - t0;
		}
		sink_v = sum;
		return ticks;
	}
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* TSC ticks per nanosecond against CLOCK_MONOTONIC over ~100 ms, for the ns column. */
static double tsc_per_ns(void)
{
	struct timespec a, b, d = { 0, 100000000 };
	uint64_t t0, t1;

	clock_gettime(CLOCK_MONOTONIC, &a);
	t0 = cycles_begin();
	nanosleep(&d, NULL);
	t1 = cycles_begin();
	clock_gettime(CLOCK_MONOTONIC, &b);
	return (double)(t1 - t0) / ((double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec));
}

int main(int argc, char **argv)
{
	static uint64_t per_round[NCASES][MAX_ROUNDS], ticks[BATCHES];
	struct state s = { 0 };
	struct rand_state r;
	int rounds = argc > 1 ? atoi(argv[1]) : 7, bad = 0;

	if (rounds < 1 || rounds > MAX_ROUNDS) {
		fprintf(stderr, "prof_table_cost: rounds must be 1..%d\n", MAX_ROUNDS);
		return 2;
	}
	rand_seed(&r, 1);
	tbl_new(&s.warm, WARM_SETS);
	tbl_new(&s.miss, WARM_SETS);
	tbl_new(&s.evict, EVICT_SETS);
	tbl_new(&s.cold, COLD_SETS);
	if (place_keys(&s.warm, s.warm_keys, BATCH, &r, 0) != BATCH) {
		fprintf(stderr, "prof_table_cost: could not place %d warm keys\n", BATCH);
		return 2;
	}
	s.cold_keys = xalloc(COLD_SETS * sizeof(uint64_t));
	s.cold_n = place_keys(&s.cold, s.cold_keys, COLD_SETS, &r, 1) / BATCH * BATCH;
	shuffle(s.cold_keys, s.cold_n, &r);
	s.fresh_next = 1ull << 36; /* fresh keys never meet the placed ones */
	evict_fill(&s);
	prof_period_init(&s.period, PROF_PERIOD_DEFAULT_FOR_BENCH, 1);

	for (int round = 0; round < rounds; round++) {
		for (int k = 0; k < NCASES; k++) {
			int c = round & 1 ? NCASES - 1 - k : k; /* alternate the order */

			for (int i = 0; i < BATCHES; i++)
				ticks[i] = batch(&s, c);
			qsort(ticks, BATCHES, sizeof(ticks[0]), cmp_u64);
			per_round[c][round] = ticks[BATCHES / 2];
		}
	}
	/* Sanity: the cases did what they say. */
	uint64_t warm_evictions = s.warm.t.evictions, miss_evictions = s.miss.t.evictions, cold_evictions = s.cold.t.evictions;
	double f = tsc_per_ns();

	printf("# prof_table_cost: TSC ticks per call, median of %d batches of %d, over %d rounds; tsc_ghz %.3f\n",
	       BATCHES, BATCH, rounds, f);
	printf("# sanity: evictions in hit %llu, miss_fill (last batch) %llu, hit_cold %llu (all expected 0); "
	       "evict case evictions %llu\n",
	       (unsigned long long)warm_evictions, (unsigned long long)miss_evictions,
	       (unsigned long long)cold_evictions, (unsigned long long)s.evict.t.evictions);
	bad |= warm_evictions || miss_evictions || cold_evictions;
	printf("%-12s %8s %8s %8s %8s %8s %6s %s\n", "case", "median", "min", "max", "net", "net_ns", "band",
	       "status");
	double base = 0;
	for (int c = 0; c < NCASES; c++) {
		uint64_t v[MAX_ROUNDS];

		memcpy(v, per_round[c], sizeof(v[0]) * rounds);
		qsort(v, rounds, sizeof(v[0]), cmp_u64);
		double med = (double)v[rounds / 2] / BATCH;
		if (c == C_BASE)
			base = med;
		double net = med - base;
		int ok = !case_band[c] || net <= (double)case_band[c];

		bad |= !ok;
		printf("%-12s %8.1f %8.1f %8.1f %8.1f %8.1f %6llu %s\n", case_name[c], med, (double)v[0] / BATCH,
		       (double)v[rounds - 1] / BATCH, net, net / f, (unsigned long long)case_band[c],
		       case_band[c] ? (ok ? "ok" : "FAIL") : "-");
	}
	printf("band %s\n", bad ? "FAIL" : "ok");
	return bad;
}
