/* AArch64 I-cache chain instruction words (see icache_gen.h). Encodings: Arm ARM C6.2 (B, RET,
 * UDF). */
#include "arch/aarch64/icache_gen.h"

#define MIN_LINE 16
#define MAX_PAIR_LINES (1u << 31) /* the uint32_t line indices */

uint32_t a64_enc_b(int64_t offset)
{
	return A64_INSN_B | ((uint32_t)(offset / A64_INSN_BYTES) & A64_B_IMM26_MASK);
}

static bool geometry_ok(size_t size, size_t line)
{
	return line >= MIN_LINE && line % A64_INSN_BYTES == 0 && size >= line && size % line == 0 &&
	       size < (size_t)A64_B_REACH;
}

static void fill_udf(uint32_t *code, size_t size)
{
	for (size_t i = 0; i < size / A64_INSN_BYTES; i++)
		code[i] = A64_INSN_UDF;
}

bool a64_chain_write(uint32_t *code, size_t size, size_t line)
{
	size_t lines, words = line / A64_INSN_BYTES;

	if (!code || !geometry_ok(size, line))
		return false;
	lines = size / line;
	fill_udf(code, size);
	for (size_t i = 0; i < lines; i++)
		code[i * words] = i + 1 < lines ? a64_enc_b((int64_t)line) : A64_INSN_RET;
	return true;
}

/* A branch from byte offset `from` to `to`, or a return when from == to. */
static void put_branch(uint32_t *code, size_t from, size_t to)
{
	code[from / A64_INSN_BYTES] = from == to ? A64_INSN_RET : a64_enc_b((int64_t)to - (int64_t)from);
}

bool a64_chain_write_pair(uint32_t *code, size_t size, size_t line, size_t rev_offset, const uint32_t *order,
			  size_t *fwd, size_t *rev)
{
	size_t lines;

	if (!code || !geometry_ok(size, line) || rev_offset % A64_INSN_BYTES || rev_offset == 0 ||
	    rev_offset + A64_INSN_BYTES > line || size / line >= MAX_PAIR_LINES)
		return false;
	lines = size / line;
	for (size_t i = 0; order && i < lines; i++)
		if (order[i] >= lines)
			return false;
	fill_udf(code, size);
	for (size_t i = 0; i < lines; i++) {
		size_t cur = order ? order[i] : i;
		size_t next = i + 1 < lines ? (order ? order[i + 1] : i + 1) : cur;
		size_t prev = i ? (order ? order[i - 1] : i - 1) : cur;

		put_branch(code, cur * line, next * line);
		put_branch(code, cur * line + rev_offset, prev * line + rev_offset);
	}
	*fwd = (order ? order[0] : 0) * line;
	*rev = (order ? order[lines - 1] : lines - 1) * line + rev_offset;
	return true;
}
