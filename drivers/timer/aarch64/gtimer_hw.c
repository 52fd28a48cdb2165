/* The hardware's struct gtimer_io (AArch64 build only): the EL1 timer registers through
 * arch/aarch64/gic_cpuif.h; the counters read after an isb (in order with the code around). */
/* OPT_FAST: -O2 (Makefile): interrupt path (delivery, handlers, EOI) timed by the irq probes and the profiler. */
#include "drivers/timer/aarch64/gtimer_hw.h"

#include "arch/aarch64/gic_cpuif.h"
#include "arch/cycles.h"

static uint64_t hw_read(void *ctx, enum gtimer_reg r)
{
	(void)ctx;
	switch (r) {
	case GT_CNTV_CTL: return cntv_ctl_el0_read();
	case GT_CNTV_CVAL: return cntv_cval_el0_read();
	case GT_CNTP_CTL: return cntp_ctl_el0_read();
	case GT_CNTP_CVAL: return cntp_cval_el0_read();
	case GT_CNTVCT: return cycles_isb_cntvct();
	case GT_CNTPCT: return cntpct_el0_read();
	default: return 0;
	}
}

static void hw_write(void *ctx, enum gtimer_reg r, uint64_t v)
{
	(void)ctx;
	switch (r) {
	case GT_CNTV_CTL: cntv_ctl_el0_write(v); break;
	case GT_CNTV_CVAL: cntv_cval_el0_write(v); break;
	case GT_CNTP_CTL: cntp_ctl_el0_write(v); break;
	case GT_CNTP_CVAL: cntp_cval_el0_write(v); break;
	default: break; /* the counters are read-only */
	}
}

const struct gtimer_io gtimer_hw_io = { hw_read, hw_write, 0 };
