/* A walk of the stage-1 translation tables the firmware left for the lower VA range (TTBR0_EL1,
 * TCR_EL1), as a pure function over a descriptor reader, so the unit tests run it on synthetic
 * tables: which granule, how many VA bits, and what maps one address (a page or a block, its
 * size, its memory attribute index). Long-descriptor format, 4K/16K/64K granules, 48-bit output
 * addresses (FEAT_LPA's 52-bit forms are not decoded). */
#ifndef ARCH_AARCH64_WALK_H
#define ARCH_AARCH64_WALK_H

#include <stdbool.h>
#include <stdint.h>

/* Reads the 64-bit descriptor at physical address pa (bare metal: the identity map). */
typedef uint64_t (*a64_desc_read_fn)(void *ctx, uint64_t pa);
/* The firmware's reader: the tables where UEFI's identity map puts them (ctx unused). */
uint64_t a64_desc_read_identity(void *ctx, uint64_t pa);

struct a64_walk {
	unsigned granule_shift; /* 12 (4K), 14 (16K), 16 (64K); 0 = TCR's TG0 is reserved */
	unsigned va_bits;       /* 64 - TCR_EL1.T0SZ */
	unsigned start_level;
	bool mapped;
	unsigned level;         /* where the walk ended */
	uint64_t map_bytes;     /* size of the page or block mapping the address */
	unsigned attr_index;    /* the descriptor's AttrIndx (selects a MAIR_EL1 byte) */
	uint64_t desc;          /* the final descriptor */
};

#define A64_MAX_LEVELS 4

/* false when the TCR says the walk is disabled (EPD0) or the address is outside the range. */
bool a64_walk(uint64_t ttbr0, uint64_t tcr, uint64_t va, a64_desc_read_fn rd, void *ctx,
	      struct a64_walk *out);
/* "4K", "16K", "64K", "2M", "32M", "512M", "1G", ...; NULL for a size it does not name. */
const char *a64_size_name(uint64_t bytes);

#endif
