/* The cycle counter, the clock every probe is timed with, and its read methods (and cpu_relax, for
 * loops that wait on it), for code outside arch/: declared here once, implemented per CPU
 * (x86_64: the TSC; AArch64: the generic timer's CNTVCT_EL0, so one "cycle" there is one timer
 * tick). The rate is the probes' counter_hz (the `counter_hz` record key on every CPU).
 *
 * The CPU's part, <cpu/cycles.h> (arch/<cpu>/include/cpu/cycles.h, found through the build's
 * include path), included first, defines what must be inline or differs:
 *   cycles_read()   one plain read of the counter (no ordering)
 *   cycles_begin()  a read that opens a measured region: earlier work cannot leak past it
 *   cycles_end()    a read that closes one: the timed work finished before it
 *   CYCLES_CPU_METHODS the members of enum cycles_method, the read methods of the timer probe,
 *                   CYCLES_BEGIN_END among them (the runner's own cycles_begin() .. cycles_end() pair)
 *   ARCH_SPIN_LOOP  the name of arch_spin's loop in records
 * and its private extras (x86_64: the TSC's read instructions, tsc_init; AArch64: CNTFRQ_EL0,
 * PMCCNTR_EL0 reads). */
#ifndef ARCH_CYCLES_H
#define ARCH_CYCLES_H

#include <stddef.h>
#include <stdint.h>

#include <cpu/cycles.h>

/* The read methods: the CPU's (CYCLES_CPU_METHODS), CYCLES_NUM_METHODS counts them. */
enum cycles_method { CYCLES_CPU_METHODS CYCLES_NUM_METHODS };

#include "arch/probe_ops.h"

/* The method's name in records. */
const char *cycles_method_name(enum cycles_method m);
/* NULL if available, else the reason it is not (for a skip record). */
const char *cycles_method_unavailable(enum cycles_method m);
/* The unit of the method's samples: "cycles" (the build's cycle clock), or on AArch64
 * "pmu_cycles" (PMCCNTR_EL0 counts). */
const char *cycles_method_unit(enum cycles_method m);
/* Fill out[0..n) with differences of two back-to-back reads by method m. */
void cycles_b2b_samples(enum cycles_method m, uint64_t *out, size_t n);

/* arch_spin, arch_split_a/b (the runner's known work): arch/probe_ops.h. */

#endif
