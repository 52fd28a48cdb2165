/* AArch64 instruction words for the I-cache fill chain (arch/icache.h), as pure functions so the
 * unit tests check the encodings on any host: an unconditional `b` at the start of every line to
 * the next one, a `ret` at the end, `udf #0` everywhere else (a stray branch into the filler
 * faults instead of running on). icache_chain.c writes them into executable memory and makes the
 * instruction fetch see them (DC CVAU / IC IVAU per CTR_EL0). */
#ifndef ARCH_AARCH64_ICACHE_GEN_H
#define ARCH_AARCH64_ICACHE_GEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define A64_INSN_BYTES 4
#define A64_INSN_B 0x14000000u       /* B <label>: imm26 = offset / 4 in bits 25:0 */
#define A64_B_IMM26_MASK 0x03FFFFFFu
#define A64_B_REACH (128ll << 20)    /* +-128 MiB */
#define A64_INSN_RET 0xD65F03C0u     /* RET (x30) */
#define A64_INSN_UDF 0x00000000u     /* UDF #0 */

/* B from one instruction to another `offset` bytes away (a multiple of 4 within the reach). */
uint32_t a64_enc_b(int64_t offset);

/* The forward chain over code[0..size) (size a multiple of line, line >= 16 and a multiple of 4,
 * the whole span within a branch's reach); false when the geometry does not allow it. */
bool a64_chain_write(uint32_t *code, size_t size, size_t line);

/* The forward/reverse pair of arch/icache.h: forward branches at offset 0 of each line, reverse
 * ones at rev_offset; *fwd / *rev get the byte offsets of the two entries. */
bool a64_chain_write_pair(uint32_t *code, size_t size, size_t line, size_t rev_offset, const uint32_t *order,
			  size_t *fwd, size_t *rev);

#endif
