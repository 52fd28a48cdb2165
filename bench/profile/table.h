/* The profiler's per-CPU sample store (DCPI, Anderson et al. 1997, section 4.2): a 4-way
 * set-associative hash table of (pc, event) -> count that the sampling interrupt handler updates,
 * with a mod-4 round-robin eviction counter and a pair of overflow buffers that take evicted
 * entries. When the active overflow buffer fills, the handler hands it over (marks it full) and
 * switches to the other; outside interrupt context prof_table_drain() passes full buffers to a
 * sink and frees them. If both are full an evicted entry is lost and counted, never silently
 * dropped. The handler path touches one set (4 entries of 16 bytes: one 64-byte line) and, on
 * eviction, one overflow slot. Freestanding: no allocation, the caller supplies the memory. */
#ifndef BENCH_PROF_TABLE_H
#define BENCH_PROF_TABLE_H

#include <stdbool.h>
#include <stdint.h>

#define PROF_WAYS 4

/* One aggregated sample count. count == 0 marks a free way. */
struct prof_entry {
	uint64_t pc;
	uint32_t count;
	uint16_t event; /* index into the run's event list */
	uint16_t pad;
};

struct prof_ovf {
	struct prof_entry *e;
	uint32_t n;             /* entries used */
	volatile uint32_t full; /* handed over by the handler, waiting for a drain */
};

struct prof_table {
	struct prof_entry *sets; /* nsets * PROF_WAYS entries, 64-byte aligned */
	uint32_t nsets;          /* a power of two */
	uint32_t evict_next;     /* the mod-4 eviction counter */
	struct prof_ovf ovf[2];
	uint32_t ovf_cap;        /* entries per overflow buffer */
	uint32_t active;         /* the overflow buffer that takes evictions (0 or 1) */
	uint64_t samples;        /* prof_table_record calls */
	uint64_t evictions;      /* entries pushed out of the table (including the lost ones) */
	uint64_t handoffs;       /* overflow buffers handed over full */
	uint64_t lost_entries;   /* evicted entries that found both buffers full */
	uint64_t lost_samples;   /* the counts those entries carried */
};

/* nsets must be a power of two and `sets` 64-byte aligned, so that a set is one cache line (not
 * checked at run time: the handler path asserts nothing); ovf0/ovf1 hold ovf_cap >= 1 entries
 * each. Align the struct prof_table to 64 bytes as well: a hit then touches two lines (the set and
 * the struct's first), an eviction two more (the struct's second, one overflow slot). */
void prof_table_init(struct prof_table *t, struct prof_entry *sets, uint32_t nsets, struct prof_entry *ovf0,
		     struct prof_entry *ovf1, uint32_t ovf_cap);
/* The handler path: count one sample of `event` at `pc`. */
void prof_table_record(struct prof_table *t, uint64_t pc, uint16_t event);
/* The set a (pc, event) key maps to: the top log2(nsets) bits of a multiply-shift hash. The agg
 * uses the same hash for its home slot. Exposed for tests (constructing colliding keys). */
uint32_t prof_table_set_index(const struct prof_table *t, uint64_t pc, uint16_t event);

typedef void (*prof_sink_fn)(void *ctx, const struct prof_entry *e, uint32_t n);
/* Outside interrupt context (or with sampling stopped): pass every full overflow buffer to the
 * sink, then free it. Returns the entries passed. */
uint32_t prof_table_drain(struct prof_table *t, prof_sink_fn sink, void *ctx);
/* With sampling stopped: pass everything (overflow buffers, then the table's live entries) and
 * leave the table empty. Returns the entries passed. */
uint32_t prof_table_flush(struct prof_table *t, prof_sink_fn sink, void *ctx);

/* The aggregate the drains feed (outside interrupt context): an open-addressing table keyed by
 * (pc, event) in caller-supplied memory. Entries that find it full are counted in `dropped`. */
struct prof_agg {
	struct prof_entry *e;
	uint32_t cap; /* a power of two */
	uint32_t n;
	uint64_t total;   /* samples merged */
	uint64_t dropped; /* samples that found no slot */
};
void prof_agg_init(struct prof_agg *a, struct prof_entry *mem, uint32_t cap);
/* A prof_sink_fn: ctx is the struct prof_agg. A key whose merged count would pass 2^32 - 1 gets
 * a second entry (consumers sum entries of one key); counts never wrap. total + dropped = the
 * counts passed in. */
void prof_agg_sink(void *ctx, const struct prof_entry *e, uint32_t n);
/* Sort the used entries to the front by descending count (ties: ascending pc, event); the table
 * is no longer searchable afterwards. Returns n. */
uint32_t prof_agg_sort(struct prof_agg *a);

#endif
