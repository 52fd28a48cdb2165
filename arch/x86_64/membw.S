/* Memory bandwidth kernels, one pass loop per access kind and width, in assembly so that no
 * compiler can vectorise, merge or delete them. All take (SysV):
 *   rdi = dst, rsi = src, rdx = bytes per pass (a multiple of 256), rcx = passes (>= 1)
 * Read kernels read src, write kernels write dst, copy kernels read src and write dst. Every kernel
 * walks its buffer from the lowest address up in 256-byte steps, so all kernels address memory the
 * same way (hbench-OS 2.2.5). Buffers are 64-byte aligned. */

	.text

/* Every kernel's entry, and its loop's end: each stream pointer of \ptrs steps 256 bytes, %r10
 * counts the bytes left in the pass (label 2: the 256-byte step), %rcx the passes (label 1: one
 * pass); the non-temporal kernels (\fence) order their stores before returning. */
.macro KENTRY name
	.globl \name
	.align 32
\name:
.endm
.macro KLOOP_END fence, ptrs:vararg
	.irp p, \ptrs
	addq $256, \p
	.endr
	subq $256, %r10
	jnz 2b
	decq %rcx
	jnz 1b
	.if \fence
	sfence
	.endif
	ret
.endm

/* Loop skeleton: \body handles 256 bytes at %r8 (src) / %r9 (dst). */
.macro KERNEL name, body, fence=0
	KENTRY \name
1:	movq %rsi, %r8
	movq %rdi, %r9
	movq %rdx, %r10
2:	\body
	KLOOP_END \fence, %r8, %r9
.endm

/* 64-bit scalar */
.macro READ64
	.irp off, 0, 64, 128, 192
	movq \off(%r8), %rax
	movq \off+8(%r8), %r11
	movq \off+16(%r8), %rax
	movq \off+24(%r8), %r11
	movq \off+32(%r8), %rax
	movq \off+40(%r8), %r11
	movq \off+48(%r8), %rax
	movq \off+56(%r8), %r11
	.endr
.endm
/* \insn: the store, movq or the non-temporal movnti (as the wider kernels' \insn below) */
.macro WRITE64 insn=movq
	.irp off, 0, 8, 16, 24, 32, 40, 48, 56, 64, 72, 80, 88, 96, 104, 112, 120, 128, 136, 144, 152, 160, 168, 176, 184, 192, 200, 208, 216, 224, 232, 240, 248
	\insn %rax, \off(%r9)
	.endr
.endm
.macro COPY64 insn=movq
	.irp off, 0, 16, 32, 48, 64, 80, 96, 112, 128, 144, 160, 176, 192, 208, 224, 240
	movq \off(%r8), %rax
	movq \off+8(%r8), %r11
	\insn %rax, \off(%r9)
	\insn %r11, \off+8(%r9)
	.endr
.endm

/* 128-bit SSE2 */
.macro READ128
	.irp off, 0, 64, 128, 192
	movdqa \off(%r8), %xmm0
	movdqa \off+16(%r8), %xmm1
	movdqa \off+32(%r8), %xmm2
	movdqa \off+48(%r8), %xmm3
	.endr
.endm
.macro WRITE128 insn=movdqa
	.irp off, 0, 16, 32, 48, 64, 80, 96, 112, 128, 144, 160, 176, 192, 208, 224, 240
	\insn %xmm0, \off(%r9)
	.endr
.endm
.macro COPY128 insn=movdqa
	.irp off, 0, 64, 128, 192
	movdqa \off(%r8), %xmm0
	movdqa \off+16(%r8), %xmm1
	movdqa \off+32(%r8), %xmm2
	movdqa \off+48(%r8), %xmm3
	\insn %xmm0, \off(%r9)
	\insn %xmm1, \off+16(%r9)
	\insn %xmm2, \off+32(%r9)
	\insn %xmm3, \off+48(%r9)
	.endr
.endm

/* 256-bit AVX */
.macro READ256 s=%r8
	.irp off, 0, 128
	vmovdqa \off(\s), %ymm0
	vmovdqa \off+32(\s), %ymm1
	vmovdqa \off+64(\s), %ymm2
	vmovdqa \off+96(\s), %ymm3
	.endr
.endm
.macro WRITE256 insn=vmovdqa
	.irp off, 0, 32, 64, 96, 128, 160, 192, 224
	\insn %ymm0, \off(%r9)
	.endr
.endm
.macro COPY256 insn=vmovdqa, s=%r8, d=%r9
	.irp off, 0, 128
	vmovdqa \off(\s), %ymm0
	vmovdqa \off+32(\s), %ymm1
	vmovdqa \off+64(\s), %ymm2
	vmovdqa \off+96(\s), %ymm3
	\insn %ymm0, \off(\d)
	\insn %ymm1, \off+32(\d)
	\insn %ymm2, \off+64(\d)
	\insn %ymm3, \off+96(\d)
	.endr
.endm

/* 512-bit AVX-512F; \s / \d: the source / destination pointer (the multi-stream loops pass theirs) */
.macro READ512 s=%r8
	vmovdqa64 0(\s), %zmm0
	vmovdqa64 64(\s), %zmm1
	vmovdqa64 128(\s), %zmm2
	vmovdqa64 192(\s), %zmm3
.endm
.macro WRITE512 insn=vmovdqa64
	\insn %zmm0, 0(%r9)
	\insn %zmm0, 64(%r9)
	\insn %zmm0, 128(%r9)
	\insn %zmm0, 192(%r9)
.endm
.macro COPY512 insn=vmovdqa64, s=%r8, d=%r9
	vmovdqa64 0(\s), %zmm0
	vmovdqa64 64(\s), %zmm1
	vmovdqa64 128(\s), %zmm2
	vmovdqa64 192(\s), %zmm3
	\insn %zmm0, 0(\d)
	\insn %zmm1, 64(\d)
	\insn %zmm2, 128(\d)
	\insn %zmm3, 192(\d)
.endm

KERNEL bw_read_64, READ64
KERNEL bw_write_64, WRITE64
KERNEL bw_copy_64, COPY64
KERNEL bw_write_nt_64, "WRITE64 movnti", 1
KERNEL bw_copy_nt_64, "COPY64 movnti", 1
KERNEL bw_read_128, READ128
KERNEL bw_write_128, WRITE128
KERNEL bw_copy_128, COPY128
KERNEL bw_write_nt_128, "WRITE128 movntdq", 1
KERNEL bw_copy_nt_128, "COPY128 movntdq", 1
KERNEL bw_read_256, READ256
KERNEL bw_write_256, WRITE256
KERNEL bw_copy_256, COPY256
KERNEL bw_write_nt_256, "WRITE256 vmovntdq", 1
KERNEL bw_copy_nt_256, "COPY256 vmovntdq", 1
KERNEL bw_read_512, READ512
KERNEL bw_write_512, WRITE512
KERNEL bw_copy_512, COPY512
KERNEL bw_write_nt_512, "WRITE512 vmovntdq", 1
KERNEL bw_copy_nt_512, "COPY512 vmovntdq", 1

/* Multi-stream loops (arch/x86_64/membw.c lists them): one pass still covers the buffer once, but
 * cut into equal parts walked side by side, each from its lowest address up in 256-byte steps, so
 * several sequential streams (DRAM pages, hardware-prefetcher trackers) are in flight at once. One
 * stream's prefetch depth bounds a single-stream loop's DRAM bandwidth on some cores (a Zen 5
 * guest: 4 streams read 1.3-1.7x one); in caches they gain nothing (docs/methods/membw.md).
 * Read: 4 parts at %r8, %r9, %r11, %rax (bytes a multiple of 1024). */
.macro KERNEL_READ4 name, body
	KENTRY \name
1:	movq %rdx, %r10
	shrq $2, %r10		/* bytes per stream, and the loop count */
	movq %rsi, %r8
	leaq (%r8,%r10), %r9
	leaq (%r9,%r10), %r11
	leaq (%r11,%r10), %rax
2:	.irp s, %r8, %r9, %r11, %rax
	\body \s
	.endr
	KLOOP_END 0, %r8, %r9, %r11, %rax
.endm

/* Copy: 2 parts, %r8 -> %r9 and %r11 -> %rax (bytes a multiple of 512): four streams as the read. */
.macro KERNEL_COPY2 name, body, insn, fence=0
	KENTRY \name
1:	movq %rdx, %r10
	shrq $1, %r10
	movq %rsi, %r8
	movq %rdi, %r9
	leaq (%rsi,%r10), %r11
	leaq (%rdi,%r10), %rax
2:	\body \insn, %r8, %r9
	\body \insn, %r11, %rax
	KLOOP_END \fence, %r8, %r9, %r11, %rax
.endm

KERNEL_READ4 bw_read_256x4, READ256
KERNEL_COPY2 bw_copy_256x2, COPY256, vmovdqa
KERNEL_COPY2 bw_copy_nt_256x2, COPY256, vmovntdq, 1
KERNEL_READ4 bw_read_512x4, READ512
KERNEL_COPY2 bw_copy_512x2, COPY512, vmovdqa64
KERNEL_COPY2 bw_copy_nt_512x2, COPY512, vmovntdq, 1

/* rep stosb / rep movsb: one instruction per pass (ERMS/FSRM make these the fast path). */
KENTRY bw_rep_stosb
	movq %rcx, %r10
	movq %rdi, %r8
	xorl %eax, %eax
1:	movq %r8, %rdi
	movq %rdx, %rcx
	rep stosb
	decq %r10
	jnz 1b
	ret

KENTRY bw_rep_movsb
	movq %rcx, %r10
	movq %rdi, %r8
	movq %rsi, %r9
1:	movq %r8, %rdi
	movq %r9, %rsi
	movq %rdx, %rcx
	rep movsb
	decq %r10
	jnz 1b
	ret

/* void *arch_chase(void *p, uint64_t loads): follow a pointer chain `loads` times (8 per loop
 * iteration, then the remainder); returns where it stopped so nothing can be elided. */
KENTRY arch_chase
	movq %rdi, %rax
	movq %rsi, %rcx
	shrq $3, %rcx
	jz 2f
1:	movq (%rax), %rax
	movq (%rax), %rax
	movq (%rax), %rax
	movq (%rax), %rax
	movq (%rax), %rax
	movq (%rax), %rax
	movq (%rax), %rax
	movq (%rax), %rax
	decq %rcx
	jnz 1b
2:	andq $7, %rsi
	jz 4f
3:	movq (%rax), %rax
	decq %rsi
	jnz 3b
4:	ret

	.section .note.GNU-stack, "", @progbits
