/* The boot core's step from EL2 to EL1 (see arch/aarch64/el2.h, el2.c).
 *
 * void a64_el2_to_el1(const struct el1_mmu *m): at EL2 with a64_el2_apply done. Loads EL1's
 * translation regime (MAIR, TCR, TTBR0/1, CPACR; isb), drops whatever EL1&0 TLB entries an earlier
 * life left (tlbi vmalle1; dsb ish; isb), writes SCTLR_EL1 (it takes effect at EL1), hands the
 * current stack to EL1 (SP_EL1) and erets to EL1h with D, A, I, F masked at the `ret` below: the
 * caller continues at EL1 with every general register as it was. */
#include "arch/aarch64/el2.h"

#define M_MAIR 0
#define M_TCR 8
#define M_TTBR0 16
#define M_TTBR1 24
#define M_SCTLR 32
#define M_CPACR 40

	.text
	.global a64_el2_to_el1
	.type a64_el2_to_el1, %function
a64_el2_to_el1:
	ldr	x1, [x0, #M_MAIR]
	msr	mair_el1, x1
	ldr	x1, [x0, #M_TCR]
	msr	tcr_el1, x1
	ldr	x1, [x0, #M_TTBR0]
	msr	ttbr0_el1, x1
	ldr	x1, [x0, #M_TTBR1]
	msr	ttbr1_el1, x1
	ldr	x1, [x0, #M_CPACR]
	msr	cpacr_el1, x1
	isb
	tlbi	vmalle1
	dsb	ish
	isb
	ldr	x1, [x0, #M_SCTLR]
	msr	sctlr_el1, x1
	mov	x1, sp
	msr	sp_el1, x1
	adr	x1, 1f
	msr	elr_el2, x1
	mov	x1, #EL2_SPSR_EL1H_MASKED
	msr	spsr_el2, x1
	isb
	eret
1:	ret
	.size a64_el2_to_el1, . - a64_el2_to_el1

	.section .note.GNU-stack, "", %progbits
