/* The hardware's struct gicv3_io (AArch64 build only): the distributor and redistributor frames
 * as Device MMIO mapped by the firmware, the CPU interface through arch/aarch64/gic_cpuif.h, the
 * generic timer's virtual count for the bounded waits. */
/* OPT_FAST: -O2 (Makefile): interrupt path (delivery, handlers, EOI) timed by the irq probes and the profiler. */
#include "drivers/irqchip/aarch64/gicv3_hw.h"

#include "arch/aarch64/gic_cpuif.h"
#include "arch/aarch64/include/cpu/mmio.h"
#include "arch/cycles.h"

static uint32_t hw_read32(void *ctx, uint64_t a)
{
	(void)ctx;
	return mmio_read32((uintptr_t)a);
}

static void hw_write32(void *ctx, uint64_t a, uint32_t v)
{
	(void)ctx;
	mmio_write32((uintptr_t)a, v);
}

/* GICR_TYPER as two 32-bit reads (the frames allow both; no 64-bit access the firmware's
 * mapping might split). */
static uint64_t hw_read64(void *ctx, uint64_t a)
{
	(void)ctx;
	return (uint64_t)mmio_read32((uintptr_t)a) | (uint64_t)mmio_read32((uintptr_t)a + 4) << 32;
}

static uint64_t hw_sysreg_read(void *ctx, enum gic_sysreg r)
{
	(void)ctx;
	switch (r) {
	case GIC_ICC_SRE: return icc_sre_el1_read();
	case GIC_ICC_PMR: return icc_pmr_el1_read();
	case GIC_ICC_IGRPEN1: return icc_igrpen1_el1_read();
	case GIC_ICC_CTLR: return icc_ctlr_el1_read();
	case GIC_ICC_BPR1: return icc_bpr1_el1_read();
	case GIC_ICC_IAR1: return icc_iar1_el1_read();
	case GIC_ICC_RPR: return icc_rpr_el1_read();
	default: return 0; /* EOIR1, SGI1R: write-only */
	}
}

static void hw_sysreg_write(void *ctx, enum gic_sysreg r, uint64_t v)
{
	(void)ctx;
	switch (r) {
	case GIC_ICC_SRE: icc_sre_el1_write(v); break;
	case GIC_ICC_PMR: icc_pmr_el1_write(v); break;
	case GIC_ICC_IGRPEN1: icc_igrpen1_el1_write(v); break;
	case GIC_ICC_CTLR: icc_ctlr_el1_write(v); break;
	case GIC_ICC_BPR1: icc_bpr1_el1_write(v); break;
	case GIC_ICC_EOIR1: icc_eoir1_el1_write(v); break;
	case GIC_ICC_SGI1R: icc_sgi1r_el1_write(v); break;
	default: break; /* IAR1, RPR: read-only */
	}
}

static uint64_t hw_now(void *ctx)
{
	(void)ctx;
	return cycles_read();
}

const struct gicv3_io gicv3_hw_io = {
	hw_read32, hw_write32, hw_read64, hw_sysreg_read, hw_sysreg_write, hw_now, 0,
};
