/* The interrupt-source contract between the interrupt probes (bench/probes/irq/) and the
 * profiler on one side and each environment on the other: efi/x86_64/irq_platform.c (the PC's
 * local APIC, I/O APIC, HPET and PIC), efi/aarch64/irq_platform.c (GICv3 and the generic timers)
 * and hosted/irq_sources.c (POSIX timers and signals). struct irq_platform is each environment's
 * own (efi/<cpu>/irq_platform.h, hosted/irq_hosted.h): bench only holds a pointer to it and reads
 * it through the functions below, so no CPU's interrupt controller shows through here.
 *
 * The environment's set-up masks every source the firmware may have left live and records what it
 * found; a probe then prepares one source, arms it interrupt by interrupt, and releases (re-masks)
 * it when done. Deadlines and uncertainties are in cycle-counter units (arch/cycles.h):
 * irq_source_arm returns the counter value at which the interrupt is due and
 * irq_platform_arm_uncertainty how far off that can be; each environment's header says how its
 * sources' deadlines are known. */
#ifndef BENCH_CORE_IRQ_PLATFORM_H
#define BENCH_CORE_IRQ_PLATFORM_H

#include <stdbool.h>
#include <stdint.h>

struct irq_platform; /* the environment's own */
struct record;       /* lib/record.h */

/* The sources by what they are on a PC; each environment's header says what stands in for each
 * (and which it lacks: irq_source_unavailable). */
enum irq_source {
	IRQ_SRC_APIC_ONESHOT,  /* local APIC timer, one-shot count */
	IRQ_SRC_APIC_DEADLINE, /* local APIC timer, TSC-deadline mode */
	IRQ_SRC_APIC_PERIODIC, /* local APIC timer, periodic */
	IRQ_SRC_SELF_IPI,      /* ICR self shorthand / SELF IPI MSR */
	IRQ_SRC_HPET,          /* HPET comparator, one-shot, through the I/O APIC */
	IRQ_NUM_SOURCES,
};

/* Whether the sources could be set up; if not and why is not NULL, *why = the reason (NULL when
 * none was recorded). */
bool irq_platform_ready(const struct irq_platform *p, const char **why);
/* Each vector has a one-shot timer of its own (hosted: a POSIX timer per signal; AArch64: the
 * physical timer on the guard vector), so a second one-shot on the guard vector can bound a hlt
 * wait on the one-shot (PC: false). */
bool irq_platform_oneshot_per_vector(const struct irq_platform *p);
/* The last irq_source_arm's deadline uncertainty, +- cycles. */
uint64_t irq_platform_arm_uncertainty(const struct irq_platform *p);
/* One tick of the clock behind source s in cycles, rounded up (how much earlier than its deadline
 * an interrupt may be quantised); 0 where the deadline is exact or there is no tick. */
uint64_t irq_source_tick_cycles(const struct irq_platform *p, enum irq_source s);

/* The fields a source's record carries about the platform and the source, added in place: the
 * interrupt controller's mode (after the record's `deadline`; PC: `lapic_mode`), and the clock
 * behind source s (after `vector`: `timer_hz` for the one-shot and periodic timer; PC's HPET:
 * `hpet_hz`, `hpet_hz_calibrated`, `hpet_timer`, `gsi`, `hpet_rearms`, `hpet_arms_missed`). */
void irq_platform_describe(const struct irq_platform *p, struct record *r);
void irq_source_describe(const struct irq_platform *p, enum irq_source s, struct record *r);

const char *irq_source_name(enum irq_source s);
/* How irq_source_arm's deadline is known (the `deadline` field of latency records). */
const char *irq_source_deadline(enum irq_source s);
/* NULL when the source can be used, else why not. */
const char *irq_source_unavailable(const struct irq_platform *p, enum irq_source s);
/* Route/program the source for `vector` (masked until armed). */
void irq_source_prepare(struct irq_platform *p, enum irq_source s, uint8_t vector);
/* One interrupt `delay_cycles` of the cycle counter from now (the IPI: now). Returns the deadline,
 * or 0 when the source could not be armed (a PC's HPET comparator found passed at every try: the
 * environment's header says when): no interrupt is to come and the caller may arm again;
 * *arm_cycles: how long the arming write took (the deadline's uncertainty). */
uint64_t irq_source_arm(struct irq_platform *p, enum irq_source s, uint8_t vector, uint64_t delay_cycles,
			uint64_t *arm_cycles);
/* Cancel a pending arm (a wait that timed out). */
void irq_source_disarm(struct irq_platform *p, enum irq_source s, uint8_t vector);
/* Stop and mask the source again. */
void irq_source_release(struct irq_platform *p, enum irq_source s, uint8_t vector);

/* Periodic timer: start with a period of about period_cycles; returns the period in cycles as
 * programmed (whole timer ticks), 0 if not possible. */
uint64_t irq_periodic_start(struct irq_platform *p, uint8_t vector, uint64_t period_cycles);
/* From inside the handler: the counter value at which the current period began (the last
 * expiry), and unless NULL *uncertainty (+- cycles). */
uint64_t irq_periodic_expiry(const struct irq_platform *p, uint64_t *uncertainty);

/* Nothing armed and nothing left over: every timer masked, no vector pending or in service at
 * the interrupt controller. What every probe finds and leaves. */
bool irq_platform_quiet(const struct irq_platform *p);

/* Pending and in-service state at the interrupt controller. irq_vector_pending: the vector is
 * accepted, not yet delivered (interrupts are masked, or something of higher priority is in
 * service) — a probe checks it before opening a window for an interrupt it has just sent.
 * irq_platform_stale: vectors pending or (in_service) in service. */
bool irq_vector_pending(const struct irq_platform *p, uint8_t vector);
unsigned irq_platform_stale(const struct irq_platform *p, bool in_service);
/* EOI every vector still in service (a handler abandoned by a fault never sent its EOI, which
 * blocks every vector of its priority class and below); returns how many were. Pending vectors
 * can only be cleared by taking them: that is the caller's window (irq_drain). */
unsigned irq_platform_eoi_in_service(struct irq_platform *p);

/* The EOI callback for irq_set_eoi (ctx = the platform). */
void irq_platform_eoi(void *ctx);

#endif
