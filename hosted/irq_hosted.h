/* The hosted (Linux user-space) stand-ins for interrupts, shared by hosted/irq_signal.c (the
 * arch/irq.h interface: handlers by vector, masking, the "hlt" wait, exception hooks, all
 * with signals), hosted/irq_sources.c (the bench/core/irq_platform.h sources: POSIX timers and
 * tgkill) and hosted/irq_facts.c (the `plat kind=irq_hosted` record).
 *
 * Each probe vector is carried by one real-time signal of its own, delivered to the main
 * thread only (timers with SIGEV_THREAD_ID, tgkill). "Interrupts masked" = those signals blocked
 * in the main thread (the state outside a probe's window, as on bare metal); a handler runs with
 * all of them blocked. */
#ifndef HOSTED_IRQ_HOSTED_H
#define HOSTED_IRQ_HOSTED_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "bench/probes/irq/common.h"
#include "bench/core/irq_platform.h"

/* bench/core/irq_platform.h's platform here: the POSIX timers themselves are hosted/irq_sources.c's. */
struct irq_platform {
	IRQ_PLATFORM_HEAD;        /* timer_hz: the POSIX timers are programmed in ns; a POSIX timer per
				   * vector slot; no tick (the kernel fires at or after the expiry) */
	uint64_t counter_hz;      /* the calibrated TSC rate: converts to and from ns */
	uint64_t timer_ratio_q32; /* TSC cycles per ns, 32.32 */
};

/* The probe vectors that have a signal (IRQ_VEC_MEASURE, IRQ_VEC_GUARD, IRQ_VEC_IPI). */
#define HOSTED_IRQ_SLOTS 3

/* Install the signal handlers and block the signals in the calling (main) thread: call before
 * any other thread exists, so none of them ever unblocks one. False (with *why) on failure. */
bool hosted_irq_signals_init(const char **why);
/* The signal carrying `vector`, 0 if none does; the slot (0..HOSTED_IRQ_SLOTS-1) or -1. */
int hosted_irq_signal(unsigned vector);
int hosted_irq_slot(unsigned vector);
unsigned hosted_irq_slot_vector(unsigned slot);
/* The thread the signals are delivered to (the main thread, set by hosted_irq_signals_init). */
pid_t hosted_irq_tid(void);
/* Handlers of ours running right now (the hosted "in service"). */
unsigned hosted_irq_in_handler(void);

/* The sources: one POSIX timer (CLOCK_MONOTONIC, SIGEV_THREAD_ID) per vector slot. p->ready on
 * success, else p->reason. counter_hz: the calibrated TSC rate that converts to and from ns. */
bool hosted_irq_sources_init(struct irq_platform *p, uint64_t counter_hz);
/* For the facts: the CLOCK_MONOTONIC resolution the kernel states (ns). */
uint64_t hosted_irq_clock_res_ns(void);

/* plat kind=irq_hosted: what stands in for what (signals, clocks), the kernel's timer slack,
 * page-table isolation, the clock source, what the set-up drain found. */
void hosted_irq_emit_facts(const struct irq_platform *p, const struct irq_drain_stats *drained);

#endif
