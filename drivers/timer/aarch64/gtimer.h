/* The EL1 generic timers (Arm ARM D13.8): the virtual timer (CNTV_*, compares against CNTVCT_EL0,
 * the build's cycle clock) and the physical timer (CNTP_*, against CNTPCT_EL0 = CNTVCT + CNTVOFF).
 * One-shot by compare value, stop, the periodic grid's next compare value, and the CNTVOFF
 * measurement that lets a physical timer be armed for a virtual-count deadline. Register access
 * goes through struct gtimer_io, so the host unit tests check the exact writes against a model
 * (drivers/timer/aarch64/gtimer_hw.c is the hardware's io, over arch/aarch64/gic_cpuif.h). */
#ifndef DRIVERS_GTIMER_H
#define DRIVERS_GTIMER_H

#include <stdbool.h>
#include <stdint.h>

/* CNT{V,P}_CTL_EL0 bits. */
#define CNT_CTL_ENABLE 1u
#define CNT_CTL_IMASK 2u
#define CNT_CTL_ISTATUS 4u

#define GTIMER_OFFSET_TRIES 16 /* CNTPCT reads bracketed by CNTVCT reads; the tightest is kept */

enum gtimer_reg { GT_CNTV_CTL, GT_CNTV_CVAL, GT_CNTP_CTL, GT_CNTP_CVAL, GT_CNTVCT, GT_CNTPCT, GT_NUM_REGS };
enum gtimer_which { GT_VIRT, GT_PHYS };

struct gtimer_io {
	uint64_t (*read)(void *ctx, enum gtimer_reg r);
	void (*write)(void *ctx, enum gtimer_reg r, uint64_t v);
	void *ctx;
};

struct gtimer {
	const struct gtimer_io *io;
	int64_t cntvoff;              /* CNTPCT - CNTVCT as measured */
	uint64_t cntvoff_uncertainty; /* +- ticks */
};

/* CNTVOFF from the tightest of GTIMER_OFFSET_TRIES brackets (CNTVCT, CNTPCT, CNTVCT). */
void gtimer_measure_offset(struct gtimer *t);
/* Fire when the virtual count reaches `deadline` (a CNTVCT value): the compare value first, then
 * ENABLE with IMASK clear (the other order could fire on a stale compare value). The physical
 * timer's compare value is the deadline plus the measured offset. */
void gtimer_arm(const struct gtimer *t, enum gtimer_which w, uint64_t deadline);
/* Disable (CTL = 0: no interrupt, output low). */
void gtimer_stop(const struct gtimer *t, enum gtimer_which w);
bool gtimer_enabled(const struct gtimer *t, enum gtimer_which w);
uint64_t gtimer_cval(const struct gtimer *t, enum gtimer_which w);
/* The periodic grid: the first point cval + k * period (k >= 1) after `now`, at most max_skips
 * periods on. Pure. */
uint64_t gtimer_next_period(uint64_t cval, uint64_t period, uint64_t now, unsigned max_skips);

#endif
