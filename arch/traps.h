/* Exception handling and recovery points, for code outside arch/: declared here once, implemented
 * per CPU (x86_64: our IDT, arch/priv/x86_64/traps.c; AArch64: our vector table,
 * arch/priv/aarch64/traps.c; hosted: signals, hosted/traps.c). The CPU's part, <cpu/traps.h>
 * (arch/<cpu>/include/cpu/traps.h), included at the end, gives struct fault_jmp_cpu (the
 * callee-saved state traps.S saves, struct fault_jmp's contents), the
 * exception numbers and its private extras (x86_64: GDT/TSS and the APs' tables; AArch64: the
 * ESR exception classes, the EL the vectors are at, the other cores' handler). */
#ifndef ARCH_TRAPS_H
#define ARCH_TRAPS_H

#include <stdbool.h>
#include <stdint.h>

/* One exception, in the field names of the records (bench/core/suite.c emits them): x86_64 as the
 * CPU says; AArch64 `vector` is the ESR's exception class (or TRAP_A64_IRQ/FIQ/SERROR), `error`
 * the ESR, `rip` the ELR, `cr2` the FAR, `rsp` the interrupted SP. */
struct trap_info {
	unsigned vector;
	const char *name; /* "#GP", "data_abort" etc. */
	uint64_t error, rip, cr2, rsp;
	bool recoverable; /* a recovery point is armed and the vector allows continuing */
};

/* Called for every exception not handled by an exception-table fixup; must not fault itself. */
typedef void (*trap_report_fn)(const struct trap_info *info);
/* Called when an exception cannot be recovered from; must not return. */
typedef void (*trap_fatal_fn)(const struct trap_info *info) __attribute__((noreturn));

void traps_init(trap_report_fn report, trap_fatal_fn fatal);
/* Our exception entry is installed (interrupts included). */
bool traps_installed(void);

/* A recovery point: setjmp-like, returns 0 when called; returns vector + 1 when a fault came back
 * to it. Arm it with fault_arm() after it returned 0, and disarm before the frame that called it
 * returns. */
struct fault_jmp;
int fault_try(struct fault_jmp *j) __attribute__((returns_twice));
void fault_arm(struct fault_jmp *j);
void fault_disarm(void);

const char *trap_vector_name(unsigned vector);

/* Deliberate faults for the fault-handling test probes (probe_ops.S): an undefined instruction
 * (x86_64 ud2, AArch64 udf), and a load from an address no translation covers (x86_64: a
 * non-canonical one, #GP; AArch64: a data abort). */
void arch_provoke_undefined(void);
uint64_t arch_provoke_bad_address(void);

#include <cpu/traps.h>

/* A recovery point: the callee-saved state traps.S saves, in the CPU's layout (its traps.S
 * depends on it: struct fault_jmp_cpu, first and only member). */
struct fault_jmp {
	struct fault_jmp_cpu cpu;
};

#endif
