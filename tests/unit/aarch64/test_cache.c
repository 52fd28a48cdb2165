/* AArch64 cache-control decoding (arch/aarch64/id_decode.c: CTR_EL0, DCZID_EL0, the set/way
 * operand, ID_AA64PFR0_EL1.SVE, the I-cache sync plan) against values built here from the Arm
 * ARM's field layouts, and the I-cache chain's instruction words (arch/aarch64/icache_gen.c),
 * checked by encoding and by walking the generated chain with a two-instruction interpreter. */
#include <stdlib.h>

#include "arch/aarch64/icache_gen.h"
#include "arch/aarch64/id_decode.h"
#include "tests/unit/test.h"

/* CTR_EL0 from its fields: line sizes in bytes (log2 of 4-byte words in the register). */
static uint64_t ctr_value(unsigned iline, unsigned dline, unsigned erg, unsigned cwg, unsigned l1ip, int idc, int dic)
{
	unsigned li = 0, ld = 0, le = 0, lc = 0;

	while ((4u << li) < iline)
		li++;
	while ((4u << ld) < dline)
		ld++;
	while (erg && (4u << le) < erg)
		le++;
	while (cwg && (4u << lc) < cwg)
		lc++;
	return 1ull << 31 /* RES1 */ | (uint64_t)li | (uint64_t)l1ip << 14 | (uint64_t)ld << 16 |
	       (uint64_t)(erg ? le : 0) << 20 | (uint64_t)(cwg ? lc : 0) << 24 | (uint64_t)!!idc << 28 |
	       (uint64_t)!!dic << 29;
}

static void ctr_fields(void)
{
	/* QEMU -cpu max as the firmware reported it: 64-byte lines, ERG and CWG 64, PIPT, no IDC/DIC */
	struct a64_ctr c = a64_ctr_decode(0x8444c004ull);

	CHECK_EQ_U64(c.iminline, 64);
	CHECK_EQ_U64(c.dminline, 64);
	CHECK_EQ_U64(c.erg, 64);
	CHECK_EQ_U64(c.cwg, 64);
	CHECK_EQ_U64(c.l1ip, 3);
	CHECK(!c.idc && !c.dic);
	CHECK_EQ_U64(ctr_value(64, 64, 64, 64, 3, 0, 0), 0x8444c004ull); /* the builder agrees */
	/* Different I and D lines (32-byte I, 128-byte D), IDC and DIC set, ERG/CWG "not given" */
	c = a64_ctr_decode(ctr_value(32, 128, 0, 0, 2, 1, 1));
	CHECK_EQ_U64(c.iminline, 32);
	CHECK_EQ_U64(c.dminline, 128);
	CHECK_EQ_U64(c.erg, 0);
	CHECK_EQ_U64(c.cwg, 0);
	CHECK_EQ_U64(c.l1ip, 2);
	CHECK(c.idc && c.dic);
	/* only one of the two */
	c = a64_ctr_decode(ctr_value(64, 64, 64, 64, 3, 1, 0));
	CHECK(c.idc && !c.dic);
}

static void sync_plan(void)
{
	struct a64_sync_plan p = a64_sync_plan(ctr_value(32, 128, 64, 64, 3, 0, 0));

	CHECK_EQ_U64(p.dc_step, 128); /* clean by D line, invalidate by I line */
	CHECK_EQ_U64(p.ic_step, 32);
	p = a64_sync_plan(ctr_value(64, 64, 64, 64, 3, 1, 0)); /* IDC: no clean needed */
	CHECK_EQ_U64(p.dc_step, 0);
	CHECK_EQ_U64(p.ic_step, 64);
	p = a64_sync_plan(ctr_value(64, 64, 64, 64, 3, 1, 1)); /* IDC and DIC: barriers only */
	CHECK_EQ_U64(p.dc_step, 0);
	CHECK_EQ_U64(p.ic_step, 0);
}

static void dczid_fields(void)
{
	struct a64_dczid z = a64_dczid_decode(0x4); /* QEMU -cpu max: BS = 4 -> 16 words */

	CHECK_EQ_U64(z.block, 64);
	CHECK(!z.prohibited);
	z = a64_dczid_decode(0x10 | 0x5); /* DZP set, 128-byte block */
	CHECK(z.prohibited);
	CHECK_EQ_U64(z.block, 128);
	z = a64_dczid_decode(0x9); /* the largest block the architecture allows: 2 KiB */
	CHECK_EQ_U64(z.block, 2048);
}

static void pfr0_sve(void)
{
	CHECK(a64_pfr0_sve(1ull << 32));
	CHECK(!a64_pfr0_sve(0xF0FFFFFFFull & ~(0xFull << 32))); /* every other field set, SVE = 0 */
	CHECK(!a64_pfr0_sve(0x1ull << 36)); /* the next field (SEL2) is not SVE */
}

static void setway(void)
{
	/* Cortex-A72 L1D: 2 ways (way in bit 31), 64-byte lines (set from bit 6), level 1 */
	CHECK_EQ_U64(a64_setway_operand(1, 1, 255, 2, 64), 0x80003FC0ull);
	/* A 16-way L2 (ways in 31:28), level 2 in bits 3:1 */
	CHECK_EQ_U64(a64_setway_operand(2, 15, 2047, 16, 64), 0xF001FFC2ull);
	/* 3 ways round up to 2 way bits (30 and up) */
	CHECK_EQ_U64(a64_setway_operand(1, 2, 0, 3, 64), 0x80000000ull);
	/* direct-mapped: no way bits at all */
	CHECK_EQ_U64(a64_setway_operand(1, 0, 3, 1, 32), 3u << 5);
}

static void branch_encoding(void)
{
	CHECK_EQ_U64(a64_enc_b(64), 0x14000010u);  /* b .+64 */
	CHECK_EQ_U64(a64_enc_b(-8), 0x17FFFFFEu);  /* b .-8 */
	CHECK_EQ_U64(a64_enc_b(4), 0x14000001u);
	CHECK_EQ_U64(A64_INSN_RET, 0xD65F03C0u);
}

/* Runs a chain from byte offset `entry`: B and RET only; returns the branches taken, or -1 on a
 * filler word or a runaway. */
static long walk(const uint32_t *code, size_t size, size_t entry, size_t *visited_first, size_t *last)
{
	size_t pc = entry;
	long taken = 0;

	*visited_first = entry;
	for (long steps = 0; steps < 1000000; steps++) {
		uint32_t w;

		if (pc >= size || pc % 4)
			return -1;
		w = code[pc / 4];
		if (w == A64_INSN_RET) {
			*last = pc;
			return taken;
		}
		if ((w & ~A64_B_IMM26_MASK) != A64_INSN_B)
			return -1;
		/* sign-extend imm26 */
		pc = (size_t)((int64_t)pc + (int64_t)((int32_t)((w & A64_B_IMM26_MASK) << 6) >> 6) * 4);
		taken++;
	}
	return -1;
}

static void chain_forward(void)
{
	size_t size = 4096, line = 64, first, last;
	uint32_t *code = malloc(size);

	CHECK(a64_chain_write(code, size, line));
	CHECK_EQ_U64(code[0], a64_enc_b(64));
	CHECK_EQ_U64(code[1], A64_INSN_UDF);
	CHECK_EQ_U64(code[(size - line) / 4], A64_INSN_RET);
	CHECK_EQ_U64(walk(code, size, 0, &first, &last), size / line - 1); /* one branch per line */
	CHECK_EQ_U64(last, size - line);
	/* geometry refused: line below 16, not a multiple of 4, size not a multiple of line */
	CHECK(!a64_chain_write(code, size, 8));
	CHECK(!a64_chain_write(code, size, 18));
	CHECK(!a64_chain_write(code, 100, 64));
	CHECK(!a64_chain_write(0, size, line));
	free(code);
}

static void chain_pair(void)
{
	enum { LINES = 8, LINE = 64 };
	const uint32_t order[LINES] = { 3, 0, 7, 5, 1, 6, 2, 4 };
	const uint32_t bad[LINES] = { 3, 0, 7, 5, 1, 6, 2, 8 };
	uint32_t *code = malloc(LINES * LINE);
	size_t fwd, rev, first, last;

	CHECK(a64_chain_write_pair(code, LINES * LINE, LINE, 8, order, &fwd, &rev));
	CHECK_EQ_U64(fwd, 3 * LINE);
	CHECK_EQ_U64(rev, 4 * LINE + 8);
	CHECK_EQ_U64(walk(code, LINES * LINE, fwd, &first, &last), LINES - 1);
	CHECK_EQ_U64(last, 4 * LINE); /* ends on the last line of the order */
	CHECK_EQ_U64(walk(code, LINES * LINE, rev, &first, &last), LINES - 1);
	CHECK_EQ_U64(last, 3 * LINE + 8); /* the reverse one ends on the first */
	/* the second forward step goes from line 3 to line 0 */
	CHECK_EQ_U64(code[3 * LINE / 4], a64_enc_b(-3 * LINE));
	CHECK(!a64_chain_write_pair(code, LINES * LINE, LINE, 8, bad, &fwd, &rev));
	CHECK(!a64_chain_write_pair(code, LINES * LINE, LINE, 6, order, &fwd, &rev)); /* unaligned */
	CHECK(!a64_chain_write_pair(code, LINES * LINE, LINE, LINE, order, &fwd, &rev)); /* outside the line */
	free(code);
}

TEST_SUITE(a64_cache) = {
	{ "ctr_fields", ctr_fields },
	{ "sync_plan", sync_plan },
	{ "dczid_fields", dczid_fields },
	{ "pfr0_sve", pfr0_sve },
	{ "setway", setway },
	{ "branch_encoding", branch_encoding },
	{ "chain_forward", chain_forward },
	{ "chain_pair", chain_pair },
	{ 0, 0 },
};
