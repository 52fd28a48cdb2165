/* The sampling profiler's interrupt sources (DCPI section 4.1), behind one interface so that the
 * profiler (bench/profile/profile.c) builds bare metal and hosted:
 *  - bare metal (efi/x86_64/prof_sampler.c): counter overflow through the local APIC's
 *    performance-counter LVT where a PMU counts (arch/x86_64/pmu_pmi.h), else the local APIC
 *    one-shot timer re-armed with a randomised delay (time-based sampling);
 *  - hosted (hosted/prof_sampler.c): perf_event_open sampling where the kernel has a PMU, else the
 *    per-thread CPU clock (perf's task-clock, else timer_create(CLOCK_THREAD_CPUTIME_ID)).
 * Every sample calls the hit function from interrupt (signal) context with the interrupted PC;
 * the period is drawn anew per sample (bench/profile/period.h). */
#ifndef DRIVERS_PROF_SAMPLER_H
#define DRIVERS_PROF_SAMPLER_H

#include <stdbool.h>
#include <stdint.h>

struct probe_env;

enum prof_source {
	PROF_SRC_AUTO,    /* the counter where one counts, else time */
	PROF_SRC_PMU,     /* counter overflow (bare metal PMI, hosted perf_event hardware counter) */
	PROF_SRC_TIMER,   /* time: APIC one-shot timer (bare metal), CPU-time clock (hosted) */
};

/* Called in interrupt context, interrupts masked: cpu is the profiler's CPU index (0 = the one
 * that runs the probes), entry_cycles the TSC the interrupt entry read first. */
typedef void (*prof_hit_fn)(void *ctx, unsigned cpu, uint64_t pc, uint64_t entry_cycles);

struct prof_sampler_req {
	enum prof_source source;
	const char *event;  /* counter event name (PMU source); "cycles" by default */
	uint64_t period;    /* events (PMU) or ns (time); 0 = the default of the source chosen */
	uint64_t seed;      /* of the period randomisation */
	prof_hit_fn hit;
	void *ctx;
};

struct prof_sampler_info {
	const char *source;   /* "pmi", "timer" (bare metal); "perf", "task_clock", "cputime_timer" (hosted) */
	const char *event;    /* the event sampled: an event name, or "time" */
	const char *unit;     /* "events" or "ns" */
	uint64_t period;      /* the nominal period, and the window it is drawn from */
	uint64_t period_min, period_max;
	const char *fallback; /* why a PMU source was not used, or NULL */
	unsigned cpus;        /* CPUs that can sample (1: the probe CPU only; more: APs in smp_run_all jobs) */
};

#define PROF_DEFAULT_PERIOD_EVENTS 65536ull /* DCPI's 60K..64K */
#define PROF_DEFAULT_PERIOD_NS 250000ull    /* 4 kHz, perf's default rate */

/* Choose and arm the source; sampling starts at once (interrupts must be enabled by the caller
 * for samples to be taken). False with *why when no source can sample here. */
bool prof_sampler_start(struct probe_env *env, const struct prof_sampler_req *req, struct prof_sampler_info *out,
			const char **why);
/* Stop sampling and put back what start changed; safe to call when start failed. */
void prof_sampler_stop(void);
/* On an application processor, around its share of an smp_run_all job (smp_set_all_hooks),
 * interrupts masked before and after: sample that CPU too (its own timer or counter, its own
 * period sequence), and stop again. False where this source or build cannot sample other CPUs. */
bool prof_sampler_cpu_begin(unsigned cpu);
void prof_sampler_cpu_end(unsigned cpu);
/* TSC at the end of the last completed sample handler of `cpu` (0 = none yet): with the entry
 * TSC of that sample it gives the handler's own cost (without the EOI and the return). */
uint64_t prof_sampler_last_exit_cycles(unsigned cpu);
/* The interrupted code may run with interrupts enabled (bare metal: sti around the probe); the
 * hosted build needs nothing. */
void prof_sampler_window_open(void);
void prof_sampler_window_close(void);

/* The running image, so the host can map PCs to the ELF: its first byte's run-time address
 * (ELF address = pc - base), its size, and the GNU build id in hex ("unknown" when the image
 * carries none). Bare metal: efi/image_id.c (the linker script's ImageBase and the build-id
 * note); hosted: the executable's load base and note (hosted/prof_image.c). */
#define PROF_BUILD_ID_HEX_MAX 41 /* 20 bytes of SHA-1 in hex, NUL */
bool prof_image_info(uint64_t *base, uint64_t *size, char *build_id_hex, unsigned len);

#endif
