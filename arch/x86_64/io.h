/* Port and memory-mapped I/O accessors: the only way drivers touch device registers. */
#ifndef ARCH_X86_64_IO_H
#define ARCH_X86_64_IO_H

#include <stdint.h>

#include "arch/x86_64/cpu.h" /* cpu_relax, for the bounded polls of device registers */

static inline void outb(uint16_t port, uint8_t v) { __asm__ volatile("outb %0, %1" : : "a"(v), "Nd"(port)); }
static inline void outw(uint16_t port, uint16_t v) { __asm__ volatile("outw %0, %1" : : "a"(v), "Nd"(port)); }
static inline void outl(uint16_t port, uint32_t v) { __asm__ volatile("outl %0, %1" : : "a"(v), "Nd"(port)); }

static inline uint8_t inb(uint16_t port)
{
	uint8_t v;
	__asm__ volatile("inb %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}

static inline uint16_t inw(uint16_t port)
{
	uint16_t v;
	__asm__ volatile("inw %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}

static inline uint32_t inl(uint16_t port)
{
	uint32_t v;
	__asm__ volatile("inl %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}

/* MMIO: volatile accesses of exactly the given width, never merged or split by the compiler. */
static inline uint8_t mmio_read8(uintptr_t a) { return *(volatile uint8_t *)a; }
static inline uint32_t mmio_read32(uintptr_t a) { return *(volatile uint32_t *)a; }
static inline uint64_t mmio_read64(uintptr_t a) { return *(volatile uint64_t *)a; }
static inline void mmio_write8(uintptr_t a, uint8_t v) { *(volatile uint8_t *)a = v; }
/* Orders earlier memory writes (a DMA descriptor) before the device write that follows (a
 * doorbell): the CPU keeps stores in order already, so only the compiler is held back. */
static inline void mmio_barrier(void)
{
	__asm__ volatile("" ::: "memory");
}

/* The compiler barrier keeps earlier plain stores (a DMA descriptor) before the device write (a
 * doorbell); the CPU keeps them in order itself (stores are not reordered with stores). */
static inline void mmio_write32(uintptr_t a, uint32_t v)
{
	__asm__ volatile("" ::: "memory");
	*(volatile uint32_t *)a = v;
}
static inline void mmio_write64(uintptr_t a, uint64_t v) { *(volatile uint64_t *)a = v; }


#endif
