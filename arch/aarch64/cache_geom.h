/* Which cache geometries read from CLIDR_EL1 / CCSIDR_EL1 can describe real caches. The Arm ARM
 * warns that CCSIDR_EL1 need not describe the actual cache hierarchy (its purpose is set/way
 * maintenance), and a hypervisor may stand in a geometry of its own: Linux KVM gives a guest
 * every cache as one set of one way of the smallest line (arch/arm64/kvm/sys_regs.c,
 * get_ccsidr(); before Linux 6.3 for data and unified caches only), so every level would read as
 * a 64-byte "cache". Pure, so the unit tests check it against such models on any host; cpu_info.c
 * turns the result into struct cache_desc. */
#ifndef ARCH_AARCH64_CACHE_GEOM_H
#define ARCH_AARCH64_CACHE_GEOM_H

#include <stdbool.h>
#include <stdint.h>

#include "arch/aarch64/id_decode.h"

#define A64_MAX_CACHES (2 * A64_CLIDR_LEVELS) /* separate I and D at every level */

struct a64_cache {
	unsigned level;  /* 1.. */
	unsigned ctype;  /* A64_CTYPE_INST, _DATA or _UNIFIED */
	struct a64_cache_geom g;
	uint64_t size;   /* line x ways x sets; 0 when unknown */
	const char *unknown; /* NULL, or why the geometry cannot be this cache's */
};

/* CCSIDR_EL1 of one cache, (level 1.., instruction side or not): the caller selects it through
 * CSSELR_EL1 and reads it (cpu_info.c), a test returns a model's value. */
typedef uint64_t (*a64_ccsidr_read_fn)(void *ctx, unsigned level, bool inst);

/* The caches CLIDR_EL1 lists, lowest level first (per level instruction before data), each from
 * its CCSIDR_EL1 (ccidx: FEAT_CCIDX's layout), then vetted; returns how many (at most cap). */
unsigned a64_caches_identify(struct a64_cache *out, unsigned cap, uint64_t clidr, bool ccidx, a64_ccsidr_read_fn read,
			     void *ctx);

/* Each cache whose geometry cannot be a cache gets `unknown` (the reason) and size 0: one set of
 * one way, or no more bytes than the same side's cache (data/unified, or instruction/unified)
 * one level below. */
void a64_caches_vet(struct a64_cache *caches, unsigned n);

#endif
