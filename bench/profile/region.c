/* The profile's measured region (see region.h). */
#include "bench/profile/region.h"

void prof_region_sink(void *ctx, const struct prof_entry *e, uint32_t n)
{
	struct prof_region_sink *s = ctx;

	for (uint32_t i = 0; i < n; i++) {
		struct prof_entry x = e[i];

		if (x.event != PROF_EVENT_OUTSIDE) {
			prof_agg_sink(s->agg, &x, 1);
		} else if (!s->marked) { /* marked: dropped, the handler counted them apart */
			x.event = 0;
			prof_agg_sink(s->agg, &x, 1);
		}
	}
}
