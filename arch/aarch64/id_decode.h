/* Decoding of AArch64 identification register values, as pure functions of the values (no
 * register access here), so the unit tests check them on any host against encodings built from
 * the Arm ARM's field layouts. cpu_info.c reads the registers and calls these. */
#ifndef ARCH_AARCH64_ID_DECODE_H
#define ARCH_AARCH64_ID_DECODE_H

#include <stdbool.h>
#include <stdint.h>

/* CLIDR_EL1.Ctype<n> (n = 0..6 for cache levels 1..7) */
#define A64_CTYPE_NONE 0
#define A64_CTYPE_INST 1
#define A64_CTYPE_DATA 2
#define A64_CTYPE_SEPARATE 3
#define A64_CTYPE_UNIFIED 4
#define A64_CLIDR_LEVELS 7

struct a64_cache_geom {
	unsigned line, ways, sets; /* bytes per line, associativity, number of sets */
};

unsigned a64_clidr_ctype(uint64_t clidr, unsigned n);
/* ccidx: FEAT_CCIDX (ID_AA64MMFR2_EL1.CCIDX != 0) selects CCSIDR_EL1's 64-bit format. */
struct a64_cache_geom a64_ccsidr_decode(uint64_t ccsidr, bool ccidx);
bool a64_mmfr2_ccidx(uint64_t id_aa64mmfr2);
/* MPIDR_EL1's affinity packed into 32 bits: Aff3 in 31:24, Aff2..Aff0 in 23:0. */
uint32_t a64_mpidr_hw_id(uint64_t mpidr);

#endif
