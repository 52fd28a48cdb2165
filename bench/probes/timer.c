/* Probe `timer`: the cost and resolution of every way of reading the cycle counter, as raw samples
 * of back-to-back read differences (Linux and the Alpha; hbench-OS 2.2.1). Collected first into
 * memory, emitted after the loop, so emitting cannot disturb the measurement. One warm-up pass per
 * method: the first reads are cold. */
/* OPT_FAST: -O2 (Makefile): timed window or what runs inside one. */
#include "arch/cycles.h"
#include "bench/core/probe.h"
#include "bench/core/summary.h"
#include "lib/emit.h"
#include "lib/fmt.h"
#include "lib/sort.h"

static enum probe_status timer_run(struct probe_env *env)
{
	uint64_t n = env->cfg->timer_samples;
	uint64_t *v = probe_sample_buffer(env, n);
	uint64_t *sorted = probe_sample_buffer(env, n);
	enum cycles_method m;

	if (!v || !sorted) {
		emit_skip("timer", "sample buffers do not fit in the arena (raise arena_mb)");
		return PROBE_SKIPPED;
	}
	for (m = 0; m < CYCLES_NUM_METHODS; m++) {
		const char *why = cycles_method_unavailable(m);
		struct record *r;
		uint32_t set;
		char line[96];
		struct sbuf sb;

		if (why) {
			r = emit_start("skip");
			rec_str(r, "probe", "timer");
			rec_str(r, "method", cycles_method_name(m));
			rec_str(r, "reason", why);
			emit_finish();
			continue;
		}
		cycles_b2b_samples(m, v, n); /* warm-up */
		cycles_b2b_samples(m, v, n);
		set = probe_declare_set_unit(env, &r, "timer", cycles_method_unit(m), n, 1, 0);
		rec_str(r, "method", cycles_method_name(m));
		emit_finish();
		emit_samples(set, v, n);

		for (uint64_t i = 0; i < n; i++)
			sorted[i] = v[i];
		sb_init(&sb, line, sizeof(line));
		sb_puts(&sb, "timer ");
		sb_puts(&sb, cycles_method_name(m));
		sb_puts(&sb, ": median ");
		sb_u64(&sb, median_u64(sorted, n));
		sb_puts(&sb, " cycles, min ");
		sb_u64(&sb, sorted[0]);
		summary_line(line);
	}
	return PROBE_OK;
}

const struct probe_desc probe_timer = {
	.name = "timer",
	.what = "cost of each cycle-counter read method (back-to-back differences)",
	.run = timer_run,
	.options = "timer_samples",
};
