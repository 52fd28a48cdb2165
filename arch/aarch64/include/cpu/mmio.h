/* The AArch64 part of arch/mmio.h: device-register access (drivers use these names on every CPU).
 * The firmware maps device regions as Device memory, so plain volatile accesses are single,
 * unmerged and in order; a dsb after a write makes it reach the device before what follows. */
#ifndef ARCH_AARCH64_IO_H
#define ARCH_AARCH64_IO_H

#include <stdint.h>

/* Orders earlier memory writes (a DMA descriptor) before the device write that follows (a
 * doorbell): Normal and Device memory are not ordered with each other without it (Arm ARM
 * B2.3). Not in mmio_write32 itself: the interrupt paths' register writes need no such wait. */
static inline void mmio_barrier(void)
{
	__asm__ volatile("dsb sy" ::: "memory");
}

static inline uint32_t mmio_read32(uintptr_t a) { return *(volatile uint32_t *)a; }
static inline void mmio_write32(uintptr_t a, uint32_t v)
{
	*(volatile uint32_t *)a = v;
	__asm__ volatile("dsb sy" ::: "memory");
}

#endif
