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
/* CTR_EL0: the cache geometry EL0/EL1 code needs for maintenance by address. Line sizes in bytes;
 * cwg / erg 0 when the register says "not given" or gives a reserved value (the architectural
 * maximum, 2 KiB, applies). */
struct a64_ctr {
	unsigned iminline, dminline; /* smallest I- / D-cache line of all caches the core controls */
	unsigned cwg, erg;           /* cache writeback granule, exclusives reservation granule */
	unsigned l1ip;               /* L1 I-cache policy: 0 VPIPT, 1 AIVIVT, 2 VIPT, 3 PIPT */
	bool idc, dic; /* D-clean to PoU not needed for I/D coherence; I-invalidate not needed */
};
struct a64_ctr a64_ctr_decode(uint64_t ctr);
/* The DMA buffers' alignment for this CTR_EL0: the cache writeback granule, or 128 bytes when
 * CWG is not given (Linux arm64's ARCH_DMA_MINALIGN, the largest granule cores have had). */
unsigned a64_dma_granule(uint64_t ctr);

/* The steps of making written instructions visible to the fetch for one CTR_EL0 value. */
struct a64_sync_plan {
	unsigned dc_step, ic_step; /* bytes between DC CVAU / IC IVAU; 0: that step is not needed */
};
struct a64_sync_plan a64_sync_plan(uint64_t ctr);

/* DCZID_EL0: the DC ZVA block (bytes) and whether DC ZVA is prohibited (DZP). A reserved block
 * size (BS > 9) gives block 0 and prohibited: DC ZVA is then not used. */
struct a64_dczid {
	unsigned block;
	bool prohibited;
};
struct a64_dczid a64_dczid_decode(uint64_t dczid);

/* ID_AA64PFR0_EL1.SVE != 0: the core implements SVE. */
bool a64_pfr0_sve(uint64_t id_aa64pfr0);

/* The Xt operand of DC CISW/CSW/ISW for (level 1.., way, set) of a cache with `ways` ways and
 * `line`-byte lines: way in the top bits of 31:4 (shifted by 32 - ceil(log2 ways)), set above the
 * line offset (shifted by log2 line), level - 1 in bits 3:1. */
uint64_t a64_setway_operand(unsigned level, unsigned way, unsigned set, unsigned ways, unsigned line);

/* MPIDR_EL1's affinity packed into 32 bits: Aff3 in 31:24, Aff2..Aff0 in 23:0. */
uint32_t a64_mpidr_hw_id(uint64_t mpidr);

#endif
