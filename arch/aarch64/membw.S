/* Memory bandwidth kernels of arch/membw.h for AArch64, one pass loop per access kind and width,
 * in assembly so that no compiler can vectorise, merge or delete them. All take (AAPCS64):
 *   x0 = dst, x1 = src, x2 = bytes per pass (a multiple of 256), x3 = passes (>= 1)
 * Every kernel walks its buffer from the lowest address up in 256-byte steps, as the x86_64 ones.
 * Widths: 64 = one X register per load/store (ldr/str x), 128 = one NEON Q register (ldr/str q;
 * FP/SIMD must be enabled, simd.c checks). The non-temporal kernels store with STNP, the only
 * non-temporal store AArch64 has (a pair: two X or two Q registers per instruction). The 256- and
 * 512-bit widths and rep_stosb/rep_movsb have no AArch64 kernel: their symbols exist for the
 * kernel table and are never called (simd_usable / arch_membw_rep_unavailable say why); should one
 * be called anyway it executes udf, a fault record, never a number. */

	.text

/* Loop skeleton: \body handles 256 bytes at x8 (src) / x9 (dst); x3 counts passes. */
.macro KERNEL name, body
	.global \name
	.type \name, %function
	.balign 32
\name:
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

KERNEL bw_read_64, READ64
KERNEL bw_write_64, WRITE64
KERNEL bw_copy_64, COPY64
KERNEL bw_write_nt_64, WRITE64NT
KERNEL bw_copy_nt_64, COPY64NT
KERNEL bw_read_128, READ128
KERNEL bw_write_128, WRITE128
KERNEL bw_copy_128, COPY128
KERNEL bw_write_nt_128, WRITE128NT
KERNEL bw_copy_nt_128, COPY128NT

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
