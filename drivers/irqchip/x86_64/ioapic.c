/* I/O APIC access (see ioapic.h). */
/* OPT_FAST: -O2 (Makefile): interrupt path (delivery, handlers, EOI) timed by the irq probes and the profiler. */
#include "drivers/irqchip/x86_64/ioapic.h"

#include "arch/x86_64/io.h"

#define IOAPIC_ABSENT 0xFFFFFFFFu /* what a read of unmapped MMIO returns */

uint32_t ioapic_read(const struct ioapic *a, unsigned reg)
{
	if (a->io) {
		a->io->write32(a->io->ctx, a->base + IOAPIC_IOREGSEL, reg);
		return a->io->read32(a->io->ctx, a->base + IOAPIC_IOWIN);
	}
	mmio_write32((uintptr_t)(a->base + IOAPIC_IOREGSEL), reg);
	return mmio_read32((uintptr_t)(a->base + IOAPIC_IOWIN));
}

void ioapic_write(const struct ioapic *a, unsigned reg, uint32_t v)
{
	if (a->io) {
		a->io->write32(a->io->ctx, a->base + IOAPIC_IOREGSEL, reg);
		a->io->write32(a->io->ctx, a->base + IOAPIC_IOWIN, v);
		return;
	}
	mmio_write32((uintptr_t)(a->base + IOAPIC_IOREGSEL), reg);
	mmio_write32((uintptr_t)(a->base + IOAPIC_IOWIN), v);
}

bool ioapic_init(struct ioapic *a, uint64_t base, uint32_t gsi_base)
{
	uint32_t ver;

	a->base = base;
	a->gsi_base = gsi_base;
	a->pins = 0;
	if (!base)
		return false;
	ver = ioapic_read(a, IOAPIC_REG_VERSION);
	if (ver == IOAPIC_ABSENT)
		return false;
	a->id = (ioapic_read(a, IOAPIC_REG_ID) >> IOAPIC_ID_SHIFT) & IOAPIC_ID_MASK;
	a->pins = ((ver >> IOAPIC_VERSION_MAXREDIR_SHIFT) & IOAPIC_VERSION_MAXREDIR_MASK) + 1;
	if (a->pins > IOAPIC_MAX_PINS)
		a->pins = IOAPIC_MAX_PINS;
	return true;
}

uint64_t ioapic_read_entry(const struct ioapic *a, unsigned pin)
{
	uint32_t lo = ioapic_read(a, IOAPIC_REG_REDTBL + 2 * pin);
	uint32_t hi = ioapic_read(a, IOAPIC_REG_REDTBL + 2 * pin + 1);

	return (uint64_t)hi << 32 | lo;
}

void ioapic_write_entry(const struct ioapic *a, unsigned pin, uint64_t entry)
{
	unsigned reg = IOAPIC_REG_REDTBL + 2 * pin;

	if (entry & IOAPIC_RTE_MASKED) {
		ioapic_write(a, reg, (uint32_t)entry);
		ioapic_write(a, reg + 1, (uint32_t)(entry >> 32));
	} else {
		ioapic_write(a, reg + 1, (uint32_t)(entry >> 32));
		ioapic_write(a, reg, (uint32_t)entry);
	}
}

void ioapic_mask(const struct ioapic *a, unsigned pin)
{
	unsigned reg = IOAPIC_REG_REDTBL + 2 * pin;

	ioapic_write(a, reg, ioapic_read(a, reg) | (uint32_t)IOAPIC_RTE_MASKED);
}

unsigned ioapic_mask_all(const struct ioapic *a)
{
	unsigned live = 0;

	for (unsigned pin = 0; pin < a->pins; pin++) {
		uint32_t lo = ioapic_read(a, IOAPIC_REG_REDTBL + 2 * pin);

		if (!(lo & IOAPIC_RTE_MASKED)) {
			live++;
			ioapic_write(a, IOAPIC_REG_REDTBL + 2 * pin, lo | (uint32_t)IOAPIC_RTE_MASKED);
		}
	}
	return live;
}

uint64_t ioapic_entry(uint8_t vector, uint32_t dest_apic_id, bool level, bool active_low, bool masked)
{
	return (uint64_t)vector | IOAPIC_RTE_DELIVERY_FIXED | IOAPIC_RTE_DEST_PHYSICAL |
	       (active_low ? IOAPIC_RTE_ACTIVE_LOW : 0) | (level ? IOAPIC_RTE_LEVEL : 0) |
	       (masked ? IOAPIC_RTE_MASKED : 0) | ((uint64_t)(dest_apic_id & IOAPIC_RTE_DEST_MASK) << IOAPIC_RTE_DEST_SHIFT);
}
