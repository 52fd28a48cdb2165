/* x86_64 forward-jump chain generator (see arch/icache.h). */
#include "arch/icache.h"

#include <stdint.h>

#define OP_JMP_REL32 0xE9
#define OP_RET 0xC3
#define OP_INT3 0xCC /* filler: a stray jump into it traps instead of running on */
#define JMP_REL32_LEN 5
#define MIN_LINE 16

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
