/* The assembly half of the simd unit (simd.c is the C half): the SVE vector-length read, which
 * needs the SVE extension the C compiler is not given (the firmware is built without vector
 * code). Called by aarch64_sve_enable once SVE is enabled. */

	.text
	.arch_extension sve

/* uint64_t arch_sve_vl_bytes(void): the current vector length (SVE enabled). */
	.global arch_sve_vl_bytes
	.type arch_sve_vl_bytes, %function
arch_sve_vl_bytes:
	rdvl	x0, #1
	ret
	.size arch_sve_vl_bytes, . - arch_sve_vl_bytes

	.section .note.GNU-stack, "", %progbits
