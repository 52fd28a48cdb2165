/* Start-up stub of the other cores (see ap_start.h), and the cache and event helpers smp.c needs.
 *
 * PSCI CPU_ON starts the core at ap_start_entry -- at EL1, or at EL2 where the firmware has one
 * (then the stub applies the boot core's EL2 configuration, el2.h, and erets to EL1) -- with
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
#include "arch/aarch64/el2.h"

#define DAIF_ALL 0xF
#define CURRENTEL_EL2 (2 << 2) /* CurrentEL.EL [3:2] */
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
	mrs	x1, CurrentEL
	cmp	x1, #CURRENTEL_EL2
	b.ne	ap_el1
	/* Started at EL2 (PSCI starts a core at the highest EL the caller's firmware has): apply
	 * the boot core's EL2 configuration and continue below at EL1, MMU still off. No valid
	 * configuration (the boot core never left EL2): stop here, stage NONE. */
	ldr	x1, [x0, #AP_B_EL2 + EL2_C_FLAGS]
	tbz	x1, #EL2_F_VALID, ap_park
	mov	x19, x0
	add	x0, x0, #AP_B_EL2
	bl	a64_el2_apply
	mov	x0, x19
	movz	x1, #(EL2_SCTLR_EL1_RES1 & 0xFFFF)
	movk	x1, #(EL2_SCTLR_EL1_RES1 >> 16), lsl #16
	msr	sctlr_el1, x1			/* MMU and caches off until the block's value below */
	adr	x1, ap_el1
	msr	elr_el2, x1
	mov	x1, #EL2_SPSR_EL1H_MASKED
	msr	spsr_el2, x1
	isb
	eret
ap_el1:
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
ap_park:
1:	wfi
	b	1b
	.size ap_start_entry, . - ap_start_entry

/* void a64_el2_apply(const struct el2_config *c): the EL2 registers for running EL1 without a
 * hypervisor (see el2.h). Called by the boot core (MMU on) and by the stub above (MMU off: aligned
 * doubleword loads only). Clobbers x0-x3. */
	.global a64_el2_apply
	.type a64_el2_apply, %function
a64_el2_apply:
	ldr	x1, [x0, #EL2_C_HCR]
	msr	hcr_el2, x1
	isb
	ldr	x1, [x0, #EL2_C_MDCR]
	msr	mdcr_el2, x1
	ldr	x1, [x0, #EL2_C_CPTR]
	msr	cptr_el2, x1
	ldr	x1, [x0, #EL2_C_CNTHCTL]
	msr	cnthctl_el2, x1
	msr	cntvoff_el2, xzr		/* EL1's virtual counter is the physical one */
	msr	cnthp_ctl_el2, xzr		/* the firmware's EL2 timer stays silent */
	mrs	x1, midr_el1			/* what EL1 reads as MIDR / MPIDR: the real ones */
	msr	vpidr_el2, x1
	mrs	x1, mpidr_el1
	msr	vmpidr_el2, x1
	msr	vttbr_el2, xzr
	ldr	x2, [x0, #EL2_C_FLAGS]
	tbz	x2, #EL2_F_GIC_SYSREG, 1f
	ldr	x1, [x0, #EL2_C_ICC_SRE]
	msr	S3_4_C12_C9_5, x1		/* ICC_SRE_EL2 */
	isb
	msr	S3_4_C12_C11_0, xzr		/* ICH_HCR_EL2: no virtual CPU interface */
1:	tbz	x2, #EL2_F_SVE, 2f
	ldr	x1, [x0, #EL2_C_ZCR]
	msr	S3_4_C1_C2_0, x1		/* ZCR_EL2 */
2:	tbz	x2, #EL2_F_HCX, 3f
	ldr	x1, [x0, #EL2_C_HCRX]
	msr	S3_4_C1_C2_2, x1		/* HCRX_EL2 */
3:	tbz	x2, #EL2_F_FGT, 4f
	msr	S3_4_C1_C1_4, xzr		/* HFGRTR_EL2, HFGWTR_EL2, HFGITR_EL2: no fine-grained traps */
	msr	S3_4_C1_C1_5, xzr
	msr	S3_4_C1_C1_6, xzr
	msr	S3_4_C3_C1_4, xzr		/* HDFGRTR_EL2, HDFGWTR_EL2 */
	msr	S3_4_C3_C1_5, xzr
	tbz	x2, #EL2_F_AMU_FGT, 4f
	msr	S3_4_C3_C1_6, xzr		/* HAFGRTR_EL2 */
4:	ldr	x1, [x0, #EL2_C_VBAR]
	msr	vbar_el2, x1
	isb
	ret
	.size a64_el2_apply, . - a64_el2_apply
ap_start_end:

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
