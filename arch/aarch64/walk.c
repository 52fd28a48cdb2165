/* Stage-1 table walk (see walk.h; Arm ARM D8 "The VMSAv8-64 address translation system"). */
#include "arch/aarch64/walk.h"

#define TCR_T0SZ_MASK 0x3Fu
#define TCR_EPD0 (1ull << 7)
#define TCR_TG0_SHIFT 14
#define TCR_TG0_MASK 3u
#define TG0_4K 0
#define TG0_64K 1
#define TG0_16K 2
#define DESC_VALID 1ull
#define DESC_TYPE_MASK 3ull
#define DESC_TABLE_OR_PAGE 3ull
#define DESC_BLOCK 1ull
#define DESC_OA_MASK 0x0000FFFFFFFFF000ull /* bits 47:12; the granule clears the low ones */
#define DESC_ATTRINDX_SHIFT 2
#define DESC_ATTRINDX_MASK 7u
#define TTBR_BADDR_MASK 0x0000FFFFFFFFFFFEull
#define DESC_BYTES 8
#define LAST_LEVEL 3

static unsigned granule_of(uint64_t tcr)
{
	switch ((unsigned)(tcr >> TCR_TG0_SHIFT) & TCR_TG0_MASK) {
	case TG0_4K:
		return 12;
	case TG0_16K:
		return 14;
	case TG0_64K:
		return 16;
	default:
		return 0;
	}
}

/* The VA bit where level `level`'s index starts: the granule's offset bits plus (3 - level)
 * levels of (granule_shift - 3) index bits each. */
static unsigned level_shift(unsigned g, unsigned level)
{
	return g + (LAST_LEVEL - level) * (g - 3);
}

uint64_t a64_desc_read_identity(void *ctx, uint64_t pa)
{
	(void)ctx;
	return *(const volatile uint64_t *)(uintptr_t)pa;
}

bool a64_walk(uint64_t ttbr0, uint64_t tcr, uint64_t va, a64_desc_read_fn rd, void *ctx,
	      struct a64_walk *out)
{
	unsigned g = granule_of(tcr), level;
	uint64_t table;

	*out = (struct a64_walk){ .granule_shift = g, .va_bits = 64 - (unsigned)(tcr & TCR_T0SZ_MASK) };
	if (!g || (tcr & TCR_EPD0) || out->va_bits > 52 || out->va_bits <= g)
		return false;
	if (out->va_bits < 64 && (va >> out->va_bits))
		return false;
	/* Start at the highest level whose index is still needed for va_bits. */
	for (level = 0; level < LAST_LEVEL && level_shift(g, level) >= out->va_bits; level++)
		;
	out->start_level = level;
	table = ttbr0 & TTBR_BADDR_MASK & ~((1ull << g) - 1) & DESC_OA_MASK;
	for (;; level++) {
		unsigned shift = level_shift(g, level);
		unsigned bits = out->va_bits - shift < g - 3 ? out->va_bits - shift : g - 3;
		uint64_t idx = (va >> shift) & ((1ull << bits) - 1);
		uint64_t d = rd(ctx, table + idx * DESC_BYTES);

		out->level = level;
		out->desc = d;
		if (!(d & DESC_VALID))
			return true; /* a fault: not mapped */
		if (level == LAST_LEVEL || (d & DESC_TYPE_MASK) == DESC_BLOCK) {
			/* reserved encodings (a "block" at level 3 or at level 0): a fault */
			if ((level == LAST_LEVEL && (d & DESC_TYPE_MASK) != DESC_TABLE_OR_PAGE) || level == 0)
				return true;
			out->mapped = true;
			out->map_bytes = 1ull << shift;
			out->attr_index = (unsigned)(d >> DESC_ATTRINDX_SHIFT) & DESC_ATTRINDX_MASK;
			return true;
		}
		table = d & DESC_OA_MASK & ~((1ull << g) - 1);
	}
}

const char *a64_size_name(uint64_t bytes)
{
	static const struct {
		uint64_t bytes;
		const char *name;
	} names[] = {
		{ 1ull << 12, "4K" },	{ 1ull << 14, "16K" },	{ 1ull << 16, "64K" }, { 1ull << 21, "2M" },
		{ 1ull << 25, "32M" }, { 1ull << 29, "512M" }, { 1ull << 30, "1G" },  { 1ull << 36, "64G" },
		{ 1ull << 39, "512G" }, { 1ull << 42, "4T" },
	};

	for (unsigned i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].bytes == bytes)
			return names[i].name;
	return 0;
}
