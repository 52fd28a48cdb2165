/* Small routines the probes call, in assembly so no compiler can reshape them: the calibrated spin
 * loop, the core clock's add chain and load reference, and the deliberate faults of the fault test
 * probes. No privileged instructions: shared by
 * the UEFI build and the hosted (Linux) build. */

	.text

/* A function `name`(uint64_t iterations) that loops exactly 2 instructions per iteration (dec; jnz). */
.macro SPIN_LOOP name
	.globl \name
	.type \name, @function
\name:
	testq %rdi, %rdi
	jz 2f
1:	decq %rdi
	jnz 1b
2:	ret
	.size \name, . - \name	/* the profiler's symbol ranges end here, not at the padding */
.endm

/* void arch_spin(uint64_t iterations) */
	SPIN_LOOP arch_spin

/* uint64_t arch_add_chain(uint64_t iterations): ARCH_ADD_CHAIN_LEN (16) dependent register adds
 * per iteration, each waiting for the last (add r64, r64 has 1 cycle latency on every x86 core of
 * interest: Agner Fog, instruction tables). Register + register on purpose: some renamers fold
 * an add of an immediate. The loop's dec/jnz runs beside the chain on another ALU. */
	.globl arch_add_chain
	.type arch_add_chain, @function
arch_add_chain:
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
	.size arch_add_chain, . - arch_add_chain

/* uint64_t arch_load_burst(const void *line, uint64_t iterations): ARCH_LOAD_BURST_LEN (16)
 * independent 8-byte loads per iteration from one 64-byte line (an L1 hit each), into two
 * registers in turn: no load waits for another (the renamer gives each write its own register),
 * so the loop runs at the core's load ports' rate, not at a latency. The core clock's throughput
 * reference (bench/core/core_clock.h): a dependent add chain keeps its 1 add per cycle when
 * another hardware thread shares the core; these loads lose the ports that thread takes.
 * Returns the last value loaded. */
	.globl arch_load_burst
	.type arch_load_burst, @function
arch_load_burst:
	xorl %eax, %eax
	testq %rsi, %rsi
	jz 2f
1:	.irp off, 0, 8, 16, 24, 32, 40, 48, 56
	movq \off(%rdi), %rax
	movq \off(%rdi), %rcx
	.endr
	decq %rsi
	jnz 1b
2:	ret
	.size arch_load_burst, . - arch_load_burst

/* void arch_split_a(uint64_t), arch_split_b(uint64_t): the profiler's known split. The same
 * 2-instruction loop as arch_spin in two functions of their own, each on its own 64-byte line,
 * so a caller that gives them 3:7 of the iterations spends 30% / 70% of those instructions (and,
 * with identical bodies, of the time) in each; the profile must find that split. */
	.balign 64
	SPIN_LOOP arch_split_a
	.balign 64
	SPIN_LOOP arch_split_b

/* void arch_provoke_undefined(void): #UD. */
	.globl arch_provoke_undefined
arch_provoke_undefined:
	ud2
	ret

/* uint64_t arch_provoke_bad_address(void): #GP (a load from a non-canonical address). */
	.globl arch_provoke_bad_address
arch_provoke_bad_address:
	movabsq $0x8000000000000000, %rax
	movq (%rax), %rax
	ret

	.section .note.GNU-stack, "", @progbits
