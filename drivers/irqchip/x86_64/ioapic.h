/* The I/O APIC (Intel 82093AA datasheet; ACPI MADT type 1 gives its address and first GSI):
 * indirect registers through IOREGSEL (base + 0x00) and IOWIN (base + 0x10), one 64-bit
 * redirection entry per input pin at registers 0x10 + 2n (low) and 0x11 + 2n (high). Used to mask
 * every input the firmware left live and to route one input (the HPET comparator) to a vector on
 * this CPU. Register access goes through struct ioapic_io so host tests use a register model. */
#ifndef DRIVERS_IOAPIC_H
#define DRIVERS_IOAPIC_H

#include <stdbool.h>
#include <stdint.h>

#define IOAPIC_IOREGSEL 0x00
#define IOAPIC_IOWIN 0x10

#define IOAPIC_REG_ID 0x00
#define IOAPIC_REG_VERSION 0x01
#define IOAPIC_REG_REDTBL 0x10 /* + 2 * pin: low half; + 1: high half */
#define IOAPIC_ID_SHIFT 24 /* ID register: the id in bits 27:24 */
#define IOAPIC_ID_MASK 0xFu
#define IOAPIC_VERSION_MAXREDIR_SHIFT 16 /* entries - 1, bits 23:16 */
#define IOAPIC_VERSION_MAXREDIR_MASK 0xFFu
#define IOAPIC_MAX_PINS 240

/* Redirection entry fields (64 bits). */
#define IOAPIC_RTE_VECTOR_MASK 0xFFull
#define IOAPIC_RTE_DELIVERY_FIXED (0ull << 8)
#define IOAPIC_RTE_DEST_PHYSICAL (0ull << 11)
#define IOAPIC_RTE_DELIVERY_PENDING (1ull << 12)
#define IOAPIC_RTE_ACTIVE_LOW (1ull << 13)
#define IOAPIC_RTE_REMOTE_IRR (1ull << 14)
#define IOAPIC_RTE_LEVEL (1ull << 15)
#define IOAPIC_RTE_MASKED (1ull << 16)
#define IOAPIC_RTE_DEST_SHIFT 56 /* physical mode: the APIC id in bits 63:56 */
#define IOAPIC_RTE_DEST_MASK 0xFFu

struct ioapic_io {
	uint32_t (*read32)(void *ctx, uint64_t addr);
	void (*write32)(void *ctx, uint64_t addr, uint32_t v);
	void *ctx;
};

struct ioapic {
	const struct ioapic_io *io; /* NULL: the hardware (MMIO) */
	uint64_t base;
	uint32_t gsi_base;
	unsigned id;
	unsigned pins;
};

/* Read the version register for the pin count; false when it reads as nothing (no device). */
bool ioapic_init(struct ioapic *a, uint64_t base, uint32_t gsi_base);
uint32_t ioapic_read(const struct ioapic *a, unsigned reg);
void ioapic_write(const struct ioapic *a, unsigned reg, uint32_t v);
uint64_t ioapic_read_entry(const struct ioapic *a, unsigned pin);
/* Writes in the order that never leaves a half-written live entry: masking low half first,
 * unmasking high half (destination) first. */
void ioapic_write_entry(const struct ioapic *a, unsigned pin, uint64_t entry);
/* Mask every pin; returns how many were unmasked before. */
unsigned ioapic_mask_all(const struct ioapic *a);
/* A fixed, physical-destination entry. */
uint64_t ioapic_entry(uint8_t vector, uint32_t dest_apic_id, bool level, bool active_low, bool masked);
void ioapic_mask(const struct ioapic *a, unsigned pin);

#endif
