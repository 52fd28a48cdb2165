/* Layout shared by the AArch64 core start-up stub (ap_start.S) and smp.c: the boot block at the
 * start of each core's control block, which the stub reads with the MMU and caches still off (so
 * smp.c cleans it to the point of coherency before CPU_ON). Included from assembly too: constants
 * only outside the __ASSEMBLER__ part. */
#ifndef ARCH_AARCH64_AP_START_H
#define ARCH_AARCH64_AP_START_H

#include "arch/aarch64/el2.h"

/* Boot block offsets: the BSP's translation and trap state, copied as they are. */
#define AP_B_MAIR 0x00
#define AP_B_TCR 0x08
#define AP_B_TTBR0 0x10
#define AP_B_TTBR1 0x18
#define AP_B_SCTLR 0x20 /* M, C, I: the MMU and caches go on with this write */
#define AP_B_CPACR 0x28 /* FP/SIMD trapping as the BSP has it (the NEON kernels) */
#define AP_B_VBAR 0x30  /* our vectors (arch/priv/aarch64/traps.S) */
#define AP_B_STACK 0x38 /* stack top, 16-byte aligned */
#define AP_B_ENTRY 0x40 /* C entry: void entry(struct smp_cpu *self), never returns */
#define AP_B_STAGE 0x48 /* AP_STAGE_*: how far the core got (written once the MMU is on) */
#define AP_B_EL2 0x50   /* struct el2_config (el2.h): what a core started at EL2 applies first */
#define AP_B_SIZE (AP_B_EL2 + EL2_C_SIZE)

#define AP_STAGE_NONE 0 /* never seen: not started, or stopped before its MMU was on */
#define AP_STAGE_MMU 1  /* MMU and caches on, on its own stack */
#define AP_STAGE_C 2    /* in the C entry */

#ifndef __ASSEMBLER__
#include <stddef.h>
#include <stdint.h>

struct ap_boot {
	uint64_t mair, tcr, ttbr0, ttbr1, sctlr, cpacr, vbar, stack, entry;
	volatile uint64_t stage;
	struct el2_config el2;
};

_Static_assert(__builtin_offsetof(struct ap_boot, sctlr) == AP_B_SCTLR, "ap_start layout");
_Static_assert(__builtin_offsetof(struct ap_boot, entry) == AP_B_ENTRY, "ap_start layout");
_Static_assert(__builtin_offsetof(struct ap_boot, stage) == AP_B_STAGE, "ap_start layout");
_Static_assert(__builtin_offsetof(struct ap_boot, el2) == AP_B_EL2, "ap_start layout");
_Static_assert(sizeof(struct ap_boot) == AP_B_SIZE, "ap_start layout");

/* The stub (its physical address is CPU_ON's entry point: UEFI maps us identity): x0 = the
 * context id = the core's control block, which starts with its struct ap_boot. */
extern const uint8_t ap_start_begin[], ap_start_end[];
void ap_start_entry(void);
/* Clean [p, p + len) from the data caches to the point of coherency (dc cvac; dsb sy): what a
 * core with its MMU off reads comes from memory. */
void a64_dcache_clean_poc(const void *p, size_t len);
/* Wait for an event (wfe) / signal one to every core (dsb ish; sev). */
void a64_wfe(void);
void a64_sev(void);
#endif

#endif
