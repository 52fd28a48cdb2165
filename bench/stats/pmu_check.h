/* The verdict of pmu_check (bench/probes/pmu.c) from its repeated counts, separated from the
 * probe so the unit tests can feed it counts an SMI or an interrupt disturbed.
 *
 * Counts: d0 = instructions counted around arch_spin(0) (the reads' own overhead), ds / dl =
 * around arch_spin(short) / arch_spin(long), `reps` repetitions each. A disturbance (an SMI
 * without FREEZE_WHILE_SMM, an NMI) can only add instructions, so:
 * - overhead = the minimum of d0; measured = min(ds or dl) - overhead;
 * - tolerance = the upper quartile of d0 minus its minimum: an order statistic, so up to a
 *   quarter of the repetitions may be inflated without widening it (a max-min spread would let
 *   one SMI make any count pass);
 * - the tolerance itself must be plausible: above PMU_CHECK_MAX_TOLERANCE the overhead is not
 *   repeatable and the check fails whatever it measured (tolerance_ok = false). */
#ifndef BENCH_PMU_CHECK_JUDGE_H
#define BENCH_PMU_CHECK_JUDGE_H

#include <stdbool.h>
#include <stdint.h>

/* 5% of the short loop's 2 x 1000 instructions: the reads' overhead is a few dozen instructions
 * of fixed code, so a spread this large means the counts are disturbed, not the loop miscounted. */
#define PMU_CHECK_MAX_TOLERANCE 100u
#define PMU_CHECK_MAX_REPS 64u

struct pmu_check_verdict {
	uint64_t overhead, tolerance;
	uint64_t measured_short, measured_long;
	bool tolerance_ok, pass;
};

void pmu_check_judge(const uint64_t *d0, const uint64_t *ds, const uint64_t *dl, unsigned reps,
		     uint64_t expected_short, uint64_t expected_long, struct pmu_check_verdict *v);

#endif
