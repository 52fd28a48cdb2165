/* Every cache geometry the AArch64 probes take from the CPU's registers (arch/aarch64/id_decode.c),
 * over every value the architecture can encode, so a core that is not one of the QEMU models
 * (128-byte lines, a 2 KiB DC ZVA block, a 5-way cache) is decoded as its registers say. The
 * encodings are built here from the Arm ARM (DDI 0487 K.a) register descriptions:
 *  - CTR_EL0 (D19.2.34): IminLine [3:0] and DminLine [19:16] = log2 of the smallest line in 4-byte
 *    words; ERG [23:20] and CWG [27:24] the same, 0 = "not given" (the 2 KiB architectural
 *    maximum applies) and values above 0b1001 (512 words, 2 KiB) reserved; bit 31 RES1.
 *  - DCZID_EL0 (D19.2.38): BS [3:0] = log2 of the DC ZVA block in words, "the maximum size
 *    supported is 2KB (value == 9)"; DZP [4] = DC ZVA prohibited.
 *  - CCSIDR_EL1 (D19.2.25): LineSize [2:0] = log2(line bytes) - 4 (16..2048); without FEAT_CCIDX
 *    Associativity [12:3] = ways - 1 (1..1024) and NumSets [27:13] = sets - 1 (1..32768), bits
 *    [31:28] the WT/WB/RA/WA flags of Armv8.0 cores (the Cortex-A53 sets them); with FEAT_CCIDX
 *    Associativity [23:3] (1..2^21) and NumSets [55:32] (1..2^24), bits [31:24] and [63:56] RES0.
 *  - DC CISW's operand (C5.3.x): Way in [31:32-A] with A = ceil(log2 ways), Set in [B+S-1:B] with
 *    B = log2 line bytes, S = ceil(log2 sets), Level - 1 in [3:1].
 * Expected values are computed by doubling loops, not by the decoder's shifts. */
#include "arch/aarch64/id_decode.h"
#include "tests/unit/test.h"

#define CTR_RES1 (1ull << 31)
#define ARCH_MAX_LINE 2048u
#define ARCH_MIN_LINE 16u
#define WORD 4u

/* 4 bytes doubled `log2_words` times */
static unsigned words_bytes(unsigned log2_words)
{
	unsigned b = WORD;

	for (unsigned i = 0; i < log2_words; i++)
		b *= 2;
	return b;
}

static uint64_t ctr_of(unsigned imin, unsigned dmin, unsigned erg, unsigned cwg)
{
	return CTR_RES1 | imin | (uint64_t)dmin << 16 | (uint64_t)erg << 20 | (uint64_t)cwg << 24;
}

static void ctr_every_line_and_granule(void)
{
	/* IminLine/DminLine 2..9 (16..2048 bytes) x ERG/CWG 0..9, every combination: no field leaks
	 * into another */
	for (unsigned im = 2; im <= 9; im++)
		for (unsigned dm = 2; dm <= 9; dm++)
			for (unsigned e = 0; e <= 9; e++)
				for (unsigned w = 0; w <= 9; w++) {
					struct a64_ctr c = a64_ctr_decode(ctr_of(im, dm, e, w));

					if (c.iminline != words_bytes(im) || c.dminline != words_bytes(dm) ||
					    c.erg != (e ? words_bytes(e) : 0) || c.cwg != (w ? words_bytes(w) : 0)) {
						CHECK_EQ_U64(c.iminline, words_bytes(im));
						CHECK_EQ_U64(c.dminline, words_bytes(dm));
						CHECK_EQ_U64(c.erg, e ? words_bytes(e) : 0);
						CHECK_EQ_U64(c.cwg, w ? words_bytes(w) : 0);
						return;
					}
				}
	CHECK_EQ_U64(a64_ctr_decode(ctr_of(2, 2, 0, 0)).dminline, ARCH_MIN_LINE);
	CHECK_EQ_U64(a64_ctr_decode(ctr_of(9, 9, 9, 9)).iminline, ARCH_MAX_LINE);
	CHECK_EQ_U64(a64_ctr_decode(ctr_of(9, 9, 9, 9)).cwg, ARCH_MAX_LINE);
}

static void ctr_reserved_granule_is_not_given(void)
{
	/* ERG/CWG above 0b1001 are reserved: read as "not given" (0, the 2 KiB maximum applies),
	 * never as a 4 KiB..128 KiB granule */
	for (unsigned v = 10; v <= 15; v++) {
		struct a64_ctr c = a64_ctr_decode(ctr_of(4, 4, v, v));

		CHECK_EQ_U64(c.erg, 0);
		CHECK_EQ_U64(c.cwg, 0);
		CHECK_EQ_U64(c.dminline, 64); /* the rest of the register still decodes */
	}
}

static void ctr_flags_beside_lines(void)
{
	/* L1Ip [15:14], IDC [28], DIC [29] set around every line size: the lines do not move */
	for (unsigned v = 2; v <= 9; v++) {
		uint64_t ctr = ctr_of(v, v, 0, 0) | 3ull << 14 | 1ull << 28 | 1ull << 29;
		struct a64_ctr c = a64_ctr_decode(ctr);
		struct a64_sync_plan p = a64_sync_plan(ctr);

		CHECK_EQ_U64(c.iminline, words_bytes(v));
		CHECK_EQ_U64(c.dminline, words_bytes(v));
		CHECK_EQ_U64(c.l1ip, 3);
		CHECK(c.idc && c.dic);
		CHECK_EQ_U64(p.dc_step, 0); /* IDC: no DC CVAU; DIC: no IC IVAU */
		CHECK_EQ_U64(p.ic_step, 0);
		p = a64_sync_plan(ctr_of(v, v, 0, 0));
		CHECK_EQ_U64(p.dc_step, words_bytes(v));
		CHECK_EQ_U64(p.ic_step, words_bytes(v));
	}
}

static void dczid_every_block(void)
{
	for (unsigned bs = 0; bs <= 9; bs++)
		for (unsigned dzp = 0; dzp <= 1; dzp++) {
			struct a64_dczid z = a64_dczid_decode(bs | (uint64_t)dzp << 4);

			CHECK_EQ_U64(z.block, words_bytes(bs)); /* 4 .. 2048 bytes */
			CHECK_EQ_U64(z.prohibited, dzp);
		}
	CHECK_EQ_U64(a64_dczid_decode(9).block, ARCH_MAX_LINE);
	CHECK_EQ_U64(a64_dczid_decode(0).block, WORD);
}

static void dczid_reserved_block_not_used(void)
{
	/* BS above 9 is no block size the architecture has: DC ZVA is not used (block 0), never a
	 * 4 KiB..128 KiB stride that would leave memory unzeroed */
	for (unsigned bs = 10; bs <= 15; bs++) {
		struct a64_dczid z = a64_dczid_decode(bs);

		CHECK_EQ_U64(z.block, 0);
		CHECK(z.prohibited);
	}
}

static uint64_t ccsidr32(unsigned ls, unsigned ways, unsigned sets)
{
	return ls | (uint64_t)(ways - 1) << 3 | (uint64_t)(sets - 1) << 13;
}

static uint64_t ccsidr64(unsigned ls, unsigned ways, unsigned sets)
{
	return ls | (uint64_t)(ways - 1) << 3 | (uint64_t)(sets - 1) << 32;
}

static int geom_is(struct a64_cache_geom g, unsigned line, unsigned ways, unsigned sets)
{
	if (g.line == line && g.ways == ways && g.sets == sets)
		return 1;
	CHECK_EQ_U64(g.line, line);
	CHECK_EQ_U64(g.ways, ways);
	CHECK_EQ_U64(g.sets, sets);
	return 0;
}

static void ccsidr32_every_field_value(void)
{
	/* every line size, every way count 1..1024 and every set count 1..32768 (each swept with the
	 * others at odd values), with Armv8.0's WT/WB/RA/WA flags [31:28] set or clear */
	for (uint64_t flags = 0; flags <= 0xF; flags += 0xF)
		for (unsigned ls = 0; ls <= 7; ls++) {
			unsigned line = ARCH_MIN_LINE << ls;

			for (unsigned w = 1; w <= 1024; w++)
				if (!geom_is(a64_ccsidr_decode(ccsidr32(ls, w, 3) | flags << 28, false), line, w, 3))
					return;
			for (unsigned s = 1; s <= 32768; s++)
				if (!geom_is(a64_ccsidr_decode(ccsidr32(ls, 5, s) | flags << 28, false), line, 5, s))
					return;
		}
	/* a Cortex-A53 L1D as QEMU and the TRM give it: 32 KiB 4-way, flags set */
	CHECK(geom_is(a64_ccsidr_decode(0x700FE01Aull, false), 64, 4, 128));
}

static void ccsidr64_every_field_value(void)
{
	/* FEAT_CCIDX: ways up to 2^21 and sets up to 2^24; RES0 bits set must not leak in */
	static const unsigned odd_sets[] = { 1, 3, 5, 7, 9, 11, 13, 1023, 12289, 65535, 393215, 16777215 };
	static const unsigned odd_ways[] = { 1, 3, 5, 7, 9, 11, 13, 15, 17, 31, 1025, 2097151 };
	const uint64_t res0 = 0xFFull << 24 | 0xFFull << 56;

	for (unsigned ls = 0; ls <= 7; ls++)
		for (unsigned i = 0; i < sizeof(odd_sets) / sizeof(odd_sets[0]); i++)
			for (unsigned j = 0; j < sizeof(odd_ways) / sizeof(odd_ways[0]); j++) {
				uint64_t v = ccsidr64(ls, odd_ways[j], odd_sets[i]);

				if (!geom_is(a64_ccsidr_decode(v, true), ARCH_MIN_LINE << ls, odd_ways[j], odd_sets[i]) ||
				    !geom_is(a64_ccsidr_decode(v | res0, true), ARCH_MIN_LINE << ls, odd_ways[j],
					     odd_sets[i]))
					return;
			}
	CHECK(geom_is(a64_ccsidr_decode(ccsidr64(7, 1u << 21, 1u << 24), true), 2048, 1u << 21, 1u << 24));
}

/* ceil(log2 n), by doubling */
static unsigned clog2(unsigned n)
{
	unsigned l = 0, v = 1;

	while (v < n) {
		v *= 2;
		l++;
	}
	return l;
}

static void setway_odd_geometries(void)
{
	/* the last way and set of every way count 1..1024 (odd ones included) with every line size:
	 * the way sits at the top of bits 31:4, the set right above the line offset, no overlap */
	for (unsigned ls = 0; ls <= 7; ls++)
		for (unsigned ways = 1; ways <= 1024; ways++) {
			unsigned line = ARCH_MIN_LINE << ls, a = clog2(ways), sets = 3;
			uint64_t op = a64_setway_operand(2, ways - 1, sets - 1, ways, line);
			uint64_t way_part = a ? (uint64_t)(ways - 1) << (32 - a) : 0;
			uint64_t set_part = (uint64_t)(sets - 1) << clog2(line);

			if (op != (way_part | set_part | 1u << 1) || (way_part & set_part) || op >> 32) {
				CHECK_EQ_U64(op, way_part | set_part | 1u << 1);
				CHECK_EQ_U64(way_part & set_part, 0);
				return;
			}
		}
}

TEST_SUITE(a64_line_decode) = {
	{ "ctr_every_line_and_granule", ctr_every_line_and_granule },
	{ "ctr_reserved_granule_is_not_given", ctr_reserved_granule_is_not_given },
	{ "ctr_flags_beside_lines", ctr_flags_beside_lines },
	{ "dczid_every_block", dczid_every_block },
	{ "dczid_reserved_block_not_used", dczid_reserved_block_not_used },
	{ "ccsidr32_every_field_value", ccsidr32_every_field_value },
	{ "ccsidr64_every_field_value", ccsidr64_every_field_value },
	{ "setway_odd_geometries", setway_odd_geometries },
	{ 0, 0 },
};
