/* The interrupt-source contract between the interrupt probes (bench/probes/irq/) and the
 * profiler on one side and each environment on the other: efi/x86_64/irq_platform.c (the PC's
 * local APIC, I/O APIC, HPET and PIC), efi/aarch64/irq_platform.c (GICv3 and the generic timers)
 * and hosted/irq_sources.c (POSIX timers and signals). struct irq_platform is each environment's
 * own (efi/<cpu>/irq_platform.h, hosted/irq_hosted.h): bench only holds a pointer to it and reads
 * it through the functions below, so no CPU's interrupt controller shows through here.
 *
 * The accessors that only read what every environment holds are one neutral unit,
 * bench/core/irq_platform.c (struct irq_platform_common, below); the rest are the environment's.
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

/* The sources by role; each environment's header says what stands in for each (which of its parts:
 * the CPU-specific names live in its own folder) and which it lacks (irq_source_unavailable). */
enum irq_source {
	IRQ_SRC_ONESHOT_TIMER,  /* a per-CPU timer, one interrupt after a delay */
	IRQ_SRC_DEADLINE_TIMER, /* a per-CPU timer that fires at a value of the cycle counter itself */
	IRQ_SRC_PERIODIC_TIMER, /* a per-CPU timer, one interrupt per period */
	IRQ_SRC_SELF_IPI,       /* an interprocessor interrupt this CPU sends itself */
	IRQ_SRC_PLATFORM_TIMER, /* a timer outside the CPU, one-shot, routed to it */
	IRQ_NUM_SOURCES,
};

/* What every environment's platform holds, first in its struct irq_platform (IRQ_PLATFORM_HEAD):
 * bench/core/irq_platform.c answers the accessors below from it, and the environment's hooks add
 * what only its hardware has to the records. */
#define IRQ_PLATFORM_COMMON_FIELDS                                                                    \
	bool ready;                  /* the sources could be set up */                                  \
	const char *reason;          /* why not ready */                                                \
	bool oneshot_per_vector;     /* irq_platform_oneshot_per_vector */                              \
	uint64_t arm_uncertainty;    /* the last irq_source_arm's deadline uncertainty, +- cycles */     \
	uint64_t timer_hz;           /* the per-CPU timer's ticks per second (records: timer_hz) */      \
	uint64_t timer_tick_cycles;  /* one per-CPU timer tick in cycles, rounded up; 0: exact */        \
	uint64_t platform_tick_cycles; /* one platform-timer tick in cycles, rounded up; 0: exact/none */ \
	/* the interrupt controller's mode for irq_platform_describe; NULL: none to name */             \
	void (*describe_mode)(const struct irq_platform *p, struct record *r);                          \
	/* the platform timer's fields for irq_source_describe; NULL: no platform timer */              \
	void (*describe_platform_timer)(const struct irq_platform *p, struct record *r);
struct irq_platform_common {
	IRQ_PLATFORM_COMMON_FIELDS
};
/* The first member of every struct irq_platform: the fields by name (p->ready) and as one neutral
 * struct (p->common, which is where a pointer to the platform points). */
#define IRQ_PLATFORM_HEAD                            \
	union {                                      \
		struct irq_platform_common common;   \
		struct {                             \
			IRQ_PLATFORM_COMMON_FIELDS   \
		};                                   \
	}

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
 * interrupt controller's mode (after the record's `deadline`: the environment's describe_mode),
 * and the clock behind source s (after `vector`: `timer_hz` for the one-shot and periodic timer;
 * the platform timer's own fields: describe_platform_timer). */
void irq_platform_describe(const struct irq_platform *p, struct record *r);
void irq_source_describe(const struct irq_platform *p, enum irq_source s, struct record *r);

/* Each environment's names of its sources (the records' `source`) and of how irq_source_arm's
 * deadline is known (the `deadline` field of latency records), by enum irq_source. */
extern const char *const irq_source_names[IRQ_NUM_SOURCES];
extern const char *const irq_deadline_names[IRQ_NUM_SOURCES];
/* Those names, "unknown" for a value out of range. */
const char *irq_source_name(enum irq_source s);
const char *irq_source_deadline(enum irq_source s);
/* NULL when the source can be used, else why not. */
const char *irq_source_unavailable(const struct irq_platform *p, enum irq_source s);
/* Route/program the source for `vector` (masked until armed). */
void irq_source_prepare(struct irq_platform *p, enum irq_source s, uint8_t vector);
/* One interrupt `delay_cycles` of the cycle counter from now (the IPI: now). Returns the deadline,
 * or 0 when the source could not be armed (a platform timer's comparator found passed at every try: the
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
