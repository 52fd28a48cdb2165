/* The run's progress for whoever shows it (the firmware's screen): which probe runs (k of N, N
 * from the probes= list), how many sample sets it and the run have declared, the time since the
 * run began by the cycle counter and the time left, estimated from the probes finished so far.
 * The suite reports each probe's start, probe_declare_set each set: both between measurements,
 * never inside a timed window. Without a sink (hosted) it only counts. */
#ifndef BENCH_PROGRESS_H
#define BENCH_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/fmt.h"

/* Receives the status text (two lines, '\n' between them, none at the end) at every update. */
typedef void (*progress_sink_fn)(const char *text);

struct progress {
	uint64_t hz;          /* counter rate; 0 = unknown (times are then not shown) */
	uint64_t t0;          /* counter at the run's start */
	unsigned probes;      /* N: names in the probes= list */
	unsigned probe_k;     /* the running probe, 1..N; 0 before the first */
	const char *probe;    /* its name */
	uint32_t probe_sets;  /* sets the running probe declared so far */
	uint32_t sets;        /* sets the run declared so far */
};

#define PROGRESS_TEXT_MAX 192

#define PROGRESS_LINE_MIN_S 1 /* plain lines (a serial console) at most this often */

void progress_set_sink(progress_sink_fn fn);
/* A second receiver for a line-by-line console (the serial line read through a BMC's
 * Serial-over-LAN): the same status as one plain line "baremetric progress: ...", no control
 * characters, at most once every PROGRESS_LINE_MIN_S by the counter (without a counter rate:
 * once per probe). Never a redraw: each line is new. */
void progress_set_line_sink(progress_sink_fn fn);
/* Whether a plain line is due at counter `now`, the last one at `last` (0: none yet); pure. */
bool progress_line_due(uint64_t last, uint64_t now, uint64_t hz, bool probe_start);
/* The run starts: probe_list as in the probes= option, passes times over (repeat=), hz the
 * counter's rate. */
void progress_begin(const char *probe_list, uint64_t passes, uint64_t hz);
/* A probe starts (called for each name of the list, also those that are skipped at once). */
void progress_probe(const char *name);
/* A sample set was declared (probe_declare_set). */
void progress_set(void);

/* The status text of `p` at counter value `now` (pure: the unit tests' entry). */
void progress_format(const struct progress *p, uint64_t now, struct sbuf *out);
/* Seconds as "m:ss", or "h:mm:ss" from an hour on. */
void progress_time(struct sbuf *out, uint64_t seconds);
/* Time left (in the unit of `elapsed`) when `done` of `total` probes have finished and one runs:
 * the rate so far, counting the running probe as half done, over the probes not done:
 * elapsed x (total - done - 1/2) / (done + 1/2). 0 before the first probe finished (nothing to
 * go by) and when none is left. Probes differ a lot in length: a rough guide, said so. */
uint64_t progress_estimate(uint64_t elapsed, unsigned done, unsigned total);

#endif
