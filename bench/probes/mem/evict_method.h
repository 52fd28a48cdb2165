/* How the cachefill probe makes a fill cold: a whole-cache write-back-and-invalidate only where
 * it is known to reach every level (x86 bare metal without a hypervisor: WBINVD), eviction by
 * address of the buffer about to be filled where a hypervisor may ignore whole-cache operations
 * (KVM makes WBINVD a no-op without non-coherent DMA and honours only the first set/way
 * operation of a guest) and always on AArch64 (set/way never reaches a system cache), and,
 * without privilege (hosted), a walk over a buffer twice the largest cache. */
#ifndef BENCH_EVICT_METHOD_H
#define BENCH_EVICT_METHOD_H

#include <stdbool.h>
#include <stdint.h>

enum evict_method { EVICT_FLUSH_ALL, EVICT_BY_ADDRESS, EVICT_WALK };

/* privileged: bare metal (cache maintenance allowed); hypervisor: CPUID / the platform says one
 * is present; flush_all_trusted: the CPU's whole-cache operation reaches every level on bare
 * metal (ARCH_CACHE_FLUSH_ALL_TRUSTED). */
enum evict_method evict_method_choose(bool privileged, bool hypervisor, bool flush_all_trusted);

/* The check that the eviction worked, from one level's cold and warm medians: "pass" when cold
 * is slower; "skip" (*why set) on a CPU that models no caches (unmodelled: its reason) or, for
 * the last level, when warm is no faster: a random chain of the whole last level is not resident
 * warm either (a cache shared with other cores, or with a hypervisor's other guests), so there
 * the levels below judge the method; else "fail". */
/* The walk (EVICT_WALK): EVICT_WALK_FACTOR x the largest cache, capped to what the arena holds
 * beside the chain of the largest level it can still evict (2/3 of `free_bytes`: a level of at
 * most half the walk then fits in the third left), rounded down to pages; *capped says when it is
 * smaller than wanted. 0: no room at all. */
#define EVICT_WALK_FACTOR 2
#define EVICT_WALK_ALIGN 4096
uint64_t evict_walk_size(uint64_t largest, uint64_t free_bytes, bool *capped);
/* Whether a walk of `walk` bytes evicts a level of `size` bytes: it must cover the level
 * EVICT_WALK_FACTOR times, as the method was designed (every set sees twice its ways in new lines,
 * so even a replacement that is not LRU keeps few old ones); a capped walk still evicts the
 * levels small enough, and a larger one is skipped, saying so. */
bool evict_walk_covers(uint64_t walk, uint64_t size);

const char *evict_check_status(uint64_t cold, uint64_t warm, bool last_level, const char *unmodelled,
			       const char **why);

#endif
