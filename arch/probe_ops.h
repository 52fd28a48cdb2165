/* The known work of probe_ops.S (each CPU's, in assembly so the compiler cannot reshape it): the
 * runner's spin loop and the profiler's known split. A header of its own, below the cycle counter
 * (arch/cycles.h includes it for its users), so the PMU's self-test can spin without the
 * cycle-counter unit, which reads the PMU on AArch64. */
#ifndef ARCH_PROBE_OPS_H
#define ARCH_PROBE_OPS_H

#include <stdint.h>

/* A spin loop of exactly 2 instructions per iteration: known work for the runner. */
void arch_spin(uint64_t iterations);
/* The same loop in two separate functions: the profiler's known split. */
void arch_split_a(uint64_t iterations);
void arch_split_b(uint64_t iterations);
/* ARCH_ADD_CHAIN_LEN dependent register adds per iteration, 1 cycle each: the core clock's
 * yardstick (bench/core/core_clock.h). Returns the chain's sum (iterations * length). */
uint64_t arch_add_chain(uint64_t iterations);
#define ARCH_ADD_CHAIN_LEN 16
/* ARCH_LOAD_BURST_LEN independent 8-byte loads per iteration from the 64-byte line at `line`: a
 * rate bound by the core's load ports, the core clock's throughput reference (a sibling hardware
 * thread's loads slow it; the add chain does not notice them). Returns the last value loaded. */
uint64_t arch_load_burst(const void *line, uint64_t iterations);
#define ARCH_LOAD_BURST_LEN 16

/* The loop's name in records (loop=, fluid=), ARCH_SPIN_LOOP: the CPU's part. */
#include <cpu/probe_ops.h>

#endif
