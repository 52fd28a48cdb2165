/* The x86_64 part of arch/mmio.h (included there, and by arch/x86_64/io.h for the PC drivers):
 * memory-mapped device registers. */
#ifndef ARCH_X86_64_MMIO_H
#define ARCH_X86_64_MMIO_H

#include <stdint.h>

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
