/* Start-up stub of the other cores (see ap_start.h), and the cache and event helpers smp.c needs.
 *
 * PSCI CPU_ON starts the core at ap_start_entry at the caller's exception level (EL1 here), with
 * the MMU and data cache off, interrupts masked, x0 = the context id = the core's control block
 * (struct ap_boot first). With the MMU off every data access is Device-nGnRnE and goes to memory:
 * the BSP cleaned the block to the point of coherency, and the stub only reads it (aligned
 * doubleword loads) until its MMU is on. Then, as the architecture asks for enabling a regime
 * (Arm ARM D8.2 and K11, "Translation table maintenance"): load MAIR, TCR, TTBR0/1 and CPACR, isb;
 * drop anything the core's TLBs and I-cache kept from an earlier life (tlbi vmalle1, ic iallu),
 * dsb nsh, isb; write SCTLR_EL1 (M, C, I as the BSP's), isb. From there the core runs on the
 * BSP's own identity map with caches on: it writes its stage, takes our vectors (VBAR_EL1), its
 * control block into TPIDR_EL1 (traps.c finds it there), its stack (SP_EL1), and calls the C entry,
 * which never returns (if it did: wfi forever). */
#include "arch/aarch64/ap_start.h"

#define DAIF_ALL 0xF
#define CTR_DMINLINE_SHIFT 16 /* CTR_EL0.DminLine: log2 of the smallest D-line in 4-byte words */
#define CTR_DMINLINE_BITS 4
#define WORD_BYTES 4

	.text
	.balign 64
	.global ap_start_begin, ap_start_end, ap_start_entry
	.type ap_start_entry, %function
ap_start_begin:
ap_start_entry:
	msr	daifset, #DAIF_ALL
	msr	spsel, #1			/* exceptions and our stack on SP_EL1 */
	ldr	x1, [x0, #AP_B_MAIR]
	msr	mair_el1, x1
	ldr	x1, [x0, #AP_B_TCR]
	msr	tcr_el1, x1
	ldr	x1, [x0, #AP_B_TTBR0]
	msr	ttbr0_el1, x1
	ldr	x1, [x0, #AP_B_TTBR1]
	msr	ttbr1_el1, x1
	ldr	x1, [x0, #AP_B_CPACR]
	msr	cpacr_el1, x1
	isb
	tlbi	vmalle1
	ic	iallu
	dsb	nsh
	isb
	ldr	x1, [x0, #AP_B_SCTLR]
	msr	sctlr_el1, x1
	isb
	mov	x1, #AP_STAGE_MMU
	str	x1, [x0, #AP_B_STAGE]
	ldr	x1, [x0, #AP_B_VBAR]
	msr	vbar_el1, x1
	msr	tpidr_el1, x0
	ldr	x1, [x0, #AP_B_STACK]
	mov	sp, x1
	isb
	mov	x29, #0
	mov	x30, #0
	ldr	x1, [x0, #AP_B_ENTRY]
	blr	x1
1:	wfi
	b	1b
ap_start_end:
	.size ap_start_entry, . - ap_start_entry

/* void a64_dcache_clean_poc(const void *p, size_t len) */
	.global a64_dcache_clean_poc
	.type a64_dcache_clean_poc, %function
a64_dcache_clean_poc:
	cbz	x1, 2f
	mrs	x2, ctr_el0
	ubfx	x2, x2, #CTR_DMINLINE_SHIFT, #CTR_DMINLINE_BITS
	mov	x3, #WORD_BYTES
	lsl	x3, x3, x2			/* line bytes */
	add	x1, x0, x1			/* end */
	sub	x2, x3, #1
	bic	x0, x0, x2			/* first line */
1:	dc	cvac, x0
	add	x0, x0, x3
	cmp	x0, x1
	b.lo	1b
2:	dsb	sy
	ret
	.size a64_dcache_clean_poc, . - a64_dcache_clean_poc

/* void a64_wfe(void), void a64_sev(void) */
	.global a64_wfe, a64_sev
	.type a64_wfe, %function
a64_wfe:
	wfe
	ret
	.size a64_wfe, . - a64_wfe
	.type a64_sev, %function
a64_sev:
	dsb	ish
	sev
	ret
	.size a64_sev, . - a64_sev

	.section .note.GNU-stack, "", %progbits
