/* Known work and deliberate faults for the probes, in assembly so the compiler cannot reshape
 * them:
 * - arch_spin(iterations): exactly 2 instructions per iteration (subs; b.ne); 0 returns at once;
 * - arch_split_a/b(iterations): the same loop, the profiler's known split;
 * - arch_provoke_undefined(): udf #0, an undefined instruction (ESR EC 0x00);
 * - arch_provoke_bad_address(): a load from UNMAPPED_VA, the last page of the 48-bit lower range,
 *   which the firmware's identity map does not cover: a data abort (EC 0x25) with FAR = it. */
#define UNMAPPED_VA_HI16 0x0000   /* bits 63:48 */
#define UNMAPPED_VA_MID 0xFFFF    /* bits 47:32 */
#define UNMAPPED_VA_LO 0xFFFF     /* bits 31:16; bits 15:0 are 0xF000 */

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

/* uint64_t arch_add_chain(iterations): ARCH_ADD_CHAIN_LEN (16) dependent register adds per
 * iteration (add x, x, x: 1 cycle latency on the Neoverse and Cortex-A cores, per their software
 * optimization guides); subs / b.ne run beside the chain. */
	.global arch_add_chain
	.type arch_add_chain, %function
	.balign 16
arch_add_chain:
	mov	x2, #0
	mov	x1, #1
	cbz	x0, 2f
1:	.rept 16
	add	x2, x2, x1
	.endr
	subs	x0, x0, #1
	b.ne	1b
2:	mov	x0, x2
	ret
	.size arch_add_chain, . - arch_add_chain

/* uint64_t arch_load_burst(line, iterations): ARCH_LOAD_BURST_LEN (16) independent 8-byte loads
 * per iteration from one 64-byte line (L1 hits), into two registers in turn: no load waits for
 * another, so the loop runs at the load pipes' rate. The core clock's throughput reference
 * (bench/core/core_clock.h): it slows when another hardware thread takes the load pipes, where
 * the dependent add chain does not. Returns the last value loaded. */
	.global arch_load_burst
	.type arch_load_burst, %function
	.balign 16
arch_load_burst:
	mov	x2, #0
	cbz	x1, 2f
1:	.irp off, 0, 8, 16, 24, 32, 40, 48, 56
	ldr	x2, [x0, #\off]
	ldr	x3, [x0, #\off]
	.endr
	subs	x1, x1, #1
	b.ne	1b
2:	mov	x0, x2
	ret
	.size arch_load_burst, . - arch_load_burst

/* void arch_split_a(uint64_t), arch_split_b(uint64_t): the profiler's known split (bench/
 * bench/profile/split.c), the same loop as arch_spin in two functions of their own. */
	.global arch_split_a
	.type arch_split_a, %function
	.balign 16
arch_split_a:
	cbz	x0, 2f
1:	subs	x0, x0, #1
	b.ne	1b
2:	ret
	.size arch_split_a, . - arch_split_a

	.global arch_split_b
	.type arch_split_b, %function
	.balign 16
arch_split_b:
	cbz	x0, 2f
1:	subs	x0, x0, #1
	b.ne	1b
2:	ret
	.size arch_split_b, . - arch_split_b

	.global arch_provoke_undefined
	.type arch_provoke_undefined, %function
arch_provoke_undefined:
	udf	#0
	ret
	.size arch_provoke_undefined, . - arch_provoke_undefined

	.global arch_provoke_bad_address
	.type arch_provoke_bad_address, %function
arch_provoke_bad_address:
	movz	x0, #0xF000
	movk	x0, #UNMAPPED_VA_LO, lsl #16
	movk	x0, #UNMAPPED_VA_MID, lsl #32
	movk	x0, #UNMAPPED_VA_HI16, lsl #48
	ldr	x0, [x0]
	ret
	.size arch_provoke_bad_address, . - arch_provoke_bad_address

	.section .note.GNU-stack, "", %progbits
