/* The profiler's sampling sources in the hosted build (drivers/prof_sampler.h). Placeholder until
 * the perf_event / CPU-clock implementation lands: no source, said so. */
#include "drivers/prof_sampler.h"

#include "lib/fmt.h"

bool prof_sampler_start(struct probe_env *env, const struct prof_sampler_req *req, struct prof_sampler_info *out,
			const char **why)
{
	(void)env;
	(void)req;
	*out = (struct prof_sampler_info){ 0 };
	*why = "hosted sampling is not built yet";
	return false;
}

void prof_sampler_stop(void)
{
}

uint64_t prof_sampler_last_exit_tsc(unsigned cpu)
{
	(void)cpu;
	return 0;
}

void prof_sampler_window_open(void)
{
}

void prof_sampler_window_close(void)
{
}

bool prof_image_info(uint64_t *base, uint64_t *size, char *build_id_hex, unsigned len)
{
	*base = 0;
	*size = 0;
	str_copy(build_id_hex, "unknown", len);
	return false;
}
