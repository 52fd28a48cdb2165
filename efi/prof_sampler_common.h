/* The bare-metal profiler's sampling sources (bench/profile/sampler.h), CPU-neutral: this unit
 * (efi/prof_sampler_common.c) keeps the profiler's state (per CPU, from the probe's arena), the
 * timer source whole (the one-shot timer by its role, re-armed from its handler with a freshly drawn
 * delay), the overflow handler's bookkeeping, the choice between counter overflow and the timer,
 * the start, stop, drain and the application processors' begin/end. Each CPU's port
 * (efi/<cpu>/prof_sampler.c) supplies only the hardware steps of counter overflow and of bringing an
 * application processor's interrupt path up and down, handed to prof_sampler_start_on below. */
#ifndef EFI_PROF_SAMPLER_COMMON_H
#define EFI_PROF_SAMPLER_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bench/core/irq_platform.h"
#include "bench/profile/period.h"
#include "bench/profile/sampler.h"

/* As on every port: a shorter timer period would leave the probe no time (the handler takes some
 * microseconds under TCG). */
#define PROF_MIN_PERIOD_NS 2000ull
/* How long a stop waits for a sample requested before it, to take it there. */
#define PROF_STOP_DRAIN_US 2000ull

/* What each sampling CPU's handler writes: its own line(s). */
struct prof_cpu {
	struct prof_period per;
	volatile uint64_t exit_cycles; /* end of the last handler */
	volatile bool rearm;           /* cleared by stop: the handler then no longer re-arms */
	bool on;
	void *port;                    /* the port's own state for this CPU (port_bytes of it) */
} __attribute__((aligned(64)));

/* The hardware steps of one port. `pmi` says which source runs (counter overflow, else the timer).
 * Every step gets the platform the probe runs on (env->irq). */
struct prof_sampler_ops {
	size_t port_bytes; /* the port's per-CPU state (struct prof_cpu.port), 0 for none */
	bool pmi_on_aps;   /* application processors sample counter overflow too */
	/* Boot CPU, the profiler's handler registered: check the PMU can sample `event`, set it up,
	 * keep its counters from counter sets, route its interrupt. On refusal undo it all, *why. */
	bool (*pmi_start)(struct irq_platform *p, struct probe_env *env, struct prof_cpu *c, const char *event,
			  const char **why);
	/* Load the first period (of this CPU's counter). */
	bool (*pmi_arm)(struct irq_platform *p, struct prof_cpu *c, uint64_t period, const char **why);
	/* In the handler: was this interrupt our overflow? Clear it and preload `next` (0: the sampler
	 * is stopping, the longest the port has). */
	bool (*pmi_ack)(struct irq_platform *p, struct prof_cpu *c, uint64_t next);
	/* In the handler after the sample, when re-arming (NULL: nothing to do). */
	void (*pmi_rearm)(struct irq_platform *p, struct prof_cpu *c);
	/* Boot CPU, interrupts masked: stop the counter, unroute it, take a sample still pending
	 * (prof_drain_here), release the counters. */
	void (*pmi_stop)(struct irq_platform *p, struct prof_cpu *c);
	/* On application processor `cpu`: its interrupt path ready for the source (its counters set up
	 * when pmi); false leaves it out. */
	bool (*cpu_up)(struct irq_platform *p, unsigned cpu, struct prof_cpu *c, bool pmi);
	/* On it again, interrupts masked: the source stopped, a pending sample taken, the path down. */
	void (*cpu_down)(struct irq_platform *p, unsigned cpu, struct prof_cpu *c, bool pmi);
};

/* bench/profile/sampler.h's prof_sampler_start for the port that calls it: each port's
 * prof_sampler_start (efi/<cpu>/prof_sampler.c) hands its ops here, so that this unit never names
 * a port's symbol (no call circle between the neutral unit and the ports). */
bool prof_sampler_start_on(const struct prof_sampler_ops *port, struct probe_env *env,
			   const struct prof_sampler_req *req, struct prof_sampler_info *out, const char **why);
/* A port's prof_sampler_start over its ops table `ops` (one line in each efi/<cpu>/prof_sampler.c). */
#define PROF_SAMPLER_PORT(ops)                                                                       \
	bool prof_sampler_start(struct probe_env *env, const struct prof_sampler_req *req,            \
				struct prof_sampler_info *out, const char **why)                          \
	{                                                                                           \
		return prof_sampler_start_on(&(ops), env, req, out, why);                           \
	}

/* ns in counter ticks at hz, without overflowing for any ns a run can ask for. */
uint64_t prof_ns_to_ticks(uint64_t ns, uint64_t hz);
/* Interrupts masked: while pending(arg) says a sample requested before the stop is still pending
 * here, open a short window to take it, for at most PROF_STOP_DRAIN_US (rather than leave it for a
 * later window). */
void prof_drain_pending(bool (*pending)(const void *arg), const void *arg);
/* The same with the platform's view of the profiler's vector on this CPU (irq_vector_pending). */
void prof_drain_here(void);

#endif
