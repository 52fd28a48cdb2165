/* Peak floating-point kernels (arch/flops.h), in assembly so that no compiler can merge, reorder
 * or delete the chains. All take (SysV): rdi = out (FLOPS_ACC x lanes doubles), rsi = iters (>= 1).
 * Registers 0-11 hold the twelve chains, 14 and 15 the constant 1.0 (every xmm/ymm/zmm register
 * is caller-saved in the SysV ABI the firmware and the hosted build use). The VEX/EVEX kernels
 * end with vzeroupper so no SSE code after them pays the AVX-SSE transition. */

	.section .rodata
	.balign 8
.Lone:	.double 1.0

	.text

.macro KSTART name
	.globl \name
	.balign 16
\name:
.endm

/* FMA kernels: chains zeroed (a VEX xor zeroes the whole register), then
 * acc = 1.0 x 1.0 + acc per chain per trip (vfmadd231: dst = src2 x src3 + dst). */
.macro FMA_KERNEL name, reg, load_one, insn, store, bytes
KSTART \name
	\load_one .Lone(%rip), %\reg\()14
	vmovapd %\reg\()14, %\reg\()15
	.irp n, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11
	vxorpd %xmm\n, %xmm\n, %xmm\n
	.endr
1:
	.irp n, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11
	\insn %\reg\()15, %\reg\()14, %\reg\()\n
	.endr
	decq %rsi
	jnz 1b
	.irp n, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11
	\store %\reg\()\n, \n*\bytes(%rdi)
	.endr
	vzeroupper
	ret
.endm

FMA_KERNEL flops_fma_64, xmm, vmovsd, vfmadd231sd, vmovsd, 8
FMA_KERNEL flops_fma_128, xmm, vmovddup, vfmadd231pd, vmovupd, 16
FMA_KERNEL flops_fma_256, ymm, vbroadcastsd, vfmadd231pd, vmovupd, 32
FMA_KERNEL flops_fma_512, zmm, vbroadcastsd, vfmadd231pd, vmovupd, 64

/* SSE2 multiply and add kernels (every x86-64 CPU): chains 0-5 acc = acc + 1.0, chains 6-11
 * acc = acc x 1.0 (from 1.0), interleaved so the adder and the multiplier both stay busy. */
.macro MA_PAIR add, mul, a, m
	\add %xmm14, %xmm\a
	\mul %xmm14, %xmm\m
.endm
.macro MULADD_KERNEL name, mul, add, store, bytes, widen
KSTART \name
	movsd .Lone(%rip), %xmm14
	.if \widen
	unpcklpd %xmm14, %xmm14
	.endif
	.irp n, 0, 1, 2, 3, 4, 5
	xorpd %xmm\n, %xmm\n
	.endr
	.irp n, 6, 7, 8, 9, 10, 11
	movapd %xmm14, %xmm\n
	.endr
1:	MA_PAIR \add, \mul, 0, 6
	MA_PAIR \add, \mul, 1, 7
	MA_PAIR \add, \mul, 2, 8
	MA_PAIR \add, \mul, 3, 9
	MA_PAIR \add, \mul, 4, 10
	MA_PAIR \add, \mul, 5, 11
	decq %rsi
	jnz 1b
	.irp n, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11
	\store %xmm\n, \n*\bytes(%rdi)
	.endr
	ret
.endm

MULADD_KERNEL flops_mul_add_64, mulsd, addsd, movsd, 8, 0
MULADD_KERNEL flops_mul_add_128, mulpd, addpd, movupd, 16, 1

	.section .note.GNU-stack, "", @progbits
