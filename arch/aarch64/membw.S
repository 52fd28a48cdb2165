/* Memory bandwidth kernels of arch/membw.h for AArch64, one pass loop per access kind and width,
 * in assembly so that no compiler can vectorise, merge or delete them. All take (AAPCS64):
 *   x0 = dst, x1 = src, x2 = bytes per pass (a multiple of 256), x3 = passes (>= 1)
 * Every kernel walks its buffer from the lowest address up in 256-byte steps, as the x86_64 ones.
 * Widths: 64 = one X register per load/store (ldr/str x), 128 = one NEON Q register (ldr/str q;
 * FP/SIMD must be enabled, simd.c checks). The non-temporal kernels store with STNP, the only
 * non-temporal store AArch64 has (a pair: two X or two Q registers per instruction). The 256- and
 * 512-bit widths and rep_stosb/rep_movsb have no AArch64 kernel: their symbols exist for the
 * kernel table and are never called (simd_usable / arch_membw_rep_unavailable say why); should one
 * be called anyway it executes udf, a fault record, never a number.
 * AArch64's own kernels (simd.c lists them, bench/probes/mem/membw.c runs them under the shared kernel names
 * with widths of their own): load/store pair (ldp/stp of two X or two Q registers), the DC ZVA
 * block fill (the block size from DCZID_EL0), and SVE's ld1d/st1d/stnt1d in a predicated
 * (whilelo) loop, whatever the vector length. */

	.text

/* Loop skeleton: \body handles 256 bytes at x8 (src) / x9 (dst); x3 counts passes. \init runs
 * once before the loop: the Q-register store kernels set the q0 they store (as the SVE ones set
 * z4), so what they write is defined, not whatever the caller left in q0 (the known-answer check,
 * membw_verify.c, could not tell an unwritten byte from a q0 that held its fill pattern). */
.macro KERNEL name, body, init=
	.global \name
	.type \name, %function
	.balign 32
\name:
	\init
1:	mov	x8, x1
	mov	x9, x0
	mov	x10, x2
2:	\body
	add	x8, x8, #256
	add	x9, x9, #256
	subs	x10, x10, #256
	b.ne	2b
	subs	x3, x3, #1
	b.ne	1b
	ret
	.size \name, . - \name
.endm

/* 64-bit: X registers */
.macro READ64
	.irp off, 0, 16, 32, 48, 64, 80, 96, 112, 128, 144, 160, 176, 192, 208, 224, 240
	ldr	x11, [x8, #\off]
	ldr	x12, [x8, #\off + 8]
	.endr
.endm
.macro WRITE64
	.irp off, 0, 16, 32, 48, 64, 80, 96, 112, 128, 144, 160, 176, 192, 208, 224, 240
	str	x3, [x9, #\off]
	str	x3, [x9, #\off + 8]
	.endr
.endm
.macro WRITE64NT
	.irp off, 0, 16, 32, 48, 64, 80, 96, 112, 128, 144, 160, 176, 192, 208, 224, 240
	stnp	x3, x3, [x9, #\off]
	.endr
.endm
.macro COPY64
	.irp off, 0, 16, 32, 48, 64, 80, 96, 112, 128, 144, 160, 176, 192, 208, 224, 240
	ldr	x11, [x8, #\off]
	ldr	x12, [x8, #\off + 8]
	str	x11, [x9, #\off]
	str	x12, [x9, #\off + 8]
	.endr
.endm
.macro COPY64NT
	.irp off, 0, 16, 32, 48, 64, 80, 96, 112, 128, 144, 160, 176, 192, 208, 224, 240
	ldr	x11, [x8, #\off]
	ldr	x12, [x8, #\off + 8]
	stnp	x11, x12, [x9, #\off]
	.endr
.endm

/* 128-bit: NEON Q registers */
.macro READ128
	.irp off, 0, 32, 64, 96, 128, 160, 192, 224
	ldr	q0, [x8, #\off]
	ldr	q1, [x8, #\off + 16]
	.endr
.endm
.macro WRITE128
	.irp off, 0, 32, 64, 96, 128, 160, 192, 224
	str	q0, [x9, #\off]
	str	q0, [x9, #\off + 16]
	.endr
.endm
.macro WRITE128NT
	.irp off, 0, 32, 64, 96, 128, 160, 192, 224
	stnp	q0, q0, [x9, #\off]
	.endr
.endm
.macro COPY128
	.irp off, 0, 32, 64, 96, 128, 160, 192, 224
	ldr	q0, [x8, #\off]
	ldr	q1, [x8, #\off + 16]
	str	q0, [x9, #\off]
	str	q1, [x9, #\off + 16]
	.endr
.endm
.macro COPY128NT
	.irp off, 0, 32, 64, 96, 128, 160, 192, 224
	ldr	q0, [x8, #\off]
	ldr	q1, [x8, #\off + 16]
	stnp	q0, q1, [x9, #\off]
	.endr
.endm

/* Load/store pair: two X registers (pair64) or two Q registers (pair128) per instruction */
.macro READP64
	.irp off, 0, 16, 32, 48, 64, 80, 96, 112, 128, 144, 160, 176, 192, 208, 224, 240
	ldp	x11, x12, [x8, #\off]
	.endr
.endm
.macro WRITEP64
	.irp off, 0, 16, 32, 48, 64, 80, 96, 112, 128, 144, 160, 176, 192, 208, 224, 240
	stp	x3, x3, [x9, #\off]
	.endr
.endm
.macro COPYP64
	.irp off, 0, 16, 32, 48, 64, 80, 96, 112, 128, 144, 160, 176, 192, 208, 224, 240
	ldp	x11, x12, [x8, #\off]
	stp	x11, x12, [x9, #\off]
	.endr
.endm
.macro READP128
	.irp off, 0, 32, 64, 96, 128, 160, 192, 224
	ldp	q0, q1, [x8, #\off]
	.endr
.endm
.macro WRITEP128
	.irp off, 0, 32, 64, 96, 128, 160, 192, 224
	stp	q0, q0, [x9, #\off]
	.endr
.endm
.macro COPYP128
	.irp off, 0, 32, 64, 96, 128, 160, 192, 224
	ldp	q0, q1, [x8, #\off]
	stp	q0, q1, [x9, #\off]
	.endr
.endm

KERNEL bw_read_64, READ64
KERNEL bw_write_64, WRITE64
KERNEL bw_copy_64, COPY64
KERNEL bw_write_nt_64, WRITE64NT
KERNEL bw_copy_nt_64, COPY64NT
KERNEL bw_read_128, READ128
.macro Q0_DEFINED
	movi	v0.2d, #0
.endm
KERNEL bw_write_128, WRITE128, Q0_DEFINED
KERNEL bw_copy_128, COPY128
KERNEL bw_write_nt_128, WRITE128NT, Q0_DEFINED
KERNEL bw_copy_nt_128, COPY128NT
KERNEL bw_read_pair64, READP64
KERNEL bw_write_pair64, WRITEP64
KERNEL bw_copy_pair64, COPYP64
KERNEL bw_read_pair128, READP128
KERNEL bw_write_pair128, WRITEP128, Q0_DEFINED
KERNEL bw_copy_pair128, COPYP128

/* DC ZVA fill: zero one DCZID_EL0 block per instruction (block = 4 << DCZID_EL0.BS bytes).
 * The caller checks DCZID_EL0.DZP (prohibited: DC ZVA would trap) and passes bytes a multiple of
 * the block, dst aligned to it. */
#define DCZID_BS_MASK 0xF
	.global bw_write_zva
	.type bw_write_zva, %function
	.balign 32
bw_write_zva:
	mrs	x12, dczid_el0
	and	x12, x12, #DCZID_BS_MASK
	mov	x13, #4
	lsl	x12, x13, x12
1:	mov	x9, x0
	mov	x10, x2
2:	dc	zva, x9
	add	x9, x9, x12
	subs	x10, x10, x12
	b.ne	2b
	subs	x3, x3, #1
	b.ne	1b
	ret
	.size bw_write_zva, . - bw_write_zva

/* SVE: four vectors of doublewords per iteration under an all-true predicate (p1) while four
 * whole vectors remain, then one vector per iteration predicated by whilelo (p0) over the rest
 * of the pass (x14 doublewords), so any vector length (128..2048 bits) walks exactly `bytes` and
 * the loop overhead compares with the 256-byte bodies of the fixed-width kernels. x8/x9 walk the
 * main loop (vector-scaled offsets), x10 counts doublewords done. The caller checks
 * ID_AA64PFR0_EL1.SVE and enables SVE (simd.c: CPACR_EL1.ZEN, ZCR_EL1.LEN). */
	.arch_extension sve
.macro SVE_KERNEL name, body4, body1
	.global \name
	.type \name, %function
	.balign 32
\name:
	cntd	x13
	lsl	x15, x13, #2
	lsr	x14, x2, #3
	ptrue	p1.d
	mov	z4.d, #0
1:	mov	x8, x1
	mov	x9, x0
	mov	x10, #0
	add	x16, x10, x15
	cmp	x16, x14
	b.hi	3f
2:	\body4
	addvl	x8, x8, #4
	addvl	x9, x9, #4
	add	x10, x10, x15
	add	x16, x10, x15
	cmp	x16, x14
	b.ls	2b
3:	whilelo	p0.d, x10, x14
	b.none	5f
4:	\body1
	add	x10, x10, x13
	whilelo	p0.d, x10, x14
	b.first	4b
5:	subs	x3, x3, #1
	b.ne	1b
	ret
	.size \name, . - \name
.endm
.macro SVE_READ4
	ld1d	{z0.d}, p1/z, [x8, #0, mul vl]
	ld1d	{z1.d}, p1/z, [x8, #1, mul vl]
	ld1d	{z2.d}, p1/z, [x8, #2, mul vl]
	ld1d	{z3.d}, p1/z, [x8, #3, mul vl]
.endm
.macro SVE_READ1
	ld1d	{z0.d}, p0/z, [x1, x10, lsl #3]
.endm
.macro SVE_WRITE4
	st1d	{z4.d}, p1, [x9, #0, mul vl]
	st1d	{z4.d}, p1, [x9, #1, mul vl]
	st1d	{z4.d}, p1, [x9, #2, mul vl]
	st1d	{z4.d}, p1, [x9, #3, mul vl]
.endm
.macro SVE_WRITE1
	st1d	{z4.d}, p0, [x0, x10, lsl #3]
.endm
.macro SVE_COPY4
	ld1d	{z0.d}, p1/z, [x8, #0, mul vl]
	ld1d	{z1.d}, p1/z, [x8, #1, mul vl]
	ld1d	{z2.d}, p1/z, [x8, #2, mul vl]
	ld1d	{z3.d}, p1/z, [x8, #3, mul vl]
	st1d	{z0.d}, p1, [x9, #0, mul vl]
	st1d	{z1.d}, p1, [x9, #1, mul vl]
	st1d	{z2.d}, p1, [x9, #2, mul vl]
	st1d	{z3.d}, p1, [x9, #3, mul vl]
.endm
.macro SVE_COPY1
	ld1d	{z0.d}, p0/z, [x1, x10, lsl #3]
	st1d	{z0.d}, p0, [x0, x10, lsl #3]
.endm
.macro SVE_WRITE_NT4
	stnt1d	{z4.d}, p1, [x9, #0, mul vl]
	stnt1d	{z4.d}, p1, [x9, #1, mul vl]
	stnt1d	{z4.d}, p1, [x9, #2, mul vl]
	stnt1d	{z4.d}, p1, [x9, #3, mul vl]
.endm
.macro SVE_WRITE_NT1
	stnt1d	{z4.d}, p0, [x0, x10, lsl #3]
.endm
.macro SVE_COPY_NT4
	ld1d	{z0.d}, p1/z, [x8, #0, mul vl]
	ld1d	{z1.d}, p1/z, [x8, #1, mul vl]
	ld1d	{z2.d}, p1/z, [x8, #2, mul vl]
	ld1d	{z3.d}, p1/z, [x8, #3, mul vl]
	stnt1d	{z0.d}, p1, [x9, #0, mul vl]
	stnt1d	{z1.d}, p1, [x9, #1, mul vl]
	stnt1d	{z2.d}, p1, [x9, #2, mul vl]
	stnt1d	{z3.d}, p1, [x9, #3, mul vl]
.endm
.macro SVE_COPY_NT1
	ld1d	{z0.d}, p0/z, [x1, x10, lsl #3]
	stnt1d	{z0.d}, p0, [x0, x10, lsl #3]
.endm
SVE_KERNEL bw_read_sve, SVE_READ4, SVE_READ1
SVE_KERNEL bw_write_sve, SVE_WRITE4, SVE_WRITE1
SVE_KERNEL bw_copy_sve, SVE_COPY4, SVE_COPY1
SVE_KERNEL bw_write_nt_sve, SVE_WRITE_NT4, SVE_WRITE_NT1
SVE_KERNEL bw_copy_nt_sve, SVE_COPY_NT4, SVE_COPY_NT1

/* No kernel on AArch64 (see above): never called; udf if they are. */
.macro ABSENT name
	.global \name
	.type \name, %function
\name:
	udf	#0
	.size \name, . - \name
.endm
	.irp w, 256, 512
	ABSENT bw_read_\w
	ABSENT bw_write_\w
	ABSENT bw_copy_\w
	ABSENT bw_write_nt_\w
	ABSENT bw_copy_nt_\w
	.endr
ABSENT bw_rep_stosb
ABSENT bw_rep_movsb

	.section .note.GNU-stack, "", %progbits
