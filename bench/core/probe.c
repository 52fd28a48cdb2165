/* The probe API's helpers (see probe.h): declaring a sample set, sample storage. Kept apart from
 * the suite so that the runner and the counters, which use them, depend on nothing above them. */
#include "bench/core/probe.h"

#include "bench/core/progress.h"
#include "lib/emit.h"

uint32_t probe_declare_set(struct probe_env *env, struct record **r, const char *name, uint64_t n,
			   uint64_t iters, uint64_t overhead)
{
	return probe_declare_set_unit(env, r, name, "cycles", n, iters, overhead);
}

uint32_t probe_declare_set_unit(struct probe_env *env, struct record **r, const char *name, const char *unit,
				uint64_t n, uint64_t iters, uint64_t overhead)
{
	uint32_t set = env->next_set++;

	if (!emit_muted())
		progress_set(); /* a set boundary: the measurement is over, its records not yet sent */
	*r = emit_start("probe");
	rec_str(*r, "name", name);
	rec_u64(*r, "set", set);
	rec_str(*r, "unit", unit);
	rec_u64(*r, "n", n);
	rec_u64(*r, "iters", iters);
	rec_u64(*r, "overhead", overhead);
	rec_u64(*r, "tsc_hz", env->counter_hz);
	if (env->pass)
		rec_u64(*r, "pass", env->pass); /* repeat=: the same set of another pass is another set */
	return set;
}

uint64_t *probe_sample_buffer(struct probe_env *env, uint64_t n)
{
	return arena_alloc(env->arena, n * sizeof(uint64_t), 64);
}
