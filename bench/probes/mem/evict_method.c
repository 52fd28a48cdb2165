/* The cachefill probe's eviction method (see evict_method.h). */
#include "bench/probes/mem/evict_method.h"

enum evict_method evict_method_choose(bool privileged, bool hypervisor, bool flush_all_trusted)
{
	if (!privileged)
		return EVICT_WALK;
	return flush_all_trusted && !hypervisor ? EVICT_FLUSH_ALL : EVICT_BY_ADDRESS;
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
