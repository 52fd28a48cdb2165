/* The assembly half of the traps unit (traps.c is the C half): exception entry stubs, recovery
 * points and the fault-tolerant MSR accessors (bare metal only; the routines probes call,
 * arch_spin and the deliberate faults, are in probe_ops.S). Everything here is position
 * independent (the UEFI image is relocated at load). */

	.text

/* Vectors where the CPU pushes an error code: 8, 10-14, 17, 21, 29, 30. The others get a 0 pushed
 * so every frame has the same layout (struct trap_frame). */
.macro TRAP_STUB vec
	.align 16
trap_stub_\vec:
	.if (\vec == 8) || ((\vec >= 10) && (\vec <= 14)) || (\vec == 17) || (\vec == 21) || (\vec == 29) || (\vec == 30)
	.else
	pushq $0
	.endif
	pushq $\vec
	jmp trap_common
.endm

.irp v, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31
	TRAP_STUB \v
.endr

/* The CPU aligned RSP to 16 before pushing its 5-word frame; with error and vector (2 words) and the
 * 15 registers below, RSP is 16-byte aligned again at the call, as the SysV ABI requires. */
trap_common:
	cld
	pushq %rax
	pushq %rbx
	pushq %rcx
	pushq %rdx
	pushq %rsi
	pushq %rdi
	pushq %rbp
	pushq %r8
	pushq %r9
	pushq %r10
	pushq %r11
	pushq %r12
	pushq %r13
	pushq %r14
	pushq %r15
	movq %rsp, %rdi
	call x86_trap_handler
	popq %r15
	popq %r14
	popq %r13
	popq %r12
	popq %r11
	popq %r10
	popq %r9
	popq %r8
	popq %rbp
	popq %rdi
	popq %rsi
	popq %rdx
	popq %rcx
	popq %rbx
	popq %rax
	addq $16, %rsp
	iretq

/* Table of stub addresses, as offsets from the table itself (no relocations needed). */
	.section .rodata
	.align 8
	.globl x86_trap_stub_offsets
x86_trap_stub_offsets:
.irp v, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31
	.quad trap_stub_\v - x86_trap_stub_offsets
.endr

/* Exception table: pairs (faulting instruction, fixup), as offsets from the table. */
	.globl x86_extable, x86_extable_entries
x86_extable:
	.quad .Lrdmsr_insn - x86_extable, .Lrdmsr_fixup - x86_extable
	.quad .Lwrmsr_insn - x86_extable, .Lwrmsr_fixup - x86_extable
	.quad .Lrdpmc_insn - x86_extable, .Lrdpmc_fixup - x86_extable
x86_extable_entries:
	.quad 3
	.text

/* int rdmsr_raw(uint32_t msr, uint64_t *value): 0, or -1 after #GP (fixup). */
	.globl rdmsr_raw
rdmsr_raw:
	movl %edi, %ecx
.Lrdmsr_insn:
	rdmsr
	shlq $32, %rdx
	orq %rdx, %rax
	movq %rax, (%rsi)
	xorl %eax, %eax
	ret
.Lrdmsr_fixup:
	movl $-1, %eax
	ret

/* int wrmsr_raw(uint32_t msr, uint64_t value) */
	.globl wrmsr_raw
wrmsr_raw:
	movl %edi, %ecx
	movq %rsi, %rax
	movq %rsi, %rdx
	shrq $32, %rdx
.Lwrmsr_insn:
	wrmsr
	xorl %eax, %eax
	ret
.Lwrmsr_fixup:
	movl $-1, %eax
	ret

/* int rdpmc_raw(uint32_t index, uint64_t *value): 0, or -1 after #GP or #UD (fixup). */
	.globl rdpmc_raw
rdpmc_raw:
	movl %edi, %ecx
.Lrdpmc_insn:
	rdpmc
	shlq $32, %rdx
	orq %rdx, %rax
	movq %rax, (%rsi)
	xorl %eax, %eax
	ret
.Lrdpmc_fixup:
	movl $-1, %eax
	ret

/* int fault_try(struct fault_jmp *j): save callee-saved registers, the caller's RSP and return
 * address; return 0. The trap handler resumes here with RAX = vector + 1. */
	.globl fault_try
fault_try:
	movq %rbx, 0(%rdi)
	movq %rbp, 8(%rdi)
	movq %r12, 16(%rdi)
	movq %r13, 24(%rdi)
	movq %r14, 32(%rdi)
	movq %r15, 40(%rdi)
	leaq 8(%rsp), %rax
	movq %rax, 48(%rdi)
	movq (%rsp), %rax
	movq %rax, 56(%rdi)
	xorl %eax, %eax
	ret

/* void x86_load_segments(uint16_t code_sel, uint16_t data_sel, uint16_t tss_sel) after lgdt. */
	.globl x86_load_segments
x86_load_segments:
	movw %si, %ds
	movw %si, %es
	movw %si, %ss
	movw %si, %fs
	movw %si, %gs
	ltr %dx
	popq %rax		/* return address */
	pushq %rdi		/* new CS */
	pushq %rax
	lretq

	.section .note.GNU-stack, "", @progbits
