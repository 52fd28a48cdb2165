/* AArch64 identification register decoding (arch/aarch64/id_decode.c) against encodings built
 * here from the Arm ARM's field layouts, with the geometries of known cores. */
#include "arch/aarch64/id_decode.h"
#include "tests/unit/test.h"

/* CCSIDR_EL1 without FEAT_CCIDX: LineSize [2:0] = log2(bytes) - 4, Associativity-1 [12:3],
 * NumSets-1 [27:13]. */
static uint64_t ccsidr32(unsigned line, unsigned ways, unsigned sets)
{
	unsigned ls = 0;

	while ((1u << (ls + 4)) < line)
		ls++;
	return (uint64_t)ls | (uint64_t)(ways - 1) << 3 | (uint64_t)(sets - 1) << 13;
}

/* With FEAT_CCIDX: Associativity-1 [23:3], NumSets-1 [55:32]. */
static uint64_t ccsidr64(unsigned line, unsigned ways, unsigned sets)
{
	unsigned ls = 0;

	while ((1u << (ls + 4)) < line)
		ls++;
	return (uint64_t)ls | (uint64_t)(ways - 1) << 3 | (uint64_t)(sets - 1) << 32;
}

static void ccsidr_known_cores(void)
{
	/* Cortex-A72 L1D: 32 KiB, 2-way, 64-byte lines -> 256 sets; the raw value its TRM gives */
	struct a64_cache_geom g = a64_ccsidr_decode(0x701FE00Aull, false);

	CHECK_EQ_U64(g.line, 64);
	CHECK_EQ_U64(g.ways, 2);
	CHECK_EQ_U64(g.sets, 256);
	/* Cortex-A57 L2 2 MiB 16-way */
	g = a64_ccsidr_decode(ccsidr32(64, 16, 2048), false);
	CHECK_EQ_U64((uint64_t)g.line * g.ways * g.sets, 2u << 20);
	CHECK_EQ_U64(g.ways, 16);
	/* a 3-way 48 KiB L1I (QEMU -cpu max reports this) */
	g = a64_ccsidr_decode(ccsidr32(64, 3, 256), false);
	CHECK_EQ_U64((uint64_t)g.line * g.ways * g.sets, 48u << 10);
}

static void ccsidr_ccidx_format(void)
{
	/* 64-bit format: a 16-way 64 MiB last-level cache with 64-byte lines has 65536 sets, more
	 * than the 32-bit format's 15-bit field holds; the CCIDX format carries it. */
	uint64_t v = ccsidr64(64, 16, 65536);
	struct a64_cache_geom g = a64_ccsidr_decode(v, true);

	CHECK_EQ_U64(g.sets, 65536);
	CHECK_EQ_U64(g.ways, 16);
	CHECK_EQ_U64(g.line, 64);
	/* The same value read as the old format is something else: the flag matters. */
	g = a64_ccsidr_decode(v, false);
	CHECK(g.sets != 65536);
	CHECK(a64_mmfr2_ccidx(1ull << 20));
	CHECK(!a64_mmfr2_ccidx(0xF0000ull | 0xF00000000ull));
}

static void clidr_levels(void)
{
	/* L1 separate (3), L2 unified (4), nothing at L3; LoC etc. above bit 21 ignored */
	uint64_t clidr = 3u | 4u << 3 | 1u << 24;

	CHECK_EQ_U64(a64_clidr_ctype(clidr, 0), A64_CTYPE_SEPARATE);
	CHECK_EQ_U64(a64_clidr_ctype(clidr, 1), A64_CTYPE_UNIFIED);
	CHECK_EQ_U64(a64_clidr_ctype(clidr, 2), A64_CTYPE_NONE);
	CHECK_EQ_U64(a64_clidr_ctype(clidr, 7), A64_CTYPE_NONE); /* past the 7 levels */
	/* QEMU -cpu max's CLIDR_EL1 as the firmware reported it: L1 separate, L2 unified */
	CHECK_EQ_U64(a64_clidr_ctype(0x2000023, 0), A64_CTYPE_SEPARATE);
	CHECK_EQ_U64(a64_clidr_ctype(0x2000023, 1), A64_CTYPE_UNIFIED);
	CHECK_EQ_U64(a64_clidr_ctype(0x2000023, 2), A64_CTYPE_NONE);
}

static void mpidr_packing(void)
{
	CHECK_EQ_U64(a64_mpidr_hw_id(0x80000000ull), 0); /* bit 31 is RES1, not affinity */
	CHECK_EQ_U64(a64_mpidr_hw_id(0x0000000100020304ull), 0x01020304);
	CHECK_EQ_U64(a64_mpidr_hw_id(0x81000101ull), 0x000101); /* U and MT bits dropped */
}

TEST_SUITE(a64_decode) = {
	{ "ccsidr_known_cores", ccsidr_known_cores },
	{ "ccsidr_ccidx_format", ccsidr_ccidx_format },
	{ "clidr_levels", clidr_levels },
	{ "mpidr_packing", mpidr_packing },
	{ 0, 0 },
};
