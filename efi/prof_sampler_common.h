/* What the bare-metal sampling sources share (bench/profile/sampler.h; x86_64:
 * efi/x86_64/prof_sampler.c, AArch64: efi/aarch64/prof_sampler.c): the checks before any source is
 * armed, the per-CPU state from the arena, the choice between counter overflow and the timer, the
 * timer period's floor and the ns-to-counter conversion, the handler's CPU index, the drain at a
 * stop and the sampling windows (prof_sampler_window_open/close). Each port keeps its sources. */
#ifndef DRIVERS_PROF_SAMPLER_COMMON_H
#define DRIVERS_PROF_SAMPLER_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include "bench/profile/sampler.h"

/* As on every port: a shorter timer period would leave the probe no time (the handler takes some
 * microseconds under TCG). */
#define PROF_MIN_PERIOD_NS 2000ull
/* How long a stop waits for a sample requested before it, to take it there. */
#define PROF_STOP_DRAIN_US 2000ull

typedef bool (*prof_start_fn)(struct probe_env *env, const struct prof_sampler_req *req,
			      struct prof_sampler_info *out, const char **why);

/* Can anything sample here (our interrupt entry, the platform's sources, the counter's rate, the
 * profiler's vector free)? Then the per-CPU state: *ncpu entries of `size` bytes, zeroed, from the
 * probe's arena. NULL with *why otherwise. */
void *prof_sampler_prepare(struct probe_env *env, size_t size, unsigned *ncpu, const char **why);
/* Start what req->source asks: PROF_SRC_PMU the overflow source (its reason when it cannot),
 * PROF_SRC_TIMER the timer, PROF_SRC_AUTO the overflow source, else the timer with out->fallback
 * saying why not the counter. */
bool prof_sampler_choose(struct probe_env *env, const struct prof_sampler_req *req, struct prof_sampler_info *out,
			 const char **why, prof_start_fn start_pmi, prof_start_fn start_timer);
/* The timer source's period (req->period, else the default), or 0 with *why when it is below
 * PROF_MIN_PERIOD_NS. */
uint64_t prof_timer_period(const struct prof_sampler_req *req, const char **why);
/* ns in counter ticks at hz, without overflowing for any ns a run can ask for. */
uint64_t prof_ns_to_ticks(uint64_t ns, uint64_t hz);
/* The running CPU's index (0 = the boot CPU) among ncpu: looked up only while application
 * processors sample (aps), else 0. */
unsigned prof_cpu_index(bool aps, unsigned ncpu);
/* Interrupts masked: while pending(arg) says a sample requested before the stop is still pending
 * here, open a short window to take it, for at most PROF_STOP_DRAIN_US (rather than leave it for a
 * later window). */
void prof_drain_pending(bool (*pending)(const void *arg), const void *arg, uint64_t counter_hz);

#endif
