/* probe_ops.S's spin loop, the known work the runner and the PMU time: in a header of its own so
 * the PMU (pmu.c) uses it without the generic-timer unit, which uses the PMU (tsc.h includes this
 * for its other users). */
#ifndef ARCH_AARCH64_PROBE_OPS_H
#define ARCH_AARCH64_PROBE_OPS_H

#include <stdint.h>

/* A spin loop of exactly 2 instructions per iteration (subs; b.ne): known work for the runner
 * (probe_ops.S, so the compiler cannot reshape it). */
void arch_spin(uint64_t iterations);
#define ARCH_SPIN_LOOP "subs_bne" /* the loop's name in records (loop=) */

#endif
