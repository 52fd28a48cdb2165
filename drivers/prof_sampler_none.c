/* The sampling profiler's source interface (drivers/prof_sampler.h) for a build that has no
 * sampling interrupt yet (AArch64: PMUv3 overflow and the generic timer's interrupt both need the
 * GIC): no source can sample, so a probe asked to be profiled gets `skip part=profile` with this
 * reason from bench/profile.c and runs unprofiled. Never a made-up sample. */
#include "drivers/prof_sampler.h"

#include "lib/fmt.h"

#define WHY "no sampling source on this architecture yet (needs the GIC: PMU overflow or timer interrupts)"

bool prof_sampler_start(struct probe_env *env, const struct prof_sampler_req *req, struct prof_sampler_info *out,
			const char **why)
{
	(void)env;
	(void)req;
	*out = (struct prof_sampler_info){ .source = "none", .event = "none", .unit = "none" };
	*why = WHY;
	return false;
}

void prof_sampler_stop(void)
{
}

bool prof_sampler_cpu_begin(unsigned cpu)
{
	(void)cpu;
	return false;
}

void prof_sampler_cpu_end(unsigned cpu)
{
	(void)cpu;
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
