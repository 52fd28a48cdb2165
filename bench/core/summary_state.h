/* The run summary's state, shared by its two units: summary.c collects, summary_head.c counts
 * the record stream and writes the headline. Only its sizes are for other users (summary.h is
 * the interface). */
#ifndef BENCH_SUMMARY_STATE_H
#define BENCH_SUMMARY_STATE_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/fmt.h"

/* Cache levels the headline has rows for (L1..L4), then DRAM. */
#define SUMMARY_CACHE_LEVELS 4
#define SUMMARY_IRQ_SOURCES 8
#define SUMMARY_DESTINATIONS 2
#define SUMMARY_DEST_MAX 96

#define SUMMARY_NAME_MAX 24
#define SUMMARY_REASON_MAX 72
#define SUMMARY_SKIPPED_TEXT 640

/* One headline cell of a memory level: the value at the largest buffer size seen there. */
struct summary_cell {
	uint64_t size;
	uint64_t value; /* MB/s (bandwidth) or tenths of a ns (latency); 0 = none */
};

struct summary_irq {
	char source[SUMMARY_NAME_MAX];
	char wait[SUMMARY_NAME_MAX];
	bool spin;
	uint64_t median, p99, n; /* counter cycles past the deadline */
};

struct summary_state {
	uint64_t hz;
	uint64_t cache[SUMMARY_CACHE_LEVELS]; /* data/unified size per level, 0 = none */
	bool dram_unbounded; /* a data cache of unknown geometry: no band above it, no DRAM row */
	struct summary_cell bw[SUMMARY_CACHE_LEVELS + 1], lat[SUMMARY_CACHE_LEVELS + 1];
	struct summary_irq irq[SUMMARY_IRQ_SOURCES];
	unsigned n_irq;
	unsigned outcomes[3];                 /* by enum probe_status */
	unsigned checks_pass, checks_fail, checks_other;
	unsigned skip_records, probe_skips;   /* skip records; those naming a skipped probe's reason */
	char skip_probe[SUMMARY_NAME_MAX];    /* the last skip record's probe and reason */
	char skip_reason[SUMMARY_REASON_MAX];
	struct sbuf skipped;                  /* "  skipped <probe>: <reason>" lines */
	char skipped_text[SUMMARY_SKIPPED_TEXT];
	char dest[SUMMARY_DESTINATIONS][SUMMARY_DEST_MAX];
	unsigned n_dest;
};

/* NULL until summary_init gave it memory. */
extern struct summary_state *summary_st;

#endif
