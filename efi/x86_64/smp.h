/* The bare-metal start of the x86_64 application processors (arch/smp.h's contract; what
 * efi/x86_64/smp_boot.c calls after ExitBootServices): bring them up ourselves (INIT-SIPI-SIPI
 * through a real-mode start-up page below 1 MiB), then hand them work.
 *
 * Bring-up: INIT to every AP, one shared INIT delay, then STARTUP to one AP at a time in MADT
 * order (they share the trampoline's parameter block); every wait is bounded by the TSC. An
 * AP that does not come up is recorded (APIC id, how far its trampoline got, why), sent INIT
 * again so it cannot wake later on a stack given to another, and left out. CPU numbers are dense
 * over the CPUs online: 0 is the BSP, 1..n-1 the APs that came up.
 *
 * An online AP runs with interrupts masked, on its own GDT, TSS (its own #DF/NMI/#MC stacks) and
 * stack, sharing the IDT (traps_load_ap). Idle, it polls for work with `pause` for
 * SMP_IDLE_SPIN_US, then halts until an NMI IPI wakes it (smp_run sends one when needed), so idle
 * APs cost their core (or, under TCG, the host) nothing. A fault in a job ends that job (the AP
 * takes the next one); a fault outside a job stops that AP for good. Either way the BSP only sees
 * it through bounded waits that fail, never hangs on it, and can read what happened. */
#ifndef EFI_X86_64_SMP_H
#define EFI_X86_64_SMP_H

#include <stddef.h>
#include <stdint.h>

#include "arch/smp.h"
#include "arch/traps.h"
#include "drivers/fw/madt.h"

/* The start-up memory, reserved by the UEFI layer before ExitBootServices: SMP_LOWMEM_PAGES
 * consecutive 4 KiB pages wholly below SMP_LOWMEM_LIMIT, mapped executable (EfiLoaderCode).
 * Page 0 takes the trampoline; page 1 a copy of the top-level page table if the BSP's is above
 * 4 GiB (32-bit code cannot load such a CR3). */
#define SMP_LOWMEM_PAGES 2
#define SMP_LOWMEM_LIMIT 0x100000ull
/* Per-AP memory, reserved before ExitBootServices as well: the AP's control block (its GDT, TSS,
 * job slot; in the .efi as a static array it cost 32 KiB), its IST stacks, then its stack. */
#define SMP_SLOT_BYTES 1024        /* room for the control block, a multiple of SMP_SLOT_ALIGN */
#define SMP_SLOT_ALIGN 128         /* its alignment: the start of stacks and stack_size keep it */
#define SMP_STACK_SIZE (64 * 1024) /* then ~39 KiB of stack for jobs (counter runs use ~5 KiB) */
#define SMP_MIN_STACK_SIZE (SMP_SLOT_BYTES + TRAPS_AP_IST_BYTES + 8 * 1024)

/* Delays of the start-up sequence (SDM vol. 3A, "MP Initialization Example") and our bounds. */
#define SMP_INIT_DELAY_US 10000   /* after the INITs, before the first STARTUP */
#define SMP_SIPI_DELAY_US 200     /* after a STARTUP, before the second one */
#define SMP_AP_TIMEOUT_US 200000  /* from the first STARTUP until the AP must be online */

/* Start every enabled AP in the MADT, up to max_cpus CPUs in all. lowpage: SMP_LOWMEM_PAGES pages
 * (see above); stacks: (max_cpus - 1) * stack_size bytes, SMP_SLOT_ALIGN-aligned, stack_size >=
 * SMP_MIN_STACK_SIZE, a multiple of SMP_SLOT_ALIGN. Traps must be installed and the TSC
 * calibrated (counter_hz bounds every wait).
 * Returns the CPUs online, BSP included (1 when nothing could be started; smp_report says why).
 * Once per boot: a second call returns the count and starts nothing. */
unsigned smp_start_aps(const struct madt_info *madt, void *lowpage, uint8_t *stacks, size_t stack_size,
		       unsigned max_cpus, uint64_t counter_hz);
/* Only the BSP, not starting anything (e.g. option smp=0): record its APIC id, the MADT's counts
 * (madt may be NULL) and `reason`. */
void smp_start_none(const struct madt_info *madt, const char *reason);

#endif
