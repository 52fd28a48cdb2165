/* AArch64 instructions and system registers as C: the only place (with the .S files of
 * arch/aarch64/) for inline assembly in the AArch64 build. Registers read here are the ones EL1
 * may read without trapping (the firmware hands over at EL1 or EL2; both may read them). */
#ifndef ARCH_AARCH64_CPU_H
#define ARCH_AARCH64_CPU_H

#include <stdint.h>

/* mrs/msr by register name (the assembler knows the names; string-pasted so one macro serves all). */
#define sysreg_read(name)                                            \
	({                                                           \
		uint64_t v__;                                        \
		__asm__ volatile("mrs %0, " #name : "=r"(v__));      \
		v__;                                                 \
	})

static inline void cpu_isb(void) { __asm__ volatile("isb" ::: "memory"); }
static inline void cpu_dsb_sy(void) { __asm__ volatile("dsb sy" ::: "memory"); }
static inline void compiler_barrier(void) { __asm__ volatile("" ::: "memory"); }
/* The spin-wait hint (x86's pause). */
static inline void cpu_relax(void) { __asm__ volatile("yield" ::: "memory"); }
/* Mask IRQ and FIQ (DAIF.I, DAIF.F): the firmware's timer must not interrupt us after
 * ExitBootServices, when its handlers are gone. */
static inline void cpu_irq_mask(void) { __asm__ volatile("msr daifset, #3" ::: "memory"); }

/* TPIDR_EL1 = 0: the BSP's mark (traps.c tells the other cores apart by a non-zero TPIDR_EL1). */
static inline void cpu_clear_tpidr_el1(void) { __asm__ volatile("msr tpidr_el1, xzr" ::: "memory"); }

/* The exception level we run at: 1 or 2 under UEFI (CurrentEL, arch/priv/aarch64/current_el.c),
 * 0 in the hosted build (a Linux process: CurrentEL is UNDEFINED at EL0, hosted/aarch64/
 * current_el.c says so without reading it). Code that would touch an EL1 register asks this first. */
#define A64_EL0 0
unsigned cpu_current_el(void);

static inline __attribute__((noreturn)) void cpu_halt_forever(void)
{
	cpu_irq_mask();
	for (;;)
		__asm__ volatile("wfi" ::: "memory");
}

#endif
