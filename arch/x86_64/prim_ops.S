/* The primitive-cost kernels of arch/prim_ops.h (x86_64, SysV: the firmware and the hosted build
 * alike). Every kernel loops `iters` times over 16 operations of its kind and a dec/jnz; the
 * instruction counts per iteration are arch/x86_64/include/cpu/prim_ops.h's. Register + register
 * adds on purpose: some renamers fold an add of an immediate. */

	.text

/* uint64_t arch_prim_int_dep(iters): 16 adds, each waiting for the last (1 cycle latency on every
 * x86 core of interest: Agner Fog, instruction tables). */
	.globl arch_prim_int_dep
	.type arch_prim_int_dep, @function
arch_prim_int_dep:
	xorl %eax, %eax
	movl $1, %edx
	testq %rdi, %rdi
	jz 2f
1:	.rept 16
	addq %rdx, %rax
	.endr
	decq %rdi
	jnz 1b
2:	ret
	.size arch_prim_int_dep, . - arch_prim_int_dep

/* uint64_t arch_prim_int_indep(iters): 16 adds over eight accumulators, so each waits for the one
 * eight adds back only: the ALUs' rate (at most 6 per cycle on current cores), not a latency. */
	.globl arch_prim_int_indep
	.type arch_prim_int_indep, @function
arch_prim_int_indep:
	pushq %rbx
	movl $1, %ebx
	xorl %eax, %eax
	xorl %ecx, %ecx
	xorl %edx, %edx
	xorl %esi, %esi
	xorl %r8d, %r8d
	xorl %r9d, %r9d
	xorl %r10d, %r10d
	xorl %r11d, %r11d
	testq %rdi, %rdi
	jz 2f
1:	.rept 2
	.irp acc, rax, rcx, rdx, rsi, r8, r9, r10, r11
	addq %rbx, %\acc
	.endr
	.endr
	decq %rdi
	jnz 1b
2:	addq %rcx, %rax
	addq %r11, %rax
	popq %rbx
	ret
	.size arch_prim_int_indep, . - arch_prim_int_indep

/* void arch_prim_store(lines, iters): 16 8-byte stores over two 64-byte lines (L1 hits). */
	.globl arch_prim_store
	.type arch_prim_store, @function
arch_prim_store:
	movq %rsi, %rax
	testq %rsi, %rsi
	jz 2f
1:	.irp off, 0, 8, 16, 24, 32, 40, 48, 56, 64, 72, 80, 88, 96, 104, 112, 120
	movq %rax, \off(%rdi)
	.endr
	decq %rsi
	jnz 1b
2:	ret
	.size arch_prim_store, . - arch_prim_store

/* One xorshift64 step of rax (Marsaglia 2003: 13, 7, 17), then rdx = (rax & mask) ^ pattern
 * (rcx, r11). */
.macro XORSHIFT_MASKED
	movq %rax, %r9
	shlq $13, %r9
	xorq %r9, %rax
	movq %rax, %r9
	shrq $7, %r9
	xorq %r9, %rax
	movq %rax, %r9
	shlq $17, %r9
	xorq %r9, %rax
	movq %rax, %rdx
	andq %rcx, %rdx
	xorq %r11, %rdx
.endm

/* uint64_t arch_prim_branch(struct prim_rand *r, iters): 16 conditional branches per iteration,
 * branch k taken when bit k of the masked bits is set (it skips one inc). */
	.globl arch_prim_branch
	.type arch_prim_branch, @function
arch_prim_branch:
	movq (%rdi), %rcx
	movq 8(%rdi), %rax
	movq 16(%rdi), %r11
	xorl %r8d, %r8d
	testq %rsi, %rsi
	jz 2f
1:	XORSHIFT_MASKED
	.irp bit, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15
	testl $(1 << \bit), %edx
	jnz 3f
	incq %r8
3:
	.endr
	decq %rsi
	jnz 1b
2:	movq %rax, 8(%rdi)
	movq %r8, %rax
	ret
	.size arch_prim_branch, . - arch_prim_branch

/* uint64_t arch_prim_indirect(struct prim_rand *r, iters): 16 indirect jumps per iteration, each
 * to one of two targets chosen without a branch (cmov) by bit k: bit clear, the target right
 * after the jump (the fixed path); set, one inc before it. */
	.globl arch_prim_indirect
	.type arch_prim_indirect, @function
arch_prim_indirect:
	movq (%rdi), %rcx
	movq 8(%rdi), %rax
	movq 16(%rdi), %r11
	xorl %r8d, %r8d
	testq %rsi, %rsi
	jz 2f
1:	XORSHIFT_MASKED
	.irp bit, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15
	leaq 4f(%rip), %r9
	leaq 5f(%rip), %r10
	testl $(1 << \bit), %edx
	cmovnzq %r10, %r9
	jmp *%r9
5:	incq %r8
4:
	.endr
	decq %rsi
	jnz 1b
2:	movq %rax, 8(%rdi)
	movq %r8, %rax
	ret
	.size arch_prim_indirect, . - arch_prim_indirect

/* void arch_prim_call(iters): 16 calls of a leaf that returns at once. */
	.globl arch_prim_call
	.type arch_prim_call, @function
arch_prim_call:
	testq %rdi, %rdi
	jz 2f
1:	.rept 16
	call prim_leaf
	.endr
	decq %rdi
	jnz 1b
2:	ret
	.size arch_prim_call, . - arch_prim_call
	.type prim_leaf, @function
prim_leaf:
	ret
	.size prim_leaf, . - prim_leaf

/* uint64_t arch_prim_fp_add(iters): 16 addsd per iteration over eight accumulators (each waits for
 * the one eight adds back: the FP adders' rate, 3-4 cycle latency hidden). */
	.globl arch_prim_fp_add
	.type arch_prim_fp_add, @function
arch_prim_fp_add:
	movabsq $0x3FF0000000000000, %rax	/* 1.0 */
	movq %rax, %xmm8
	.irp n, 0, 1, 2, 3, 4, 5, 6, 7
	xorpd %xmm\n, %xmm\n
	.endr
	testq %rdi, %rdi
	jz 2f
1:	.rept 2
	.irp n, 0, 1, 2, 3, 4, 5, 6, 7
	addsd %xmm8, %xmm\n
	.endr
	.endr
	decq %rdi
	jnz 1b
2:	addsd %xmm7, %xmm0
	movq %xmm0, %rax
	ret
	.size arch_prim_fp_add, . - arch_prim_fp_add

	.section .note.GNU-stack, "", @progbits
