/* Identification register decoding (see id_decode.h). Field layouts: Arm ARM D19.2 (CLIDR_EL1,
 * CCSIDR_EL1 with and without FEAT_CCIDX, ID_AA64MMFR2_EL1, MPIDR_EL1, CTR_EL0, DCZID_EL0,
 * ID_AA64PFR0_EL1) and C5.3 (DC CISW's set/way operand). */
#include "arch/aarch64/id_decode.h"

#define CLIDR_CTYPE_BITS 3
#define CLIDR_CTYPE_MASK 7u
#define CCSIDR_LINE_MASK 7u
#define CCSIDR_LINE_BIAS 4 /* line bytes = 1 << (LineSize + 4) */
#define CCSIDR_ASSOC_SHIFT 3
#define CCSIDR_ASSOC_MASK 0x3FFu
#define CCSIDR_SETS_SHIFT 13
#define CCSIDR_SETS_MASK 0x7FFFu
#define CCSIDR_X_ASSOC_MASK 0x1FFFFFu
#define CCSIDR_X_SETS_SHIFT 32
#define CCSIDR_X_SETS_MASK 0xFFFFFFu
#define MMFR2_CCIDX_SHIFT 20
#define ID_FIELD_MASK 0xFu
#define MPIDR_AFF210_MASK 0xFFFFFFull
#define MPIDR_AFF3_SHIFT 32
#define MPIDR_AFF3_MASK 0xFFull
#define MPIDR_AFF3_PACKED_SHIFT 24
#define CTR_IMINLINE_SHIFT 0 /* log2 of the line in 4-byte words */
#define CTR_L1IP_SHIFT 14
#define CTR_L1IP_MASK 3u
#define CTR_DMINLINE_SHIFT 16
#define CTR_ERG_SHIFT 20
#define CTR_CWG_SHIFT 24
#define CTR_IDC (1ull << 28)
#define CTR_DIC (1ull << 29)
#define WORD_BYTES 4u
#define ARCH_MAX_LOG2_WORDS 9u /* 512 words, 2 KiB: CTR_EL0.ERG/CWG and DCZID_EL0.BS above it are reserved */
#define DCZID_BS_MASK 0xFu /* log2 of the block in 4-byte words */
#define DCZID_DZP (1ull << 4)
#define PFR0_SVE_SHIFT 32
#define SETWAY_LEVEL_SHIFT 1
#define SETWAY_WAY_TOP 32

unsigned a64_clidr_ctype(uint64_t clidr, unsigned n)
{
	return n < A64_CLIDR_LEVELS ? (unsigned)(clidr >> (CLIDR_CTYPE_BITS * n)) & CLIDR_CTYPE_MASK
				    : A64_CTYPE_NONE;
}

struct a64_cache_geom a64_ccsidr_decode(uint64_t ccsidr, bool ccidx)
{
	struct a64_cache_geom g;

	g.line = 1u << ((ccsidr & CCSIDR_LINE_MASK) + CCSIDR_LINE_BIAS);
	if (ccidx) {
		g.ways = (unsigned)((ccsidr >> CCSIDR_ASSOC_SHIFT) & CCSIDR_X_ASSOC_MASK) + 1;
		g.sets = (unsigned)((ccsidr >> CCSIDR_X_SETS_SHIFT) & CCSIDR_X_SETS_MASK) + 1;
	} else {
		g.ways = (unsigned)((ccsidr >> CCSIDR_ASSOC_SHIFT) & CCSIDR_ASSOC_MASK) + 1;
		g.sets = (unsigned)((ccsidr >> CCSIDR_SETS_SHIFT) & CCSIDR_SETS_MASK) + 1;
	}
	return g;
}

bool a64_mmfr2_ccidx(uint64_t id_aa64mmfr2)
{
	return ((id_aa64mmfr2 >> MMFR2_CCIDX_SHIFT) & ID_FIELD_MASK) != 0;
}

uint32_t a64_mpidr_hw_id(uint64_t mpidr)
{
	return (uint32_t)((mpidr & MPIDR_AFF210_MASK) |
			  (((mpidr >> MPIDR_AFF3_SHIFT) & MPIDR_AFF3_MASK) << MPIDR_AFF3_PACKED_SHIFT));
}

static unsigned words_field(uint64_t reg, unsigned shift)
{
	return WORD_BYTES << ((reg >> shift) & ID_FIELD_MASK);
}

/* ERG / CWG: 0 is "not given"; above 0b1001 reserved (Arm ARM, CTR_EL0): read as not given too,
 * so the 2 KiB architectural maximum applies, never a 4..128 KiB granule no core has. */
static unsigned granule_field(uint64_t reg, unsigned shift)
{
	unsigned f = (unsigned)(reg >> shift) & ID_FIELD_MASK;

	return f && f <= ARCH_MAX_LOG2_WORDS ? words_field(reg, shift) : 0;
}

struct a64_ctr a64_ctr_decode(uint64_t ctr)
{
	struct a64_ctr c;

	c.iminline = words_field(ctr, CTR_IMINLINE_SHIFT);
	c.dminline = words_field(ctr, CTR_DMINLINE_SHIFT);
	c.erg = granule_field(ctr, CTR_ERG_SHIFT);
	c.cwg = granule_field(ctr, CTR_CWG_SHIFT);
	c.l1ip = (unsigned)(ctr >> CTR_L1IP_SHIFT) & CTR_L1IP_MASK;
	c.idc = (ctr & CTR_IDC) != 0;
	c.dic = (ctr & CTR_DIC) != 0;
	return c;
}

#define DMA_GRANULE_UNKNOWN 128u

unsigned a64_dma_granule(uint64_t ctr)
{
	unsigned cwg = a64_ctr_decode(ctr).cwg;

	return cwg ? cwg : DMA_GRANULE_UNKNOWN;
}

struct a64_sync_plan a64_sync_plan(uint64_t ctr)
{
	struct a64_ctr c = a64_ctr_decode(ctr);
	struct a64_sync_plan p;

	p.dc_step = c.idc ? 0 : c.dminline;
	p.ic_step = c.dic ? 0 : c.iminline;
	return p;
}

struct a64_dczid a64_dczid_decode(uint64_t dczid)
{
	struct a64_dczid d;

	unsigned bs = (unsigned)(dczid & DCZID_BS_MASK);

	/* BS above 9 (2 KiB) is reserved: no block is believed and DC ZVA is not used */
	d.block = bs <= ARCH_MAX_LOG2_WORDS ? WORD_BYTES << bs : 0;
	d.prohibited = (dczid & DCZID_DZP) != 0 || !d.block;
	return d;
}

bool a64_pfr0_sve(uint64_t id_aa64pfr0)
{
	return ((id_aa64pfr0 >> PFR0_SVE_SHIFT) & ID_FIELD_MASK) != 0;
}

/* ceil(log2 n) for n >= 1 */
static unsigned log2_ceil(unsigned n)
{
	unsigned l = 0;

	while ((1u << l) < n)
		l++;
	return l;
}

uint64_t a64_setway_operand(unsigned level, unsigned way, unsigned set, unsigned ways, unsigned line)
{
	unsigned a = log2_ceil(ways), l = log2_ceil(line);
	uint64_t v = (uint64_t)(level - 1) << SETWAY_LEVEL_SHIFT | (uint64_t)set << l;

	if (a) /* a direct-mapped cache has no way bits (a shift by 32 would be wrong) */
		v |= (uint64_t)way << (SETWAY_WAY_TOP - a);
	return v;
}
