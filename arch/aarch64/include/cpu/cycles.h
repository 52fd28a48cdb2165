/* The AArch64 part of arch/cycles.h (included there, before the shared declarations): the cycle
 * clock of this build. The clock is the generic timer's virtual
 * count CNTVCT_EL0, at CNTFRQ_EL0 (62.5 MHz under QEMU): a constant-rate time reference, not CPU
 * cycles — one "cycle" in records of this build is one timer tick (the `counter_hz` record key says how long). The PMU
 * cycle counter (PMCCNTR_EL0) is a read method of the timer probe (its own unit, pmu_cycles) and
 * the counter sets' `cycles`.
 *
 * Reads of CNTVCT_EL0 are not ordered with the instructions around them; `isb` before the read
 * keeps earlier instructions from completing after it (Arm ARM D12.1.2, "reads of the counter ...
 * can occur speculatively and out of order"), so cycles_begin/cycles_end use isb on both sides. */
#ifndef ARCH_AARCH64_CYCLES_H
#define ARCH_AARCH64_CYCLES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arch/aarch64/cpu.h" /* cpu_relax, for loops that wait on the counter */

static inline uint64_t cycles_read(void)
{
	uint64_t v;

	__asm__ volatile("mrs %0, cntvct_el0" : "=r"(v));
	return v;
}

static inline uint64_t cycles_isb_cntvct(void)
{
	uint64_t v;

	__asm__ volatile("isb; mrs %0, cntvct_el0" : "=r"(v) : : "memory");
	return v;
}

static inline uint64_t cycles_begin(void)
{
	uint64_t v;

	__asm__ volatile("isb; mrs %0, cntvct_el0; isb" : "=r"(v) : : "memory");
	return v;
}

static inline uint64_t cycles_end(void)
{
	return cycles_begin();
}

/* The counter's frequency in Hz as the firmware programmed CNTFRQ_EL0 (0 = not programmed). */
static inline uint64_t cycles_cntfrq(void)
{
	uint64_t v;

	__asm__ volatile("mrs %0, cntfrq_el0" : "=r"(v));
	return v;
}

/* PMCCNTR_EL0, the PMU's cycle counter: CPU cycles (QEMU: emulated time at 1 GHz), not timer
 * ticks. Read methods of the timer probe only (unit=pmu_cycles); the PMU must be usable. */
static inline uint64_t cycles_pmccntr(void)
{
	uint64_t v;

	__asm__ volatile("mrs %0, pmccntr_el0" : "=r"(v));
	return v;
}

static inline uint64_t cycles_isb_pmccntr(void)
{
	uint64_t v;

	__asm__ volatile("isb; mrs %0, pmccntr_el0" : "=r"(v) : : "memory");
	return v;
}

/* The timer probe's read methods, the members of arch/cycles.h's enum cycles_method (in this
 * order, CYCLES_BEGIN_END among them). */
#define CYCLES_CPU_METHODS \
	CYCLES_CNTVCT,      /* mrs cntvct_el0 alone */ \
	CYCLES_ISB_CNTVCT,  /* isb; mrs cntvct_el0 */ \
	CYCLES_BEGIN_END,   /* the runner's own cycles_begin() .. cycles_end() pair: the overhead it subtracts */ \
	CYCLES_PMCCNTR,     /* mrs pmccntr_el0 alone (PMU cycles) */ \
	CYCLES_ISB_PMCCNTR, /* isb; mrs pmccntr_el0 */


#endif
