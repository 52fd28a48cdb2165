/* The x86_64 part of arch/traps.h (included at its end): descriptor tables and exception handling
 * once the firmware owns the machine: our GDT (with a TSS
 * whose IST stacks catch #DF, NMI and #MC on a known-good stack), an IDT covering all 32 exception
 * vectors, recovery points so a probe that faults can be abandoned cleanly, and the exception
 * table that makes rdmsr_safe/wrmsr_safe work. */
#ifndef ARCH_X86_64_TRAPS_H
#define ARCH_X86_64_TRAPS_H

#include <stdbool.h>
#include <stdint.h>

#define X86_VEC_DE 0
#define X86_VEC_DB 1
#define X86_VEC_NMI 2
#define X86_VEC_BP 3
#define X86_VEC_UD 6
#define X86_VEC_DF 8
#define X86_VEC_GP 13
#define X86_VEC_PF 14
#define X86_VEC_MC 18
#define X86_NUM_EXCEPTIONS 32

/* Register state saved by the entry stubs, lowest address first (traps.S pushes in reverse). */
struct trap_frame {
	uint64_t r15, r14, r13, r12, r11, r10, r9, r8;
	uint64_t rbp, rdi, rsi, rdx, rcx, rbx, rax;
	uint64_t vector, error;
	uint64_t rip, cs, rflags, rsp, ss; /* pushed by the CPU */
};

/* IST stacks every CPU has: #DF, NMI and #MC each run on one of their own. */
#define TRAPS_IST_STACKS 3
#define TRAPS_IST_STACK_SIZE 8192
#define TRAPS_AP_IST_BYTES (TRAPS_IST_STACKS * TRAPS_IST_STACK_SIZE)
#define TRAPS_GDT_ENTRIES 5 /* null, code, data, and the 16-byte TSS descriptor */

/* 64-bit task-state segment (SDM vol. 3A, 8.7): only the IST pointers are used. */
struct __attribute__((packed)) tss64 {
	uint32_t reserved0;
	uint64_t rsp[3];
	uint64_t reserved1;
	uint64_t ist[7];
	uint64_t reserved2;
	uint16_t reserved3;
	uint16_t iomap_base;
};

/* Callee-saved state of a recovery point (arch_setjmp layout; traps.S depends on it). */
struct fault_jmp_cpu { /* arch/traps.h's struct fault_jmp */
	uint64_t rbx, rbp, r12, r13, r14, r15, rsp, rip;
};

/* The BSP's IDT and IST stacks live in memory the UEFI layer reserves before ExitBootServices
 * (as static arrays they were 28 KiB of the .efi: gnu-efi's linker script keeps .bss in the
 * file). traps_provide_memory(mem) hands over TRAPS_BSP_MEM_BYTES, 16-byte aligned; bare metal
 * only, and traps_init() must not run without it (efi_main stops before taking the machine over
 * when it cannot be reserved). */
#define TRAPS_IDT_VECTORS 256 /* 0-31 exceptions (traps.S), 32-255 interrupts (irq.S) */
#define TRAPS_IDT_GATE_BYTES 16
#define TRAPS_BSP_MEM_BYTES (TRAPS_IDT_VECTORS * TRAPS_IDT_GATE_BYTES + TRAPS_AP_IST_BYTES)
void traps_provide_memory(void *mem);

/* Application processors: each loads a GDT and TSS of its own (its own IST stacks) and shares the
 * BSP's IDT. An exception on an AP goes to that AP's handler instead of the report/fatal pair
 * (which emit records: only the BSP does that). The handler returns the recovery point to resume
 * at, or NULL: then an NMI, #DB or #BP returns to the interrupted code (at info->rip, which the
 * handler may move), and any other exception stops that AP for good (cli; hlt). The trap handler
 * finds the AP's tables from its GDTR, so `gdt` must stay the first member. */
struct traps_ap_tables;
typedef const struct fault_jmp *(*traps_ap_handler_fn)(struct traps_ap_tables *self, struct trap_info *info);
struct traps_ap_tables {
	uint64_t gdt[TRAPS_GDT_ENTRIES] __attribute__((aligned(16)));
	struct tss64 tss __attribute__((aligned(16)));
	traps_ap_handler_fn handler;
};
/* On the AP itself, after traps_init() ran on the BSP. ist: TRAPS_AP_IST_BYTES, 16-byte aligned. */
void traps_load_ap(struct traps_ap_tables *t, uint8_t *ist, traps_ap_handler_fn handler);

#endif
