/* void *arch_chase(void *p, uint64_t loads): follow a pointer chain `loads` times (8 dependent
 * loads per loop iteration, then the remainder) and return where it stopped, so nothing can be
 * elided. The pointer-chase loop of arch/membw.h for the latency probe; the bandwidth kernels of
 * that header are not ported to AArch64 yet. */
	.text
	.global arch_chase
	.type arch_chase, %function
	.balign 32
arch_chase:
	lsr	x2, x1, #3
	and	x1, x1, #7
	cbz	x2, 2f
1:	ldr	x0, [x0]
	ldr	x0, [x0]
	ldr	x0, [x0]
	ldr	x0, [x0]
	ldr	x0, [x0]
	ldr	x0, [x0]
	ldr	x0, [x0]
	ldr	x0, [x0]
	subs	x2, x2, #1
	b.ne	1b
2:	cbz	x1, 4f
3:	ldr	x0, [x0]
	subs	x1, x1, #1
	b.ne	3b
4:	ret
	.size arch_chase, . - arch_chase

	.section .note.GNU-stack, "", %progbits
