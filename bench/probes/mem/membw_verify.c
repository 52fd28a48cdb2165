/* Known-answer check of the architecture bandwidth kernels (see membw_verify.h). */
#include "bench/probes/mem/membw_verify.h"

#include "lib/emit.h"

#define VERIFY_BYTES (4096 + 3 * MEMBW_BLOCK) /* not a multiple of 4 vectors of 2048-bit SVE: the tail runs */
#define FILL_A 0xA5
#define FILL_B 0x5A
#define SRC_BASE 0x10 /* source bytes 0x10..0x4F: never a fill byte */
#define SRC_SPAN 64

static uint64_t round_up(uint64_t v, uint64_t g)
{
	return (v + g - 1) / g * g;
}

/* Fill dst[0..span) with `fill`, run one pass over [guard, guard + bytes), count the bad bytes.
 * A store kernel's region is judged over both runs: the first marks in seen[] the bytes that
 * showed its fill, the second counts those that show its (different) fill again. */
static uint64_t one_run(const struct membw_arch_kernel *k, uint8_t *dst, const uint8_t *src, uint64_t guard,
			uint64_t bytes, uint8_t fill, uint8_t *seen, bool second)
{
	uint64_t span = bytes + 2 * guard, bad = 0;

	for (uint64_t i = 0; i < span; i++)
		dst[i] = fill;
	k->fn(dst + guard, src + guard, bytes, 1);
	for (uint64_t i = 0; i < span; i++) {
		bool inside = i >= guard && i < guard + bytes;
		uint8_t v = dst[i];

		if (!inside || !k->writes)
			bad += v != fill; /* guards, and everything for a load kernel, stay untouched */
		else if (k->reads)
			bad += v != src[i]; /* a copy */
		else if (!second)
			seen[i - guard] = v == fill;
		else
			bad += seen[i - guard] && v == fill; /* the fill both times: never written */
	}
	return bad;
}

bool membw_verify_kernel(const struct membw_arch_kernel *k, uint8_t *dst, uint8_t *src, uint64_t cap)
{
	uint64_t g = k->granule > MEMBW_BLOCK ? k->granule : MEMBW_BLOCK;
	uint64_t bytes = round_up(VERIFY_BYTES, g), span = bytes + 2 * g, bad;
	/* A block kernel (DC ZVA) needs its region aligned to the block; the probe's dst is skewed
	 * by a line from a page (mem_buffers.c), so a block over 64 bytes is not: align it here. */
	uint64_t skew = round_up((uint64_t)(uintptr_t)dst, g) - (uint64_t)(uintptr_t)dst;
	uint8_t *seen;
	struct record *r;

	/* the store kernels' marks live past the region in src (which they do not read) */
	if (span + bytes > cap || skew + span > cap)
		return false;
	dst += skew;
	seen = src + span;
	for (uint64_t i = 0; i < span; i++)
		src[i] = (uint8_t)(SRC_BASE + i % SRC_SPAN);
	bad = one_run(k, dst, src, g, bytes, FILL_A, seen, false);
	bad += one_run(k, dst, src, g, bytes, FILL_B, seen, true);
	r = emit_start("check");
	rec_str(r, "name", "membw_kernel_exact");
	rec_str(r, "probe", "membw");
	rec_u64(r, "expected", 0);
	rec_u64(r, "measured", bad);
	rec_str(r, "kernel", k->name);
	rec_str(r, "width", k->width);
	rec_u64(r, "bytes", bytes);
	rec_u64(r, "guard", g);
	rec_str(r, "status", bad ? "fail" : "pass");
	emit_finish();
	return bad == 0;
}
