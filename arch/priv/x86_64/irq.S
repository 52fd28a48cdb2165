/* The assembly half of the irq unit (irq.c is the C half): interrupt entry stubs for vectors
 * 32-255 (bare metal only; see irq.h). Each stub is 16 bytes apart from the next
 * (x86_irq_stubs + 16 * (vector - 32)); it saves RAX and RDX and reads the TSC before anything
 * else, so the handler's entry time is taken at its third instruction. Position independent (the
 * UEFI image is relocated at load). */

	.text

.macro IRQ_STUB vec
	.balign 16
	pushq %rax
	pushq %rdx
	rdtsc
	pushq $\vec
	jmp irq_common
.endm

	.balign 16
	.globl x86_irq_stubs
x86_irq_stubs:
	.altmacro
	.set vec, 32
	.rept 224
	IRQ_STUB %vec
	.set vec, vec + 1
	.endr
	.noaltmacro

/* Stack on arrival: vector, RDX, RAX, then the CPU's frame (RIP, CS, RFLAGS, RSP, SS). The CPU
 * aligned RSP to 16 before its 5 words; with our 3 and the 7 registers below plus 8 bytes of
 * padding the call is made with RSP 16-byte aligned. */
irq_common:
	shlq $32, %rdx
	orq %rdx, %rax			/* entry TSC */
	pushq %rcx
	pushq %rsi
	pushq %rdi
	pushq %r8
	pushq %r9
	pushq %r10
	pushq %r11
	subq $8, %rsp
	cld
	movq 64(%rsp), %rdi		/* vector */
	movq %rax, %rsi			/* entry TSC */
	leaq 88(%rsp), %rdx		/* the CPU's frame: interrupted RIP first */
	call x86_irq_dispatch
	addq $8, %rsp
	popq %r11
	popq %r10
	popq %r9
	popq %r8
	popq %rdi
	popq %rsi
	popq %rcx
	rdtsc
	shlq $32, %rdx
	orq %rdx, %rax
	movq %rax, x86_irq_exit_cycles(%rip)
	addq $8, %rsp			/* vector */
	popq %rdx
	popq %rax
	iretq

	.bss
	.balign 8
	.globl x86_irq_exit_cycles
x86_irq_exit_cycles:
	.quad 0

	.section .note.GNU-stack, "", @progbits
