/* The AArch64 part of arch/traps.h (included at its end): exception handling and recovery
 * points of the AArch64 build, our own EL1 vector
 * table (VBAR_EL1, arch/priv/aarch64/traps.S) once the firmware is gone, so an exception in a probe becomes a
 * `fault` record and — with a recovery point armed — the run goes on. Installed at the level the
 * firmware runs us at: EL1 (QEMU virt without virtualization=on) through VBAR_EL1, or EL2 (with
 * virtualization=on, many servers) through VBAR_EL2, where the same entry code reads ESR_EL2,
 * FAR_EL2, ELR_EL2 and SPSR_EL2 instead; at EL2 only synchronous exceptions and SErrors are ours
 * (no interrupt is routed to EL2 for us), so traps_installed() — "our EL1 vectors, interrupts
 * included" — stays false there and traps_catch_faults() says faults are caught.
 *
 * trap_info keeps the x86 record field names (bench/core/suite.c emits them): `vector` is the ESR's
 * exception class (EC) for a synchronous exception and TRAP_A64_IRQ/FIQ/SERROR for the others,
 * `error` the ESR, `rip` the ELR (where it happened), `cr2` the FAR (the faulting address, for
 * aborts and alignment faults; 0 otherwise), `rsp` the interrupted SP. */
#ifndef ARCH_AARCH64_TRAPS_H
#define ARCH_AARCH64_TRAPS_H

#include <stdbool.h>
#include <stdint.h>

/* ESR_EL1.EC values the handler names (Arm ARM D19.2.37). */
#define A64_EC_UNKNOWN 0x00 /* udf, and anything undefined */
#define A64_EC_ILLEGAL_STATE 0x0E
#define A64_EC_SVC 0x15
#define A64_EC_HVC 0x16
#define A64_EC_SMC 0x17
#define A64_EC_SYSREG 0x18 /* a trapped msr/mrs */
#define A64_EC_IABT_LOW 0x20
#define A64_EC_IABT 0x21
#define A64_EC_PC_ALIGN 0x22
#define A64_EC_DABT_LOW 0x24
#define A64_EC_DABT 0x25
#define A64_EC_SP_ALIGN 0x26
#define A64_EC_SERROR 0x2F
#define A64_EC_BRK 0x3C
#define A64_EC_COUNT 0x40
/* The asynchronous exceptions, as vectors after the ECs. */
#define TRAP_A64_IRQ 0x40
#define TRAP_A64_FIQ 0x41
#define TRAP_A64_SERROR 0x42

/* Callee-saved state of a recovery point: x19-x30, then SP (traps.S depends on the layout). */
struct fault_jmp_cpu { /* arch/traps.h's struct fault_jmp */
	uint64_t x[12], sp;
};

/* traps_init installs the vectors (at EL1 or EL2): call it after ExitBootServices, the firmware's
 * own vectors serve its timer interrupt until then.
 * Faults at the current EL come to our vectors (EL1 or EL2): recovery points and the guarded
 * system-register accesses work. */
bool traps_catch_faults(void);
/* The EL whose vectors are ours (1 or 2), 0 before traps_init or at another level. */
unsigned traps_el(void);

/* The other cores' exceptions (efi/aarch64/smp.c). On a CPU whose TPIDR_EL1 is not zero (each
 * core started by smp.c holds its control block there; smp.c zeroes the BSP's before it starts
 * any), the handler gives the exception to fn(that block, info) instead of the report path above,
 * which is the BSP's alone (it emits records): fn returns the recovery point to resume at (as
 * fault_try's second return, with vector + 1), or NULL to stop that core (wfi, DAIF masked). */
typedef const struct fault_jmp *(*trap_ap_fn)(void *cpu, const struct trap_info *info);
void traps_set_ap_handler(trap_ap_fn fn);

#endif
