/* Pointer chains (see chain.h). */
#include "bench/probes/mem/chain.h"

static uint64_t *node_at(void *buf, size_t i, size_t line)
{
	return (uint64_t *)((uint8_t *)buf + i * line);
}

void *chain_build_random(void *buf, size_t nodes, size_t line, struct rand_state *rng)
{
	size_t i;

	/* Sattolo: a[] starts as the identity and is shuffled with j < i strictly, which yields a
	 * single cycle. a[i] lives in node i itself, so no side array is needed. */
	for (i = 0; i < nodes; i++)
		*node_at(buf, i, line) = i;
	for (i = nodes; i-- > 1;) {
		size_t j = (size_t)rand_below(rng, i);
		uint64_t t = *node_at(buf, i, line);

		*node_at(buf, i, line) = *node_at(buf, j, line);
		*node_at(buf, j, line) = t;
	}
	for (i = 0; i < nodes; i++)
		*node_at(buf, i, line) = (uint64_t)(uintptr_t)node_at(buf, (size_t)*node_at(buf, i, line), line);
	return buf;
}

void *chain_build_stride(void *buf, size_t nodes, size_t line)
{
	for (size_t i = 0; i < nodes; i++)
		*node_at(buf, i, line) = (uint64_t)(uintptr_t)node_at(buf, (i + 1) % nodes, line);
	return buf;
}

void chain_link_reverse(void *head, size_t nodes)
{
	uint8_t *p = head;

	for (size_t i = 0; i < nodes; i++) {
		uint8_t *next = (uint8_t *)(uintptr_t)*(uint64_t *)p;

		*(uint64_t *)(next + CHAIN_REV_OFFSET) = (uint64_t)(uintptr_t)(p + CHAIN_REV_OFFSET);
		p = next;
	}
}

void *chain_reverse_start(const void *next)
{
	return (void *)(uintptr_t)*(const uint64_t *)((const uint8_t *)next + CHAIN_REV_OFFSET);
}

size_t chain_cycle_length(void *head, void *buf, size_t nodes, size_t line)
{
	uintptr_t lo = (uintptr_t)buf, hi = lo + nodes * line;
	uint64_t *p = head;
	size_t steps = 0;

	do {
		uintptr_t next = (uintptr_t)*p;

		if (next < lo || next >= hi || (next - lo) % line)
			return 0;
		p = (uint64_t *)next;
		steps++;
	} while (p != head && steps <= nodes);
	return p == head ? steps : 0;
}
