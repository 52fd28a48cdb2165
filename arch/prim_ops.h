/* Primitive-cost kernels (hbench-OS ch. 4: the machine vector's discrete primitives), in assembly
 * so the compiler cannot reshape them: each runs PRIM_OPS_PER_ITER operations of one kind per loop
 * iteration, so a sample's time over iters x PRIM_OPS_PER_ITER is one operation's cost
 * (bench/probes/prim.c times them; the harness turns the sets into coefficients,
 * harness/bmharness/analysis/prim_costs.py). The loop's own counter and branch run beside the
 * operations and are part of each operation's share (2 of 18 instructions for the simple kernels).
 *
 * The branch kernels take a struct prim_rand: one xorshift64 step per iteration gives the bits the
 * iteration's 16 branches test, (state & mask) ^ PRIM_PATTERN: mask 0 gives every branch site
 * the same outcome every time, taken at half the sites (a predicted branch, taken as often as a
 * random one), mask PRIM_RANDOM_MASK one random bit per branch (a mispredicted one half the time
 * on a predictor that cannot learn the generator). The same instructions and the same share
 * taken either way, so the difference of the two is the misprediction alone (an emulator, which
 * has no predictor but may pay for a taken branch, shows none). `state` carries on. */
#ifndef ARCH_PRIM_OPS_H
#define ARCH_PRIM_OPS_H

#include <stdint.h>

#define PRIM_OPS_PER_ITER 16
#define PRIM_RANDOM_MASK 0xFFFFull /* the 16 branches test bits 0..15 */
#define PRIM_PATTERN 0x5555ull     /* the fixed outcome: the even sites taken */
#define PRIM_STORE_BYTES 128       /* the store kernel writes two 64-byte lines */

struct prim_rand {
	uint64_t mask;
	uint64_t state;   /* xorshift64 state, never 0 */
	uint64_t pattern; /* PRIM_PATTERN */
};

/* Integer add, register + register: dependent (each waits for the last: latency) and
 * independent (eight accumulators: throughput). */
uint64_t arch_prim_int_dep(uint64_t iters);
uint64_t arch_prim_int_indep(uint64_t iters);
/* 8-byte stores to two 64-byte lines. The load kernel (16 independent 8-byte loads from one
 * line, L1 hits) is arch_load_burst of arch/probe_ops.h, the core clock's throughput reference:
 * the same loop, kept once. */
void arch_prim_store(void *lines, uint64_t iters);
/* Conditional branches and indirect branches (two targets) on the xorshift bits. */
uint64_t arch_prim_branch(struct prim_rand *r, uint64_t iters);
uint64_t arch_prim_indirect(struct prim_rand *r, uint64_t iters);
/* A call to a leaf that only returns: one call/return pair per operation. */
void arch_prim_call(uint64_t iters);
/* Double-precision adds, eight independent accumulators (throughput). Returns their sum's bits. */
uint64_t arch_prim_fp_add(uint64_t iters);

/* PRIM_INSNS_<kernel>: instructions per iteration of each kernel whose path is fixed (the branch
 * kernels with mask 0), the known answer an instruction counter must give: the CPU's part. */
#include <cpu/prim_ops.h>

#endif
