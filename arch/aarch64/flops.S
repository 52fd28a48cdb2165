/* Peak floating-point kernels (arch/flops.h), in assembly so that no compiler can merge, reorder
 * or delete the chains. All take (AAPCS64): x0 = out (FLOPS_ACC x lanes doubles), x1 = iters
 * (>= 1). The twelve chains live in v0-v7 and v16-v19 (z0-z7, z16-z19), the constant 1.0 in v20
 * and v21: all caller-saved (v8-v15 are not, so they stay untouched). FMADD and FMLA compute
 * acc = acc + 1.0 x 1.0; the callers check the stored values. The SVE kernel runs under an
 * all-true predicate at the vector length simd.c enabled. */

	.text

/* \m reg, index for each chain: the register and its place in `out`. */
.macro FOR_CHAINS m
	\m 0, 0
	\m 1, 1
	\m 2, 2
	\m 3, 3
	\m 4, 4
	\m 5, 5
	\m 6, 6
	\m 7, 7
	\m 16, 8
	\m 17, 9
	\m 18, 10
	\m 19, 11
.endm

.macro KSTART name
	.global \name
	.type \name, %function
	.balign 16
\name:
.endm

.macro D_ZERO r, i
	movi	d\r, #0
.endm
.macro D_FMA r, i
	fmadd	d\r, d20, d21, d\r
.endm
.macro D_STORE r, i
	str	d\r, [x0, #\i * 8]
.endm

KSTART flops_fma_64
	fmov	d20, #1.0
	fmov	d21, #1.0
	FOR_CHAINS D_ZERO
1:	FOR_CHAINS D_FMA
	subs	x1, x1, #1
	b.ne	1b
	FOR_CHAINS D_STORE
	ret
	.size flops_fma_64, . - flops_fma_64

.macro V_ZERO r, i
	movi	v\r\().2d, #0
.endm
.macro V_FMA r, i
	fmla	v\r\().2d, v20.2d, v21.2d
.endm
.macro V_STORE r, i
	str	q\r, [x0, #\i * 16]
.endm

KSTART flops_fma_128
	fmov	v20.2d, #1.0
	fmov	v21.2d, #1.0
	FOR_CHAINS V_ZERO
1:	FOR_CHAINS V_FMA
	subs	x1, x1, #1
	b.ne	1b
	FOR_CHAINS V_STORE
	ret
	.size flops_fma_128, . - flops_fma_128

	.arch_extension sve
.macro Z_ZERO r, i
	mov	z\r\().d, #0
.endm
.macro Z_FMA r, i
	fmla	z\r\().d, p0/m, z20.d, z21.d
.endm
/* one vector per chain, x0 stepping by the vector length (ST1D's immediate reaches only 7) */
.macro Z_STORE r, i
	st1d	{z\r\().d}, p0, [x0]
	addvl	x0, x0, #1
.endm

KSTART flops_fma_sve
	ptrue	p0.d
	fmov	z20.d, #1.0
	fmov	z21.d, #1.0
	FOR_CHAINS Z_ZERO
1:	FOR_CHAINS Z_FMA
	subs	x1, x1, #1
	b.ne	1b
	FOR_CHAINS Z_STORE
	ret
	.size flops_fma_sve, . - flops_fma_sve

	.section .note.GNU-stack, "", %progbits
