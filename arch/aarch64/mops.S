/* FEAT_MOPS bandwidth kernels (Armv8.8: the memory copy and memory set instructions), in the
 * style of membw.S: (x0 = dst, x1 = src, x2 = bytes per pass, x3 = passes >= 1), the buffer
 * walked from the lowest address up. Each pass is one architected prologue/main/epilogue triple
 * over the whole buffer — the CPU picks its own block size and alignment handling:
 *   bw_write_mops: SETP/SETM/SETE [x9]!, x10!, x11   (x11 = 0: the byte stored)
 *   bw_copy_mops:  CPYP/CPYM/CPYE [x9]!, [x8]!, x10!  (copy, forward or backward as it sees fit)
 * The instructions are written as .inst words (MOPS_* macros below, from the Arm ARM's encodings:
 * sz 011 o0 01 op1 0 Rs op2 01 Rn Rd) so any assembler builds them; tests/python/
 * test_a64_kernels_disasm.py checks the words decode to the instructions named here. Called only
 * when ID_AA64ISAR2_EL1.MOPS says they exist and a64_mops_probe did not fault (simd.c).
 *
 * a64_mops_probe(dst, bytes, value) runs one SETP/SETM/SETE with the operands in x0/x1/x2 and
 * returns 0; its SETP is its first instruction, so a fault there (MOPS UNDEFINED at EL1, e.g.
 * HCRX_EL2.MSCEn = 0 under a hypervisor) is turned by the vectors into a return with the ESR,
 * like a guarded system-register access (sysreg_safe.h). */

/* Register numbers as operands of the .inst words. */
#define R_DST 9
#define R_SRC 8
#define R_CNT 10
#define R_VAL 11

/* SET* (sz=00, o0=0, op1=11): 0x19C00400 | Rs << 16 | op2 << 12 | Rn << 5 | Rd. */
#define SET_BASE 0x19C00400
#define OP2_P 0x0
#define OP2_M 0x4
#define OP2_E 0x8
/* CPY* (sz=00, o0=1, op2=0000): 0x1D000400 | op1 << 22 | Rs << 16 | Rn << 5 | Rd. */
#define CPY_BASE 0x1D000400
#define OP1_P 0x0
#define OP1_M 0x1
#define OP1_E 0x2

.macro MOPS_SET op2, rd, rn, rs
	.inst	SET_BASE | (\rs << 16) | (\op2 << 12) | (\rn << 5) | \rd
.endm
.macro MOPS_CPY op1, rd, rs, rn
	.inst	CPY_BASE | (\op1 << 22) | (\rs << 16) | (\rn << 5) | \rd
.endm

	.text

	.global bw_write_mops
	.type bw_write_mops, %function
	.balign 32
bw_write_mops:
	mov	x11, #0
1:	mov	x9, x0
	mov	x10, x2
	MOPS_SET OP2_P, R_DST, R_CNT, R_VAL /* setp [x9]!, x10!, x11 */
	MOPS_SET OP2_M, R_DST, R_CNT, R_VAL /* setm [x9]!, x10!, x11 */
	MOPS_SET OP2_E, R_DST, R_CNT, R_VAL /* sete [x9]!, x10!, x11 */
	subs	x3, x3, #1
	b.ne	1b
	ret
	.size bw_write_mops, . - bw_write_mops

	.global bw_copy_mops
	.type bw_copy_mops, %function
	.balign 32
bw_copy_mops:
1:	mov	x9, x0
	mov	x8, x1
	mov	x10, x2
	MOPS_CPY OP1_P, R_DST, R_SRC, R_CNT /* cpyp [x9]!, [x8]!, x10! */
	MOPS_CPY OP1_M, R_DST, R_SRC, R_CNT /* cpym [x9]!, [x8]!, x10! */
	MOPS_CPY OP1_E, R_DST, R_SRC, R_CNT /* cpye [x9]!, [x8]!, x10! */
	subs	x3, x3, #1
	b.ne	1b
	ret
	.size bw_copy_mops, . - bw_copy_mops

/* uint64_t a64_mops_probe(void *dst, uint64_t bytes, uint64_t value): 0, or the fault result. */
	.global a64_mops_probe
	.type a64_mops_probe, %function
	.balign 16
a64_mops_probe:
	MOPS_SET OP2_P, 0, 1, 2 /* setp [x0]!, x1!, x2: the access the vectors recognise */
	MOPS_SET OP2_M, 0, 1, 2
	MOPS_SET OP2_E, 0, 1, 2
	mov	x0, #0
	ret
	.size a64_mops_probe, . - a64_mops_probe
	.global a64_mops_probe_end
a64_mops_probe_end:

	.section .note.GNU-stack, "", %progbits
