/* Identification register decoding (see id_decode.h). Field layouts: Arm ARM D19.2 (CLIDR_EL1,
 * CCSIDR_EL1 with and without FEAT_CCIDX, ID_AA64MMFR2_EL1, MPIDR_EL1). */
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
