/* The AArch64 stage-1 walk (arch/aarch64/walk.c) on synthetic tables: descriptors live in a small
 * map from physical address to value, TCR/TTBR values are built from the Arm ARM's field layout. */
#include "arch/aarch64/walk.h"
#include "tests/unit/test.h"

#define MAX_DESC 32
#define TABLE 3ull  /* table (levels 0-2) or page (level 3) descriptor */
#define BLOCK 1ull
#define ATTR(i) ((uint64_t)(i) << 2)
#define TCR_4K(va_bits) ((uint64_t)(64 - (va_bits)))                 /* TG0 = 0 */
#define TCR_64K(va_bits) ((uint64_t)(64 - (va_bits)) | 1ull << 14)   /* TG0 = 1 */
#define TCR_16K(va_bits) ((uint64_t)(64 - (va_bits)) | 2ull << 14)   /* TG0 = 2 */
#define TCR_EPD0 (1ull << 7)

struct mem {
	unsigned n;
	uint64_t pa[MAX_DESC], v[MAX_DESC];
	unsigned reads;
};

static void put(struct mem *m, uint64_t pa, uint64_t v)
{
	m->pa[m->n] = pa;
	m->v[m->n++] = v;
}

static uint64_t rd(void *ctx, uint64_t pa)
{
	struct mem *m = ctx;

	m->reads++;
	for (unsigned i = 0; i < m->n; i++)
		if (m->pa[i] == pa)
			return m->v[i];
	return 0;
}

/* 4K granule, 48-bit VA: L0 at 0x1000; L0[0] -> L1 at 0x2000; L1[0] -> L2 at 0x3000, L1[1] a 1G
 * block (attr 1); L2[0] a 2M block (attr 0), L2[1] -> L3 at 0x4000; L3[5] a 4K page (attr 2). */
static void tables_4k(struct mem *m)
{
	*m = (struct mem){ 0 };
	put(m, 0x1000, 0x2000 | TABLE);
	put(m, 0x2000, 0x3000 | TABLE);
	put(m, 0x2000 + 1 * 8, 0x40000000 | BLOCK | ATTR(1));
	put(m, 0x3000, 0x0 | BLOCK | ATTR(0));
	put(m, 0x3000 + 1 * 8, 0x4000 | TABLE);
	put(m, 0x4000 + 5 * 8, 0x12345000 | TABLE | ATTR(2));
}

static void walk_4k_pages_and_blocks(void)
{
	struct mem m;
	struct a64_walk w;

	tables_4k(&m);
	CHECK(a64_walk(0x1000, TCR_4K(48), 0x40001234, rd, &m, &w));
	CHECK(w.mapped);
	CHECK_EQ_U64(w.granule_shift, 12);
	CHECK_EQ_U64(w.va_bits, 48);
	CHECK_EQ_U64(w.start_level, 0);
	CHECK_EQ_U64(w.level, 1);
	CHECK_EQ_U64(w.map_bytes, 1ull << 30);
	CHECK_EQ_U64(w.attr_index, 1);
	CHECK_STR(a64_size_name(w.map_bytes), "1G");

	CHECK(a64_walk(0x1000, TCR_4K(48), 0x123, rd, &m, &w));
	CHECK(w.mapped && w.level == 2);
	CHECK_STR(a64_size_name(w.map_bytes), "2M");

	CHECK(a64_walk(0x1000, TCR_4K(48), 0x200000 + 5 * 4096 + 7, rd, &m, &w));
	CHECK(w.mapped && w.level == 3);
	CHECK_STR(a64_size_name(w.map_bytes), "4K");
	CHECK_EQ_U64(w.attr_index, 2);

	/* L3[6] is empty: walked, not mapped */
	CHECK(a64_walk(0x1000, TCR_4K(48), 0x200000 + 6 * 4096, rd, &m, &w));
	CHECK(!w.mapped && w.level == 3);
	/* L1[2] is empty */
	CHECK(a64_walk(0x1000, TCR_4K(48), 0x80000000ull, rd, &m, &w));
	CHECK(!w.mapped && w.level == 1);
}

static void walk_refuses(void)
{
	struct mem m;
	struct a64_walk w;

	tables_4k(&m);
	CHECK(!a64_walk(0x1000, TCR_4K(48), 1ull << 48, rd, &m, &w)); /* beyond the VA range */
	CHECK(!a64_walk(0x1000, TCR_4K(48) | TCR_EPD0, 0x123, rd, &m, &w)); /* walks disabled */
	CHECK(!a64_walk(0x1000, TCR_4K(48) | 3ull << 14, 0x123, rd, &m, &w)); /* TG0 reserved */
	/* a "block" at level 0 is a reserved encoding: not a 512G mapping */
	m = (struct mem){ 0 };
	put(&m, 0x1000, 0x0 | BLOCK);
	CHECK(a64_walk(0x1000, TCR_4K(48), 0x123, rd, &m, &w));
	CHECK(!w.mapped);
}

static void start_level_follows_t0sz(void)
{
	struct mem m = { 0 };
	struct a64_walk w;

	/* 4K, 39-bit VA: the walk starts at level 1 (TTBR points at the L1 table) */
	put(&m, 0x1000 + 1 * 8, 0x40000000 | BLOCK);
	CHECK(a64_walk(0x1000, TCR_4K(39), 0x40000000, rd, &m, &w));
	CHECK_EQ_U64(w.start_level, 1);
	CHECK(w.mapped && w.level == 1);
	/* 64K, 48-bit VA: level 1 first (6 index bits, VA 47:42), a 512M block at level 2 */
	m = (struct mem){ 0 };
	put(&m, 0x10000, 0x20000 | TABLE);
	put(&m, 0x20000 + 3 * 8, 0x60000000 | BLOCK | ATTR(4));
	CHECK(a64_walk(0x10000, TCR_64K(48), 3ull << 29, rd, &m, &w));
	CHECK_EQ_U64(w.granule_shift, 16);
	CHECK_EQ_U64(w.start_level, 1);
	CHECK(w.mapped && w.level == 2);
	CHECK_STR(a64_size_name(w.map_bytes), "512M");
	CHECK_EQ_U64(w.attr_index, 4);
	/* 16K, 48-bit VA: level 0 has a single index bit (VA 47) */
	m = (struct mem){ 0 };
	CHECK(a64_walk(0x4000, TCR_16K(48), 1ull << 47, rd, &m, &w));
	CHECK_EQ_U64(w.start_level, 0);
	CHECK_EQ_U64(m.reads, 1);
	CHECK(!w.mapped);
	CHECK(a64_size_name(12345) == 0);
}

TEST_SUITE(a64_walk) = {
	{ "walk_4k_pages_and_blocks", walk_4k_pages_and_blocks },
	{ "walk_refuses", walk_refuses },
	{ "start_level_follows_t0sz", start_level_follows_t0sz },
	{ 0, 0 },
};
