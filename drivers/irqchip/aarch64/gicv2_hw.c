/* GICv2 acknowledge and EOI through the memory-mapped CPU interface (see gicv2_hw.h). */
/* OPT_FAST: -O2 (Makefile): interrupt path (delivery, handlers, EOI) timed by the irq probes and the profiler. */
#include "drivers/irqchip/aarch64/gicv2_hw.h"

#include "arch/aarch64/include/cpu/mmio.h"
#include "drivers/irqchip/aarch64/gicv2.h"

static uintptr_t gicc_base;

void gicv2_hw_cpuif_base(uint64_t gicc)
{
	gicc_base = (uintptr_t)gicc;
}

static uint32_t ack(void)
{
	return mmio_read32(gicc_base + GICV2_GICC_IAR);
}

/* The raw IAR value back (IHI 0048B 4.4.5: an SGI's CPUID must match). */
static void eoi(uint32_t iar)
{
	mmio_write32(gicc_base + GICV2_GICC_EOIR, iar);
}

const struct a64_irq_cpuif gicv2_hw_cpuif = { ack, eoi, GICV2_IAR_INTID_MASK };
