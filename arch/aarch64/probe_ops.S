/* Known work for the runner: arch_spin(iterations) executes exactly 2 instructions per iteration
 * (subs; b.ne), in assembly so the compiler cannot reshape it; 0 iterations return at once. */
	.text
	.global arch_spin
	.type arch_spin, %function
	.balign 16
arch_spin:
	cbz	x0, 2f
1:	subs	x0, x0, #1
	b.ne	1b
2:	ret
	.size arch_spin, . - arch_spin

	.section .note.GNU-stack, "", %progbits
