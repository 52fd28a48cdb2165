/* AArch64 cache identification from CLIDR_EL1 / CCSIDR_EL1 (arch/aarch64/cache_geom.c) against
 * models of what a CPU and a hypervisor report, and what the counter-set choice
 * (bench/core/counters.c, ctr_latency_set) makes of the result handed on as cpu_info.c does.
 *
 * The KVM model encodes Linux's arch/arm64/kvm/sys_regs.c (6.3 on): reset_clidr() gives a guest
 * an L1 data and instruction cache (LoC 1) where CTR_EL0.IDC is clear, else an L1 instruction
 * cache and an L2 unified one; get_ccsidr() gives every cache only a LineSize (the CTR_EL0
 * minimum line): Associativity and NumSets 0, i.e. one way of one set. Before 6.3 KVM passed the
 * host's CCSIDR with bits 27:3 cleared for data and unified caches only (access_ccsidr()). The
 * Arm ARM (CCSIDR_EL1) says the register need not describe the actual caches. */
#include <string.h>

#include "arch/aarch64/cache_geom.h"
#include "arch/cpu_info.h"
#include "bench/core/counters.h"
#include "tests/unit/test.h"

/* CCSIDR_EL1 fields without FEAT_CCIDX: LineSize [2:0] = log2(bytes) - 4, Associativity - 1
 * [12:3], NumSets - 1 [27:13]. */
static uint64_t ccsidr(unsigned line, unsigned ways, unsigned sets)
{
	unsigned ls = 0;

	while ((1u << (ls + 4)) < line)
		ls++;
	return (uint64_t)ls | (uint64_t)(ways - 1) << 3 | (uint64_t)(sets - 1) << 13;
}

#define CTYPE_SHIFT(level) (3 * ((level) - 1)) /* CLIDR_EL1.Ctype<level> */
#define LOC_SHIFT 24

/* A model CPU: CLIDR and the CCSIDR of every (level, side). */
struct model {
	uint64_t clidr;
	uint64_t data[8], inst[8]; /* by level; data[] also for unified caches */
	unsigned reads;
};

static uint64_t model_read(void *ctx, unsigned level, bool inst)
{
	struct model *m = ctx;

	m->reads++;
	return inst ? m->inst[level] : m->data[level];
}

/* Linux KVM's guest view (see the header comment) on a host with 64-byte lines. */
static struct model kvm_guest(bool idc)
{
	struct model m;
	unsigned loc = idc ? 2 : 1;

	memset(&m, 0, sizeof(m));
	m.clidr = idc ? (uint64_t)A64_CTYPE_UNIFIED << CTYPE_SHIFT(2) | (uint64_t)A64_CTYPE_INST << CTYPE_SHIFT(1)
		      : (uint64_t)A64_CTYPE_SEPARATE << CTYPE_SHIFT(1);
	m.clidr |= (uint64_t)loc << LOC_SHIFT;
	for (unsigned l = 1; l < 8; l++)
		m.data[l] = m.inst[l] = ccsidr(64, 1, 1); /* LineSize only */
	return m;
}

/* Cortex-A72 as its TRM gives it: L1I 48 KiB 3-way, L1D 32 KiB 2-way, L2 1 MiB 16-way. */
static struct model a72(void)
{
	struct model m;

	memset(&m, 0, sizeof(m));
	m.clidr = (uint64_t)A64_CTYPE_SEPARATE << CTYPE_SHIFT(1) | (uint64_t)A64_CTYPE_UNIFIED << CTYPE_SHIFT(2);
	m.inst[1] = ccsidr(64, 3, 256);
	m.data[1] = ccsidr(64, 2, 256);
	m.data[2] = ccsidr(64, 16, 1024);
	return m;
}

/* The caches as cpu_info.c hands them on (struct cache_desc), after identification and vetting. */
static struct cpu_info identify(struct model *m)
{
	struct a64_cache found[A64_MAX_CACHES];
	unsigned n = a64_caches_identify(found, A64_MAX_CACHES, m->clidr, false, model_read, m);
	struct cpu_info ci;

	memset(&ci, 0, sizeof(ci));
	for (unsigned i = 0; i < n; i++) {
		struct cache_desc *c = &ci.caches[ci.num_caches++];

		c->level = found[i].level;
		c->type = found[i].ctype == A64_CTYPE_INST ? CACHE_INST
			  : found[i].ctype == A64_CTYPE_DATA ? CACHE_DATA : CACHE_UNIFIED;
		c->line = found[i].g.line;
		c->ways = found[i].g.ways;
		c->sets = found[i].g.sets;
		c->size = found[i].size;
		c->geometry_unknown = found[i].unknown;
	}
	return ci;
}

static void real_core_believed(void)
{
	struct model m = a72();
	struct cpu_info ci = identify(&m);

	CHECK_EQ_U64(ci.num_caches, 3);
	CHECK_EQ_U64(m.reads, 3);
	CHECK_EQ_U64(ci.caches[0].type, CACHE_INST);
	CHECK_EQ_U64(ci.caches[0].size, 48u << 10);
	CHECK_EQ_U64(ci.caches[1].size, 32u << 10);
	CHECK_EQ_U64(ci.caches[2].size, 1u << 20);
	for (unsigned i = 0; i < ci.num_caches; i++)
		CHECK(ci.caches[i].geometry_unknown == 0);
	CHECK_STR(ctr_latency_set(&ci, 16 << 10), CTR_SET_LATENCY_L1);
	CHECK_STR(ctr_latency_set(&ci, 512 << 10), CTR_SET_LATENCY_L2);
}

static void kvm_one_set_one_way(void)
{
	for (int idc = 0; idc <= 1; idc++) {
		struct model m = kvm_guest(idc);
		struct cpu_info ci = identify(&m);

		CHECK_EQ_U64(ci.num_caches, 2);
		for (unsigned i = 0; i < ci.num_caches; i++) {
			const struct cache_desc *c = &ci.caches[i];

			CHECK(c->geometry_unknown != 0);
			CHECK(strstr(c->geometry_unknown, "1 set x 1 way") != 0);
			CHECK_EQ_U64(c->size, 0); /* never the 64-byte product */
			CHECK_EQ_U64(c->line, 64); /* what the register says is kept */
			CHECK_EQ_U64(c->ways, 1);
			CHECK_EQ_U64(c->sets, 1);
		}
		CHECK_EQ_U64(ci.caches[1].type, idc ? CACHE_UNIFIED : CACHE_DATA);
		CHECK_EQ_U64(ci.caches[1].level, idc ? 2 : 1);
		/* a 32-byte buffer "fits" a 64-byte L1: no level is chosen from a stand-in geometry */
		CHECK_STR(ctr_latency_set(&ci, 32), CTR_SET_LATENCY_MEM);
		CHECK_STR(ctr_latency_set(&ci, 64), CTR_SET_LATENCY_MEM);
	}
}

static void kvm_before_6_3(void)
{
	/* the host's A72 with data/unified caches cleared to one set, one way; the I-cache real */
	struct model m = a72();
	struct cpu_info ci;

	m.data[1] &= ~(((1ull << 25) - 1) << 3); /* bits 27:3 */
	m.data[2] &= ~(((1ull << 25) - 1) << 3);
	ci = identify(&m);
	CHECK(ci.caches[0].geometry_unknown == 0);
	CHECK_EQ_U64(ci.caches[0].size, 48u << 10);
	CHECK(ci.caches[1].geometry_unknown != 0);
	CHECK(ci.caches[2].geometry_unknown != 0);
	CHECK_STR(ctr_latency_set(&ci, 32), CTR_SET_LATENCY_MEM);
}

static void level_not_larger(void)
{
	/* an L2 no larger than the L1D below it is no hierarchy: L2 unknown, L1 kept */
	struct model m = a72();
	struct cpu_info ci;

	m.data[2] = ccsidr(64, 4, 128); /* 32 KiB, the L1D's size */
	ci = identify(&m);
	CHECK(ci.caches[1].geometry_unknown == 0);
	CHECK_EQ_U64(ci.caches[1].size, 32u << 10);
	CHECK(ci.caches[2].geometry_unknown != 0);
	CHECK(strstr(ci.caches[2].geometry_unknown, "level below") != 0);
	CHECK_EQ_U64(ci.caches[2].size, 0);
	CHECK_STR(ctr_latency_set(&ci, 16 << 10), CTR_SET_LATENCY_L1);
	CHECK_STR(ctr_latency_set(&ci, 512 << 10), CTR_SET_LATENCY_MEM);
	/* a larger L2 than the instruction cache alone is enough: 64 KiB > 48 KiB I and 32 KiB D */
	m.data[2] = ccsidr(64, 4, 256);
	ci = identify(&m);
	CHECK(ci.caches[2].geometry_unknown == 0);
	/* but not one between them: the I-side (48 KiB) is not exceeded by a 40 KiB L2 */
	m.data[2] = ccsidr(64, 5, 128);
	ci = identify(&m);
	CHECK(ci.caches[2].geometry_unknown != 0);
	/* a stand-in L1 below is no yardstick: a real L2 above a 1x1 L1D is kept */
	m = a72();
	m.data[1] = ccsidr(64, 1, 1);
	m.inst[1] = ccsidr(64, 1, 1);
	ci = identify(&m);
	CHECK(ci.caches[1].geometry_unknown != 0);
	CHECK(ci.caches[2].geometry_unknown == 0);
	CHECK_EQ_U64(ci.caches[2].size, 1u << 20);
}

TEST_SUITE(a64_cache_geom) = {
	{ "real_core_believed", real_core_believed },
	{ "kvm_one_set_one_way", kvm_one_set_one_way },
	{ "kvm_before_6_3", kvm_before_6_3 },
	{ "level_not_larger", level_not_larger },
	{ 0, 0 },
};
