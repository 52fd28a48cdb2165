/* The primitive-cost kernels of arch/prim_ops.h (AArch64, AAPCS64: the firmware and the hosted
 * build alike). Every kernel loops `iters` times over 16 operations of its kind and a subs/b.ne;
 * the instruction counts per iteration are arch/aarch64/include/cpu/prim_ops.h's. Only
 * caller-saved registers (x0-x17, v0-v7, v16-v31), except the call kernel's saved link register. */

	.text

/* uint64_t arch_prim_int_dep(iters): 16 adds, each waiting for the last (1 cycle latency on the
 * Neoverse and Cortex-A cores, per their software optimization guides). */
	.global arch_prim_int_dep
	.type arch_prim_int_dep, %function
	.balign 16
arch_prim_int_dep:
	mov	x2, #0
	mov	x3, #1
	cbz	x0, 2f
1:	.rept 16
	add	x2, x2, x3
	.endr
	subs	x0, x0, #1
	b.ne	1b
2:	mov	x0, x2
	ret
	.size arch_prim_int_dep, . - arch_prim_int_dep

/* uint64_t arch_prim_int_indep(iters): 16 adds over eight accumulators (the ALUs' rate). */
	.global arch_prim_int_indep
	.type arch_prim_int_indep, %function
	.balign 16
arch_prim_int_indep:
	mov	x1, #1
	.irp r, 8, 9, 10, 11, 12, 13, 14, 15
	mov	x\r, #0
	.endr
	cbz	x0, 2f
1:	.rept 2
	.irp r, 8, 9, 10, 11, 12, 13, 14, 15
	add	x\r, x\r, x1
	.endr
	.endr
	subs	x0, x0, #1
	b.ne	1b
2:	add	x0, x8, x15
	ret
	.size arch_prim_int_indep, . - arch_prim_int_indep

/* void arch_prim_store(lines, iters): 16 8-byte stores over two 64-byte lines. */
	.global arch_prim_store
	.type arch_prim_store, %function
	.balign 16
arch_prim_store:
	cbz	x1, 2f
1:	.irp off, 0, 8, 16, 24, 32, 40, 48, 56, 64, 72, 80, 88, 96, 104, 112, 120
	str	x1, [x0, #\off]
	.endr
	subs	x1, x1, #1
	b.ne	1b
2:	ret
	.size arch_prim_store, . - arch_prim_store

/* One xorshift64 step of x3 (Marsaglia 2003: 13, 7, 17), then x2 = (x3 & mask) ^ pattern
 * (x4, x5). */
.macro XORSHIFT_MASKED
	eor	x3, x3, x3, lsl #13
	eor	x3, x3, x3, lsr #7
	eor	x3, x3, x3, lsl #17
	and	x2, x3, x4
	eor	x2, x2, x5
.endm

/* uint64_t arch_prim_branch(struct prim_rand *r, iters): 16 conditional branches per iteration,
 * branch k taken when bit k of the masked bits is set (it skips one add). */
	.global arch_prim_branch
	.type arch_prim_branch, %function
	.balign 16
arch_prim_branch:
	ldp	x4, x3, [x0]
	ldr	x5, [x0, #16]
	mov	x8, #0
	cbz	x1, 2f
1:	XORSHIFT_MASKED
	.irp bit, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15
	tbnz	x2, #\bit, 3f
	add	x8, x8, #1
3:
	.endr
	subs	x1, x1, #1
	b.ne	1b
2:	str	x3, [x0, #8]
	mov	x0, x8
	ret
	.size arch_prim_branch, . - arch_prim_branch

/* uint64_t arch_prim_indirect(struct prim_rand *r, iters): 16 indirect branches per iteration,
 * each to one of two targets chosen without a branch (csel) by bit k: bit clear, the target right
 * after the br (the fixed path); set, one add before it. */
	.global arch_prim_indirect
	.type arch_prim_indirect, %function
	.balign 16
arch_prim_indirect:
	ldp	x4, x3, [x0]
	ldr	x5, [x0, #16]
	mov	x8, #0
	cbz	x1, 2f
1:	XORSHIFT_MASKED
	.irp bit, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15
	adr	x9, 4f
	adr	x10, 5f
	tst	x2, #(1 << \bit)
	csel	x9, x10, x9, ne
	br	x9
5:	add	x8, x8, #1
4:
	.endr
	subs	x1, x1, #1
	b.ne	1b
2:	str	x3, [x0, #8]
	mov	x0, x8
	ret
	.size arch_prim_indirect, . - arch_prim_indirect

/* void arch_prim_call(iters): 16 calls (bl) of a leaf that returns at once. */
	.global arch_prim_call
	.type arch_prim_call, %function
	.balign 16
arch_prim_call:
	stp	x29, x30, [sp, #-16]!
	cbz	x0, 2f
1:	.rept 16
	bl	prim_leaf
	.endr
	subs	x0, x0, #1
	b.ne	1b
2:	ldp	x29, x30, [sp], #16
	ret
	.size arch_prim_call, . - arch_prim_call
	.type prim_leaf, %function
prim_leaf:
	ret
	.size prim_leaf, . - prim_leaf

/* uint64_t arch_prim_fp_add(iters): 16 fadd per iteration over eight accumulators (the FP
 * adders' rate, their latency hidden). */
	.global arch_prim_fp_add
	.type arch_prim_fp_add, %function
	.balign 16
arch_prim_fp_add:
	fmov	d16, #1.0
	.irp n, 0, 1, 2, 3, 4, 5, 6, 7
	movi	d\n, #0
	.endr
	cbz	x0, 2f
1:	.rept 2
	.irp n, 0, 1, 2, 3, 4, 5, 6, 7
	fadd	d\n, d\n, d16
	.endr
	.endr
	subs	x0, x0, #1
	b.ne	1b
2:	fadd	d0, d0, d7
	fmov	x0, d0
	ret
	.size arch_prim_fp_add, . - arch_prim_fp_add

	.section .note.GNU-stack, "", %progbits
