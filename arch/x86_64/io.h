/* Port and memory-mapped I/O accessors: the only way drivers touch device registers (the
 * memory-mapped half is arch/mmio.h's x86_64 part, arch/x86_64/include/cpu/mmio.h). */
#ifndef ARCH_X86_64_IO_H
#define ARCH_X86_64_IO_H

#include <stdint.h>

#include "arch/x86_64/cpu.h" /* cpu_relax, for the bounded polls of device registers */
#include "arch/x86_64/include/cpu/mmio.h" /* the memory-mapped half */

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

#endif
