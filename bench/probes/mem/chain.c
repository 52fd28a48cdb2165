/* Pointer chains (see chain.h). */
#include "bench/probes/mem/chain.h"

static uint64_t *node_at(void *buf, size_t i, size_t line)
{
	return (uint64_t *)((uint8_t *)buf + i * line);
}

/* Sattolo: a[] starts as the identity and is shuffled with j < i strictly, which yields a single
 * cycle. a[i] lives in node i itself, so no side array is needed. For one-word nodes. */
static void build_sattolo(void *buf, size_t nodes, size_t line, struct rand_state *rng)
{
	size_t i;

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
}

/* The k-th node of the visiting order, kept in node k's second word (CHAIN_ORDER_OFFSET). */
static uint64_t *order_at(void *buf, size_t k, size_t line)
{
	return node_at(buf, k, line) + CHAIN_ORDER_OFFSET / sizeof(uint64_t);
}

/* A uniformly random visiting order (Fisher-Yates), each node linked to the next in it and the last
 * to the first: one cycle through every node by construction, the same distribution as Sattolo's.
 * The order stays in the nodes for chain_check_order, whose accesses, like these, do not depend
 * on each other. */
static void build_in_order(void *buf, size_t nodes, size_t line, struct rand_state *rng)
{
	size_t k;

	for (k = 0; k < nodes; k++)
		*order_at(buf, k, line) = k;
	for (k = nodes; k-- > 1;) {
		size_t j = (size_t)rand_below(rng, k + 1);
		uint64_t t = *order_at(buf, k, line);

		*order_at(buf, k, line) = *order_at(buf, j, line);
		*order_at(buf, j, line) = t;
	}
	for (k = 0; k < nodes; k++)
		*node_at(buf, (size_t)*order_at(buf, k, line), line) =
			(uint64_t)(uintptr_t)node_at(buf, (size_t)*order_at(buf, k + 1 < nodes ? k + 1 : 0, line), line);
}

/* Whether a node of `line` bytes has the second word that keeps the visiting order. */
static bool has_order_word(size_t line)
{
	return line >= CHAIN_ORDER_OFFSET + sizeof(uint64_t);
}

void *chain_build_random(void *buf, size_t nodes, size_t line, struct rand_state *rng)
{
	if (has_order_word(line))
		build_in_order(buf, nodes, line, rng);
	else
		build_sattolo(buf, nodes, line, rng);
	return buf;
}

bool chain_check_order(void *buf, size_t nodes, size_t line)
{
	const uint64_t mark = 1; /* links are line-aligned: bit 0 is free */
	bool ok = true;
	size_t k;

	for (k = 0; k < nodes && ok; k++) {
		uint64_t a = *order_at(buf, k, line), b = *order_at(buf, k + 1 < nodes ? k + 1 : 0, line), *node;

		if (a >= nodes || b >= nodes) {
			ok = false; /* an order entry outside the buffer */
			break;
		}
		node = node_at(buf, (size_t)a, line);
		/* a node met twice in the order (then another never) or a link not to the next */
		ok = !(*node & mark) && *node == (uint64_t)(uintptr_t)node_at(buf, (size_t)b, line);
		*node |= mark;
	}
	for (k = 0; k < nodes; k++) { /* n distinct nodes of n marked: every one; unmark */
		ok = ok && (*node_at(buf, k, line) & mark);
		*node_at(buf, k, line) &= ~mark;
	}
	return ok;
}

void *chain_build_random_checked(void *buf, size_t nodes, size_t line, struct rand_state *rng)
{
	chain_build_random(buf, nodes, line, rng);
	if (has_order_word(line))
		return chain_check_order(buf, nodes, line) ? buf : 0;
	return chain_cycle_length(buf, buf, nodes, line) == nodes ? buf : 0;
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
