/* The core clock and its load reference beside a sample set (see core_clock.h). */
/* OPT_SMALL: -Os (Makefile): the windows time a call into arch_spin (assembly): the C around it is outside them. */
#include "bench/core/core_clock.h"

#include "arch/cycles.h"
#include "lib/sort.h"

/* The load reference's line: read-only, so every core (membw_mc) holds it in its own L1 with no
 * coherence traffic; a line of its own so no store nearby evicts or invalidates it. */
static const uint64_t ref_line[8] __attribute__((aligned(64))) = { 0 };

void core_clock_take(struct core_clock *cc)
{
	(void)arch_add_chain(CORE_CLOCK_ITERS); /* warm-up: the chain's code and its branch */
	(void)arch_load_burst(ref_line, CORE_REF_ITERS); /* and the reference's code and line */
	for (unsigned i = 0; i < CORE_CLOCK_REPS && cc->n < CORE_CLOCK_N; i++) {
		uint64_t t0 = cycles_begin(), t1;

		(void)arch_add_chain(CORE_CLOCK_ITERS);
		t1 = cycles_end();
		cc->ticks[cc->n] = t1 - t0;
		/* right after its chain: the two see the same moment of a sibling's work */
		t0 = cycles_begin();
		(void)arch_load_burst(ref_line, CORE_REF_ITERS);
		cc->ref_ticks[cc->n++] = cycles_end() - t0;
	}
}

void core_clock_spread(uint64_t *ticks, unsigned n, uint64_t out[3])
{
	sort_u64(ticks, n);
	out[0] = n ? ticks[0] : 0;
	out[1] = n ? ticks[(n - 1) / 2] : 0;
	out[2] = n ? ticks[n - 1] : 0;
}

void core_clock_emit(struct record *r, struct core_clock *cc)
{
	uint64_t t[3];

	core_clock_spread(cc->ticks, cc->n, t);
	rec_str(r, "core_clock", "add_chain");
	rec_u64(r, "core_clock_cycles", (uint64_t)CORE_CLOCK_ITERS * ARCH_ADD_CHAIN_LEN);
	rec_u64(r, "core_clock_ticks_lo", t[0]);
	rec_u64(r, "core_clock_ticks_med", t[1]);
	rec_u64(r, "core_clock_ticks_hi", t[2]);
	core_clock_spread(cc->ref_ticks, cc->n, t);
	rec_str(r, "core_ref", "load_burst");
	rec_u64(r, "core_ref_ops", (uint64_t)CORE_REF_ITERS * ARCH_LOAD_BURST_LEN);
	rec_u64(r, "core_ref_ticks_lo", t[0]);
	rec_u64(r, "core_ref_ticks_med", t[1]);
	rec_u64(r, "core_ref_ticks_hi", t[2]);
}
