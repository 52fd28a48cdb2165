/* Interrupt masking of the AArch64 build (the part of arch/irq.h it has so far): PSTATE.DAIF's I
 * and F bits. No GIC, no handlers by vector yet — the build runs with IRQ and FIQ masked from
 * ExitBootServices on, and these let a probe (noise) state and keep that. */
#ifndef ARCH_AARCH64_IRQ_H
#define ARCH_AARCH64_IRQ_H

#include <stdbool.h>
#include <stdint.h>

/* On bare metal interrupts can be masked (the hosted build's answer differs). */
static inline bool irq_maskable(void)
{
	return true;
}

/* Mask IRQ and FIQ; returns the DAIF bits as they were. */
static inline uint64_t irq_save_disable(void)
{
	uint64_t daif;

	__asm__ volatile("mrs %0, daif; msr daifset, #3" : "=r"(daif) : : "memory");
	return daif;
}

static inline void irq_restore(uint64_t saved)
{
	__asm__ volatile("msr daif, %0" : : "r"(saved) : "memory");
}

#endif
