/* Model-specific registers. Only the _safe forms exist: they return an error instead of crashing
 * when the register does not exist (#GP), using an exception-table fixup in the trap handler.
 * They work once traps_init() installed our IDT; before that they refuse (nothing to catch #GP). */
#ifndef ARCH_X86_64_MSR_H
#define ARCH_X86_64_MSR_H

#include <stdint.h>

#define MSR_IA32_TSC 0x10u
#define MSR_IA32_BIOS_SIGN_ID 0x8Bu /* Intel: microcode revision in bits 63:32 after cpuid(1) */
#define MSR_AMD_PATCH_LEVEL 0x8Bu   /* AMD: microcode patch level in bits 31:0 */

enum msr_status {
	MSR_OK = 0,
	MSR_FAULT = -1,     /* #GP: the register does not exist or the value is refused */
	MSR_NO_TRAPS = -2,  /* called before traps_init(): not attempted */
};

int rdmsr_safe(uint32_t msr, uint64_t *value);
int wrmsr_safe(uint32_t msr, uint64_t value);
/* rdpmc the same way (same status codes): MSR_FAULT after #GP (no such counter) or #UD (an
 * emulator or hypervisor that intercepts rdpmc, e.g. QEMU TCG), on any CPU using our IDT. */
int rdpmc_safe(uint32_t index, uint64_t *value);

#endif
