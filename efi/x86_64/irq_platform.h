/* bench/core/irq_platform.h's interrupt sources on a PC, in efi/x86_64/irq_platform.c: the local
 * APIC (xAPIC or x2APIC, as the firmware left it) with its timer calibrated against the TSC, the
 * I/O APIC(s) from the MADT, the HPET's comparators routed through the I/O APIC, and the legacy
 * PIC. Init masks every source the firmware may have left live (PIC, all I/O APIC inputs, HPET
 * comparator interrupts, the LVT entries) and records what it found.
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
 *    The comparator is at least HPET_MIN_PROG_TICKS ahead; the counter is read back after the
 *    write, and an arm it shows (nearly) passed is retaken from a fresh read (drivers/timer/hpet.h),
 *    each time twice as far ahead; after HPET_ARM_TRIES the arm is given up and returns 0.
 *  - TSC-deadline: exact (the value written). Self-IPI: the TSC before the send.
 * The periodic timer's period start (irq_periodic_expiry) is the current count read between two
 * TSC reads: their midpoint minus the elapsed ticks; uncertainty the bracket's half-width plus
 * one timer tick. Pending and in service: the local APIC's IRR and ISR. */
#ifndef EFI_X86_64_IRQ_PLATFORM_H
#define EFI_X86_64_IRQ_PLATFORM_H

#include <stdbool.h>
#include <stdint.h>

#include "arch/cpu_info.h"
#include "bench/core/irq_platform.h"
#include "drivers/timer/hpet.h"
#include "drivers/irqchip/x86_64/ioapic.h"
#include "drivers/irqchip/x86_64/lapic.h"
#include "drivers/irqchip/x86_64/lapic_timer.h"
#include "drivers/fw/madt.h"
#include "drivers/irqchip/x86_64/pic.h"

#define IRQP_CAL_WINDOWS 3
#define IRQP_CAL_WINDOW_US 10000
#define IRQP_REASON_MAX 160

/* The sources by the PC's parts that stand in for each role (bench/core/irq_platform.h). */
#define IRQ_SRC_APIC_ONESHOT IRQ_SRC_ONESHOT_TIMER   /* local APIC timer, one-shot count */
#define IRQ_SRC_APIC_DEADLINE IRQ_SRC_DEADLINE_TIMER /* local APIC timer, TSC-deadline mode */
#define IRQ_SRC_APIC_PERIODIC IRQ_SRC_PERIODIC_TIMER /* local APIC timer, periodic */
#define IRQ_SRC_HPET IRQ_SRC_PLATFORM_TIMER          /* HPET comparator through the I/O APIC */

struct irq_platform {
	IRQ_PLATFORM_HEAD; /* ready, reason, timer_hz, tick cycles (HPET: platform_tick_cycles), hooks */
	/* Register access for host tests (all NULL on the machine): set before irq_platform_init. */
	const struct lapic_io *lapic_io;
	const struct ioapic_io *ioapic_io;
	const struct pic_io *pic_io;
	struct lapic lapic;
	struct lapic_lvt_state lvt;
	uint32_t apic_id;
	uint32_t apic_version;
	uint32_t svr_found;       /* spurious-vector register as the firmware left it */
	bool cpu_x2apic;          /* CPUID offers x2APIC (the mode in use is lapic.x2apic) */
	bool tsc_deadline;        /* CPUID.1:ECX.TSC_Deadline */
	bool tsc_deadline_erratum; /* refused all the same: a listed model below its microcode fix */
	const char *deadline_reason; /* why the TSC-deadline source is unavailable; NULL: it is not */
	char deadline_reason_buf[IRQP_REASON_MAX];
	uint64_t counter_hz;
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
	/* since the HPET source's last irq_source_prepare (one latency set): */
	uint64_t hpet_rearms;       /* arms retaken: the counter read back had (nearly) passed the comparator */
	uint64_t hpet_arms_missed;  /* arms given up after HPET_ARM_TRIES such tries (not armed: retaken) */
	/* periodic state */
	uint32_t periodic_ticks;
};

/* madt: parsed MADT (valid or not); hpet: a working HPET or NULL; cpu: CPUID's x2APIC and
 * TSC-deadline bits, and family, model, stepping and microcode revision for the TSC-deadline
 * errata (arch/x86_64/tsc_deadline_errata.h). Traps must be installed and interrupts masked.
 * Returns p->ready. */
bool irq_platform_init(struct irq_platform *p, const struct madt_info *madt, struct hpet *hpet,
		       const struct cpu_info *cpu, uint64_t counter_hz);

#endif
