/* x86_64 jump chain generators: the forward chain and the forward/reverse pair (see arch/icache.h). */
/* OPT_FAST: -O2 (Makefile): timed window or what runs inside one. */
#include "arch/icache.h"

#include <stdint.h>

#define OP_JMP_REL32 0xE9
#define OP_RET 0xC3
#define OP_INT3 0xCC /* filler: a stray jump into it traps instead of running on */
#define JMP_REL32_LEN 5
#define MIN_LINE 16
#define MAX_PAIR_LINES (1u << 31) /* rel32 reach and the uint32_t line indices */

icache_chain_fn icache_chain_build(void *code, size_t size, size_t line)
{
	uint8_t *p = code;
	size_t lines, i, k;

	if (!code || line < MIN_LINE || size < line || size % line)
		return 0;
	lines = size / line;
	for (i = 0; i < lines; i++) {
		uint8_t *l = p + i * line;

		for (k = 0; k < line; k++)
			l[k] = OP_INT3;
		if (i + 1 < lines) {
			/* rel32 is relative to the end of the jump instruction. */
			int32_t rel = (int32_t)(line - JMP_REL32_LEN);

			l[0] = OP_JMP_REL32;
			l[1] = (uint8_t)rel;
			l[2] = (uint8_t)(rel >> 8);
			l[3] = (uint8_t)(rel >> 16);
			l[4] = (uint8_t)(rel >> 24);
		} else {
			l[0] = OP_RET;
		}
	}
	/* Same CPU, same linear address: the indirect call that runs it is enough to serialise the
	 * instruction fetch after these stores (SDM vol. 3, 8.1.3). */
	return (icache_chain_fn)(uintptr_t)code;
}

/* A jump from code offset `from` to `to`, or a return when from == to. */
static void put_jump(uint8_t *code, size_t from, size_t to)
{
	uint8_t *l = code + from;
	int32_t rel = (int32_t)((int64_t)to - (int64_t)(from + JMP_REL32_LEN));

	if (from == to) {
		l[0] = OP_RET;
		return;
	}
	l[0] = OP_JMP_REL32;
	l[1] = (uint8_t)rel;
	l[2] = (uint8_t)(rel >> 8);
	l[3] = (uint8_t)(rel >> 16);
	l[4] = (uint8_t)(rel >> 24);
}

bool icache_chain_build_pair(void *code, size_t size, size_t line, const uint32_t *order,
			     icache_chain_fn *fwd, icache_chain_fn *rev)
{
	uint8_t *p = code;
	size_t lines, i;

	if (!code || line < MIN_LINE || line < ICACHE_REV_OFFSET + JMP_REL32_LEN || size < line ||
	    size % line || size / line >= MAX_PAIR_LINES)
		return false;
	lines = size / line;
	for (i = 0; order && i < lines; i++)
		if (order[i] >= lines)
			return false;
	for (i = 0; i < size; i++)
		p[i] = OP_INT3;
	for (i = 0; i < lines; i++) {
		size_t cur = order ? order[i] : i;
		size_t next = i + 1 < lines ? (order ? order[i + 1] : i + 1) : cur;
		size_t prev = i ? (order ? order[i - 1] : i - 1) : cur;

		put_jump(p, cur * line, next * line);                                     /* forward */
		put_jump(p, cur * line + ICACHE_REV_OFFSET, prev * line + ICACHE_REV_OFFSET); /* reverse */
	}
	*fwd = (icache_chain_fn)(uintptr_t)(p + (order ? order[0] : 0) * line);
	*rev = (icache_chain_fn)(uintptr_t)(p + (order ? order[lines - 1] : lines - 1) * line + ICACHE_REV_OFFSET);
	return true; /* the indirect calls that run them serialise the fetch (see above) */
}
