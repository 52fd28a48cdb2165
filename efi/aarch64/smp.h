/* The bare-metal start of the AArch64 cores (arch/smp.h's contract; what efi/aarch64/smp_boot.c
 * calls after ExitBootServices): started through PSCI CPU_ON (the conduit the FADT names), then
 * handed work.
 *
 * Bring-up: the cores are the MADT's GICC entries (drivers/fw/aarch64/madt_gicc.h), by MPIDR. For each
 * enabled one but the BSP, the BSP fills the boot block at the bottom of the core's own memory
 * with its own MAIR/TCR/TTBR0/TTBR1/SCTLR/CPACR/VBAR (the firmware's identity map, our vectors),
 * cleans it to the point of coherency and calls CPU_ON(MPIDR, physical address of the stub in
 * ap_start.S, context id = that block). All cores are asked first, then each must come online
 * within SMP_AP_TIMEOUT_US of its CPU_ON (bounded by the generic timer). One that is refused or
 * does not come up is recorded (its affinity, how far its stub got, why) and left out; its memory
 * is never given to another. CPU numbers are dense over the cores online: 0 is the BSP.
 *
 * The "APIC id" of this interface is, on AArch64, the MPIDR's affinity packed into 32 bits (Aff3
 * in 31:24, Aff2..Aff0 in 23:0), so the probes (smp_hello) need no #ifdef.
 *
 * An online core runs with DAIF masked on its own stack, our vectors and TPIDR_EL1 = its control
 * block. Idle, it waits for work in `wfe` (smp_run posts, then `sev`); under QEMU TCG `wfe` only
 * yields, so an idle core's vCPU spins. A fault in a job ends that job (its recovery point: the
 * core takes the next one); a fault outside a job, or while handling one, stops that core (wfi).
 * The BSP only ever sees it through bounded waits that fail, and can read what happened. */
#ifndef EFI_AARCH64_SMP_H
#define EFI_AARCH64_SMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arch/smp.h"
#include "drivers/fw/madt.h"

/* Per-core memory, reserved before ExitBootServices: the control block (boot block first), then
 * the stack, which grows down from the top of the core's stack_size bytes. */
#define SMP_SLOT_BYTES 1024
#define SMP_SLOT_ALIGN 128
#define SMP_STACK_SIZE (64 * 1024)
#define SMP_MIN_STACK_SIZE (SMP_SLOT_BYTES + 8 * 1024)

#define SMP_AP_TIMEOUT_US 500000 /* from CPU_ON until the core must be online */

/* Start every enabled core in madt (GICC entries), up to max_cpus in all. use_hvc: the PSCI
 * conduit. stacks: (max_cpus - 1) * stack_size bytes, SMP_SLOT_ALIGN-aligned, stack_size >=
 * SMP_MIN_STACK_SIZE and a multiple of SMP_SLOT_ALIGN. At EL1 with our vectors installed;
 * counter_hz (the generic timer's) bounds every wait. Returns the CPUs online, BSP included (1 when
 * nothing could be started: smp_report says why). Once per boot. */
unsigned smp_start_aps(const struct madt_info *madt, bool use_hvc, uint8_t *stacks, size_t stack_size,
		       unsigned max_cpus, uint64_t counter_hz);
/* Only the BSP (option smp=0, no PSCI, ...): record its affinity, madt's counts (NULL: none) and
 * `reason`. */
void smp_start_none(const struct madt_info *madt, const char *reason);

#endif
