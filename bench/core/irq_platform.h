/* The PC's interrupt sources brought together for the probes (bare metal only): the local APIC
 * (xAPIC or x2APIC, as the firmware left it) with its timer calibrated against the TSC, the
 * I/O APIC(s) from the MADT, the HPET's comparators routed through the I/O APIC, and the legacy
 * PIC. Init masks every source the firmware may have left live (PIC, all I/O APIC inputs, HPET
 * comparator interrupts, the LVT entries) and records what it found; a probe then prepares one
 * source, arms it interrupt by interrupt, and releases (re-masks) it when done.
 *
 * Deadlines: irq_source_arm returns the TSC value at which the interrupt is due, and states in
 * p->arm_uncertainty how far off that can be (cycles, either way):
 *  - APIC one-shot: the TSC read before the count write plus the count converted with the
 *    calibrated ratio. The count starts at the write and its first decrement comes up to one tick
 *    later, so the true expiry lies in [deadline - tick_cycles, deadline + arm window]: an
 *    arrival less than one tick early is quantisation, not an early interrupt (uncertainty 0 is
 *    stated: the bound is one-sided, timer_tick_cycles).
 *  - HPET: the comparator is set from one main-counter read whose latch time is unknown; the read
 *    is bracketed by the TSC and the deadline is the bracket's midpoint plus the ticks converted
 *    with the HPET/TSC ratio calibrated at init (not the nominal period). Uncertainty: the
 *    bracket's half-width plus one HPET period (the counter value was current for up to a period).
 *  - TSC-deadline: exact (the value written). Self-IPI: the TSC before the send. */
#ifndef DRIVERS_IRQ_PLATFORM_H
#define DRIVERS_IRQ_PLATFORM_H

#include <stdbool.h>
#include <stdint.h>

#include "drivers/timer/hpet.h"
#include "drivers/irqchip/x86_64/ioapic.h"
#include "drivers/irqchip/x86_64/lapic.h"
#include "drivers/irqchip/x86_64/lapic_timer.h"
#include "drivers/fw/madt.h"
#include "drivers/irqchip/x86_64/pic.h"

#define IRQP_CAL_WINDOWS 3
#define IRQP_CAL_WINDOW_US 10000

enum irq_source {
	IRQ_SRC_APIC_ONESHOT,  /* local APIC timer, one-shot count */
	IRQ_SRC_APIC_DEADLINE, /* local APIC timer, TSC-deadline mode */
	IRQ_SRC_APIC_PERIODIC, /* local APIC timer, periodic */
	IRQ_SRC_SELF_IPI,      /* ICR self shorthand / SELF IPI MSR */
	IRQ_SRC_HPET,          /* HPET comparator, one-shot, through the I/O APIC */
	IRQ_NUM_SOURCES,
};

struct irq_platform {
	/* Register access for host tests (all NULL on the machine): set before irq_platform_init. */
	const struct lapic_io *lapic_io;
	const struct ioapic_io *ioapic_io;
	const struct pic_io *pic_io;
	bool ready;
	const char *reason;       /* why not ready */
	struct lapic lapic;
	struct lapic_lvt_state lvt;
	uint32_t apic_id;
	uint32_t apic_version;
	uint32_t svr_found;       /* spurious-vector register as the firmware left it */
	bool cpu_x2apic;          /* CPUID offers x2APIC (the mode in use is lapic.x2apic) */
	bool tsc_deadline;        /* CPUID.1:ECX.TSC_Deadline */
	uint64_t counter_hz;
	uint64_t timer_hz;        /* APIC timer ticks per second at divide 1 (median window) */
	uint64_t timer_hz_win[IRQP_CAL_WINDOWS];
	uint64_t timer_ratio_q32; /* TSC cycles per timer tick, 32.32 */
	struct pic_state pic;
	unsigned num_ioapics;
	struct ioapic ioapics[MADT_MAX_IOAPICS];
	unsigned ioapic_live_found; /* inputs the firmware had unmasked (now masked) */
	struct hpet *hpet;
	bool hpet_irq;
	const char *hpet_reason;  /* why HPET interrupts are unavailable */
	unsigned hpet_timer, hpet_gsi;
	unsigned hpet_live_found; /* comparators the firmware had enabled (now disabled) */
	uint64_t hpet_ratio_q32;  /* TSC cycles per HPET tick, 32.32 (calibrated; nominal if that failed) */
	uint64_t hpet_hz_cal;     /* HPET ticks per second against the TSC (median window), 0 = failed */
	uint64_t hpet_hz_win[IRQP_CAL_WINDOWS];
	uint64_t hpet_tick_cycles;  /* one HPET period in TSC cycles, rounded up */
	uint64_t timer_tick_cycles; /* one APIC timer tick in TSC cycles, rounded up */
	uint64_t arm_uncertainty;   /* the last irq_source_arm's deadline uncertainty, +- cycles */
	/* periodic state */
	uint32_t periodic_ticks;
	/* Each vector has a one-shot timer of its own (hosted: a POSIX timer per signal), so a second
	 * one-shot on the guard vector can bound a hlt wait on the one-shot (bare metal: false). */
	bool oneshot_per_vector;
};

/* madt: parsed MADT (valid or not); hpet: a working HPET or NULL. Traps must be installed and
 * interrupts masked. Returns p->ready. */
bool irq_platform_init(struct irq_platform *p, const struct madt_info *madt, struct hpet *hpet,
		       bool cpu_x2apic, bool cpu_tsc_deadline, uint64_t counter_hz);

const char *irq_source_name(enum irq_source s);
/* How irq_source_arm's deadline is known (the `deadline` field of latency records). */
const char *irq_source_deadline(enum irq_source s);
/* NULL when the source can be used, else why not. */
const char *irq_source_unavailable(const struct irq_platform *p, enum irq_source s);
/* Route/program the source for `vector` (masked until armed). */
void irq_source_prepare(struct irq_platform *p, enum irq_source s, uint8_t vector);
/* One interrupt `delay_cycles` of TSC from now (the IPI: now). Returns the deadline TSC;
 * *arm_cycles: how long the arming write took (the deadline's uncertainty). */
uint64_t irq_source_arm(struct irq_platform *p, enum irq_source s, uint8_t vector, uint64_t delay_cycles,
			uint64_t *arm_cycles);
/* Cancel a pending arm (a wait that timed out). */
void irq_source_disarm(struct irq_platform *p, enum irq_source s, uint8_t vector);
/* Stop and mask the source again. */
void irq_source_release(struct irq_platform *p, enum irq_source s, uint8_t vector);

/* Periodic APIC timer: start with a period of about period_cycles; returns the period in TSC
 * cycles as programmed (whole timer ticks), 0 if not possible. */
uint64_t irq_periodic_start(struct irq_platform *p, uint8_t vector, uint64_t period_cycles);
/* From inside the handler: the TSC at which the current period began (the last expiry), from the
 * current count read between two TSC reads: their midpoint minus the elapsed ticks; and, unless
 * NULL, *uncertainty (+- cycles): the bracket's half-width plus one timer tick. */
uint64_t irq_periodic_expiry(const struct irq_platform *p, uint64_t *uncertainty);

/* Nothing armed and nothing left over: the APIC timer's LVT masked, the HPET comparator's
 * interrupt off and its I/O APIC input masked, no vector pending (IRR) or in service (ISR) at the
 * local APIC. What every probe finds and leaves. */
bool irq_platform_quiet(const struct irq_platform *p);

/* Pending and in-service state at the local APIC. irq_vector_pending: the vector's IRR bit
 * (accepted, not yet delivered: interrupts are masked, or something of higher priority is in
 * service) — a probe checks it before opening a window for an interrupt it has just sent.
 * irq_platform_stale: vectors with an IRR or ISR bit set, in_service selecting which. */
bool irq_vector_pending(const struct irq_platform *p, uint8_t vector);
unsigned irq_platform_stale(const struct irq_platform *p, bool in_service);
/* EOI every vector still in service (a handler abandoned by a fault never sent its EOI, which
 * blocks every vector of its priority class and below); returns how many were. Pending (IRR)
 * vectors can only be cleared by taking them: that is the caller's window (irq_drain). */
unsigned irq_platform_eoi_in_service(struct irq_platform *p);

/* The EOI callback for irq_set_eoi (ctx = the platform). */
void irq_platform_eoi(void *ctx);

#endif
