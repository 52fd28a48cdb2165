/* The cachefill probe's eviction method (see evict_method.h). */
#include "bench/probes/mem/evict_method.h"

enum evict_method evict_method_choose(bool privileged, bool hypervisor, bool flush_all_trusted)
{
	if (!privileged)
		return EVICT_WALK;
	return flush_all_trusted && !hypervisor ? EVICT_FLUSH_ALL : EVICT_BY_ADDRESS;
}

uint64_t evict_walk_size(uint64_t largest, uint64_t free_bytes, bool *capped)
{
	uint64_t want = largest * EVICT_WALK_FACTOR, room = free_bytes / 3 * 2, walk = want < room ? want : room;

	walk = walk / EVICT_WALK_ALIGN * EVICT_WALK_ALIGN;
	*capped = walk < want;
	return walk;
}

bool evict_walk_covers(uint64_t walk, uint64_t size)
{
	return size && walk / EVICT_WALK_FACTOR >= size;
}

const char *evict_check_status(uint64_t cold, uint64_t warm, bool last_level, const char *unmodelled,
			       const char **why)
{
	*why = 0;
	if (unmodelled) {
		*why = unmodelled;
		return "skip";
	}
	if (cold > warm)
		return "pass";
	if (last_level) {
		*why = "the last level's warm fill is no faster than its cold one: the whole level is not "
		       "resident (shared with other cores or guests); the levels below judge the eviction";
		return "skip";
	}
	return "fail";
}
