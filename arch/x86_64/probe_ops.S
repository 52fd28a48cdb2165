/* Small routines the probes call, in assembly so no compiler can reshape them: the calibrated spin
 * loop and the deliberate faults of the fault test probes. No privileged instructions: shared by
 * the UEFI build and the hosted (Linux) build. */

	.text

/* void arch_spin(uint64_t iterations): exactly 2 instructions per iteration (dec; jnz). */
	.globl arch_spin
arch_spin:
	testq %rdi, %rdi
	jz 2f
1:	decq %rdi
	jnz 1b
2:	ret

/* void arch_provoke_ud2(void): #UD. */
	.globl arch_provoke_ud2
arch_provoke_ud2:
	ud2
	ret

/* uint64_t arch_provoke_noncanonical(void): #GP (a load from a non-canonical address). */
	.globl arch_provoke_noncanonical
arch_provoke_noncanonical:
	movabsq $0x8000000000000000, %rax
	movq (%rax), %rax
	ret

	.section .note.GNU-stack, "", @progbits
