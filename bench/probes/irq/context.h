/* The conditions a latency set ran under, recorded with every set: the SMI count before and after
 * (Intel's MSR_SMI_COUNT; elsewhere the record says it is unavailable rather than printing 0), and
 * the effective core frequency over the set from APERF/MPERF where this machine reads them (the
 * free-running counters of the PMU interface; under QEMU TCG or hosted the record says why not).
 * An SMI inside a set steals tens to hundreds of microseconds and lands in the tail; a core
 * clocked down stretches every handler's cycles: both are needed to read a tail or a median. */
#ifndef BENCH_IRQ_CONTEXT_H
#define BENCH_IRQ_CONTEXT_H

#include <stdbool.h>
#include <stdint.h>

#include "bench/core/probe.h"
#include "lib/record.h"

#define IRQ_CTX_PPM 1000000ull /* APERF/MPERF ratio in parts per million */

struct irq_context {
	bool smi_ok;
	uint64_t smi0, smi1;
	bool freq_ok;
	const char *freq_why;  /* why no frequency (freq_ok false) */
	uint64_t aperf0, mperf0, aperf1, mperf1;
	struct pmu_plan *plan; /* APERF/MPERF's counter plan, from the arena (too large for a stack) */
};

/* Read everything at the start of a set (just before its first arm), and at its end. */
void irq_context_begin(struct probe_env *env, struct irq_context *c);
void irq_context_end(struct probe_env *env, struct irq_context *c);
/* Into the set's probe record: smi_before/smi_after/smi_count or smi=<why not>; aperf_delta,
 * mperf_delta, aperf_mperf_ppm, eff_hz or eff_freq=<why not>. */
void irq_context_fields(const struct probe_env *env, struct record *r, const struct irq_context *c);

/* Effective frequency: counter_hz x APERF/MPERF (0 when MPERF did not move). Pure arithmetic.
 * aperf_delta x 10^6 stays within 64 bits up to ~1.8e13 core clocks (an hour at 5 GHz). */
static inline uint64_t irq_context_ppm(uint64_t aperf_delta, uint64_t mperf_delta)
{
	return mperf_delta ? aperf_delta * IRQ_CTX_PPM / mperf_delta : 0;
}

static inline uint64_t irq_context_eff_hz(uint64_t counter_hz, uint64_t ppm)
{
	return counter_hz / 1000 * ppm / (IRQ_CTX_PPM / 1000);
}

#endif
