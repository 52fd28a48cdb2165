/* Probe `noise`: platform noise, hwlat-style. With every interrupt masked (bare metal; the hosted
 * build cannot mask them and says so), spin on the TSC for noise_ms and record each step between
 * consecutive readings longer than the threshold (noise_threshold_ns, default 10x the loop step
 * measured first, its 90th percentile: gap_detect.h says why): time the CPU spent elsewhere. The threshold is stated in ns next to
 * hwlat's default of 10 us (ours is far lower by default: a loop step of tens of cycles). On Intel
 * the SMI count (MSR 0x34) is read before and after, and again right after each detected gap, so
 * each gap can be laid at an SMI's door (the count rose since the previous gap's reading) or not;
 * the read's own time is kept out of the next step. Emitted: the loop-step calibration samples,
 * per gap its start (cycles from the window start) and length, and where SMIs are counted the SMI
 * count (since the window start) read after each gap; count, total and longest in the probe
 * record. */
/* OPT_FAST: -O2 (Makefile): timed window or what runs inside one. */
#include "arch/cycles.h"
#include "arch/cpu_info.h"
#include "arch/irq.h"
#include "bench/stats/gap_detect.h"
#include "bench/core/probe.h"
#include "lib/emit.h"
#include "lib/sort.h"

#define CAL_STEPS 1024
#define MAX_GAPS 65536
#define HWLAT_DEFAULT_NS 10000 /* Linux hwlat tracer's default threshold, for comparison */
#define NS_PER_S 1000000000ull

static bool read_smi(const struct probe_env *env, uint64_t *v)
{
	return arch_smi_count(env->cpu, v);
}

static void emit_noise_set(struct probe_env *env, const char *what, const uint64_t *v, uint64_t n,
			   const struct gap_detector *d, uint64_t window, const uint64_t step[2], bool masked,
			   bool smi_ok, uint64_t smi0, uint64_t smi1)
{
	struct record *r;
	uint32_t set = probe_declare_set(env, &r, "noise", n, 1, 0);

	rec_str(r, "what", what);
	rec_u64(r, "window_cycles", window);
	rec_u64(r, "median_step_cycles", step[0]);
	rec_u64(r, "p90_step_cycles", step[1]);
	rec_u64(r, "threshold_cycles", d->threshold);
	rec_str(r, "threshold_source", env->cfg->noise_threshold_ns ? "config" : "10x_p90_step");
	rec_u64(r, "threshold_ns", d->threshold * NS_PER_S / env->counter_hz);
	rec_u64(r, "hwlat_default_ns", HWLAT_DEFAULT_NS);
	rec_u64(r, "steps", d->steps);
	rec_u64(r, "count", d->count);
	rec_u64(r, "total_cycles", d->total);
	rec_u64(r, "longest_cycles", d->longest);
	rec_u64(r, "dropped", d->dropped);
	rec_bool(r, "irq_masked", masked);
	if (!masked)
		rec_str(r, "irq_note", "interrupts not maskable here (user space): gaps include them");
	if (smi_ok) {
		rec_u64(r, "smi_before", smi0);
		rec_u64(r, "smi_after", smi1);
		rec_u64(r, "smi_count", arch_smi_delta(smi0, smi1));
		rec_str(r, "smi_per_gap", "read after each gap (set what=gap_smi)");
		if (env->cpu->hypervisor && !smi1)
			rec_str(r, "smi_note", "reads 0 under a hypervisor, which may not implement MSR_SMI_COUNT");
	} else {
		rec_str(r, "smi", env->cpu->is_intel ? "unreadable" : "not_intel");
	}
	if (env->cpu->hypervisor)
		rec_str(r, "note", "under a hypervisor: gaps include the host's scheduling and exits");
	emit_finish();
	emit_samples(set, v, n);
}

static enum probe_status noise_run(struct probe_env *env)
{
	uint64_t *cal = probe_sample_buffer(env, CAL_STEPS), *starts = probe_sample_buffer(env, MAX_GAPS);
	uint64_t *lens = probe_sample_buffer(env, MAX_GAPS), *sorted = probe_sample_buffer(env, CAL_STEPS);
	uint64_t *smis = probe_sample_buffer(env, MAX_GAPS), seen = 0;
	uint64_t window, step[2], threshold, prev, smi0 = 0, smi1 = 0, t0, saved;
	struct gap_detector d;
	bool smi_ok, masked = irq_maskable();

	if (!cal || !starts || !lens || !sorted || !smis) {
		emit_skip("noise", "gap buffers do not fit in the arena");
		return PROBE_SKIPPED;
	}
	if (!env->counter_hz) {
		emit_skip("noise", "TSC frequency unknown: the window cannot be timed");
		return PROBE_SKIPPED;
	}
	window = env->cfg->noise_ms * (env->counter_hz / 1000);
	saved = irq_save_disable();
	/* The loop's own step, measured the same way (warm-up lap first). */
	for (int lapn = 0; lapn < 2; lapn++) {
		prev = cycles_read();
		for (unsigned i = 0; i < CAL_STEPS; i++) {
			uint64_t now = cycles_read();

			cal[i] = now - prev;
			prev = now;
		}
	}
	for (unsigned i = 0; i < CAL_STEPS; i++)
		sorted[i] = cal[i];
	step[0] = median_u64(sorted, CAL_STEPS);
	step[1] = gap_loop_step(sorted, CAL_STEPS);
	threshold = gap_threshold(step[1], env->cfg->noise_threshold_ns * (env->counter_hz / 1000000) / 1000);
	smi_ok = read_smi(env, &smi0);
	t0 = cycles_read();
	gap_init(&d, starts, lens, MAX_GAPS, threshold, t0);
	for (;;) {
		uint64_t now = cycles_read();

		gap_feed(&d, now);
		if (smi_ok && d.stored != seen) { /* a gap was just stored */
			seen = d.stored;
			smi_ok = read_smi(env, &smis[seen - 1]); /* a failed read: no SMI figures at all */
			smis[seen - 1] = arch_smi_delta(smi0, smis[seen - 1]); /* 32 bits: may wrap */
			d.prev = cycles_read(); /* the read is ours, not a gap */
		}
		if (now - t0 >= window)
			break;
	}
	smi_ok = smi_ok && read_smi(env, &smi1);
	irq_restore(saved);
	emit_noise_set(env, "loop_step", cal, CAL_STEPS, &d, window, step, masked, smi_ok, smi0, smi1);
	emit_noise_set(env, "gap_start", starts, d.stored, &d, window, step, masked, smi_ok, smi0, smi1);
	emit_noise_set(env, "gap_len", lens, d.stored, &d, window, step, masked, smi_ok, smi0, smi1);
	if (smi_ok)
		emit_noise_set(env, "gap_smi", smis, d.stored, &d, window, step, masked, smi_ok, smi0, smi1);
	return PROBE_OK;
}

const struct probe_desc probe_noise = {
	.name = "noise",
	.what = "platform noise: gaps in a masked TSC spin (hwlat-style), SMI count on Intel",
	.run = noise_run,
	.options = "noise_ms,noise_threshold_ns",
	.unprofiled = "the probe masks interrupts for its whole window: no sample could land",
};
