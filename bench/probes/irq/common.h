/* What the interrupt probes share (bare metal only): the interrupted code's wait modes (hlt,
 * spin, touching an L1D- or L2-sized pointer chain: Schaelicke's refined experiment, so the
 * handler meets cold caches), bounded waits, the fallback wake-up that bounds a hlt, interrupt
 * bookkeeping (armed, taken, spurious, unexpected), and the probe-record fields they all carry. */
#ifndef BENCH_IRQ_COMMON_H
#define BENCH_IRQ_COMMON_H

#include <stdbool.h>
#include <stdint.h>

#include "arch/irq.h"
#include "bench/core/probe.h"
#include "bench/core/irq_platform.h"

#define IRQ_WARMUP 16          /* unrecorded samples before each set (first calls are cold) */
#define IRQ_CHASE_CHUNK 64     /* loads between checks of the "taken" flag while touching */
#define IRQ_DRAIN_US 2000      /* bound on taking what a probe left pending */

/* spin: a TSC poll with `pause` (cpu_relax); spin_nopause: the same poll without it (pause
 * delays noticing the flag and, on some cores, the interrupt's recognition by up to ~140 cycles). */
enum irq_wait { IRQ_WAIT_HLT, IRQ_WAIT_SPIN, IRQ_WAIT_L1D, IRQ_WAIT_L2, IRQ_WAIT_SPIN_NOPAUSE, IRQ_NUM_WAITS };

/* Pointer chains the waiting code touches (NULL head: that level is not described). */
struct irq_touch {
	void *head[IRQ_NUM_WAITS];
	uint64_t bytes[IRQ_NUM_WAITS];
	const char *why[IRQ_NUM_WAITS]; /* no chain because the level's geometry is unknown: why */
};

/* The state a measuring handler writes. */
struct irq_hit {
	volatile uint64_t entry;  /* entry TSC of the last interrupt */
	volatile uint32_t hits;   /* interrupts on the measured vector */
	volatile uint32_t guards; /* interrupts on the guard vector */
};

struct irq_tally {
	struct irq_counts before;
	uint64_t armed, taken, lost, early, extra, guards;
	uint64_t spurious, unexpected; /* filled by irq_tally_end */
};

const char *irq_wait_name(enum irq_wait w);
/* The interrupt probes' cleanup (probe_desc.cleanup): interrupts masked, every source a probe
 * may arm stopped and masked, what they left pending or in service drained (irq_drain), the
 * probe vectors' handlers and the exception hooks removed, so a probe abandoned after a fault
 * leaves nothing that could fire into a dead stack frame or into the next probe's window. Emits
 * a `check name=irq_cleanup` record saying what it drained (fail: something stayed pending). */
void irq_probe_cleanup(struct probe_env *env);
/* What a drain found: vectors in service (EOI sent for them), pending interrupts taken, and
 * vectors still pending or in service when the bound ran out. */
struct irq_drain_stats {
	unsigned in_service;
	uint64_t delivered;
	unsigned left;
};
/* Bring the local APIC back to nothing in service and nothing pending, with every source
 * already stopped and interrupts masked: EOI what is in service, then take what is pending in a
 * window of at most IRQ_DRAIN_US with counting handlers on the probe vectors. True if nothing is
 * left. Run by the cleanup after every interrupt probe and once after the platform's set-up. */
bool irq_drain(struct irq_platform *p, uint64_t counter_hz, struct irq_drain_stats *st);
/* Why the probes cannot run (NULL if they can): hosted, no platform, ... */
const char *irq_probe_unavailable(const struct probe_env *env);
/* At the start of each interrupt probe: false (and an error message) when a source is still
 * armed or a probe vector still has a handler: an earlier probe left them (the cleanup failed). */
bool irq_probe_begin(struct probe_env *env, const char *probe);
/* Build the L1D and L2 chains from CPUID's caches (missing levels stay NULL). */
void irq_touch_prepare(struct probe_env *env, struct irq_touch *t);
/* One lap over a chain (fills the level before a measurement). */
void irq_touch_lap(const struct irq_touch *t, enum irq_wait w);

/* The handler for the measured vector (ctx = struct irq_hit) and for the guard vector. */
void irq_hit_handler(void *ctx, uint64_t entry_cycles);
void irq_guard_handler(void *ctx, uint64_t entry_cycles);

/* Open the interrupt window and wait, in mode w, until h->hits changes from `hits_before`, the
 * guard fires, or the TSC passes `limit`; the window is closed again on return. True if taken. */
bool irq_wait_taken(struct irq_hit *h, uint32_t hits_before, enum irq_wait w, const struct irq_touch *t,
		    uint64_t limit);

/* The guard source for a hlt wait on source s (another timer), or IRQ_NUM_SOURCES if none. */
enum irq_source irq_guard_for(const struct irq_platform *p, enum irq_source s);

/* Known handler work: touch (write) `lines` lines of buf at `line` stride. */
void irq_work_touch(volatile uint8_t *buf, unsigned lines, unsigned line);

void irq_tally_begin(struct irq_tally *t);
void irq_tally_end(struct irq_tally *t);
/* armed, taken, lost, early, extra, spurious, unexpected (+ guards) into a probe record. */
void irq_tally_fields(struct record *r, const struct irq_tally *t);
uint64_t irq_us_to_cycles(const struct probe_env *env, uint64_t us);

#endif
