/* bench/core/irq_platform.h's interrupt sources on AArch64 (a GICv3 or a GICv2, and the EL1
 * generic timers), in efi/aarch64/irq_platform.c. What stands in for each role here, and the
 * name its records carry:
 *
 *  - IRQ_SRC_ONESHOT_TIMER `cntv_oneshot`: the EL1 virtual timer (PPI 27), one-shot by compare
 *    value: CNTV_CVAL_EL0 = CNTVCT_EL0 read + delay, then CNTV_CTL_EL0.ENABLE. It compares against
 *    the very counter the IRQ stub stamps, so the deadline is the compare value exactly (deadline
 *    `cntv_cval`, no early slack: tick_cycles 0). The platform's acknowledge hook disables the
 *    timer before the handler runs (its output is a level: left enabled it would fire again after
 *    the EOI), so a handler may arm it anew (the profiler's sampling timer does).
 *    On the guard vector (IRQ_VEC_GUARD) the same source is the EL1 physical timer (PPI 30,
 *    CNTP_*): each vector has a timer of its own (p->oneshot_per_vector), so a wfi wait on the
 *    virtual timer is bounded by an independent one. Its compare value is set on CNTPCT_EL0
 *    (offset from CNTVCT by CNTVOFF, measured at init).
 *  - IRQ_SRC_PERIODIC_TIMER `cntv_periodic`: the virtual timer re-armed by the EOI callback at
 *    CVAL + period (the grid of a periodic timer; missed periods skipped, not bunched); the
 *    period start is the compare value that fired, read in the handler: uncertainty 0.
 *  - IRQ_SRC_SELF_IPI `sgi_self`: SGI 1 to this CPU alone through ICC_SGI1R_EL1 (GICv2:
 *    GICD_SGIR, TargetListFilter "self"); deadline the counter read before the write
 *    (`send_cntvct`).
 *  - IRQ_SRC_DEADLINE_TIMER, IRQ_SRC_PLATFORM_TIMER: unavailable (the reasons say why).
 *
 * Pending and in service: GICR_ISPENDR0 / GICR_ISACTIVER0 (GICv2: the banked GICD_ISPENDR0 /
 * GICD_ISACTIVER0) for the INTIDs used here. Which GIC: drivers/irqchip/aarch64/gic.h. */
#ifndef DRIVERS_IRQ_PLATFORM_A64_H
#define DRIVERS_IRQ_PLATFORM_A64_H

#include <stdbool.h>
#include <stdint.h>

#include "drivers/irqchip/aarch64/gic.h"
#include "drivers/timer/aarch64/gtimer.h"
#include "bench/core/irq_platform.h"

#define A64_INTID_SGI_SELF 1   /* the self-SGI */
#define A64_INTID_CNTP 30      /* EL1 physical timer PPI */
#define A64_INTID_CNTV 27      /* EL1 virtual timer PPI */
#define A64_INTID_PMU_DEFAULT 23 /* PMU overflow PPI when the MADT's GICC entry does not say (QEMU virt's) */
#define A64_IRQ_PRIORITY 0x80  /* every source at one priority: no nesting (masked anyway) */
#define A64_GIC_WAIT_US 10000  /* bound on each GIC wait */
/* QEMU virt's GIC when the MADT says nothing (hw/arm/virt.c memmap). */
#define A64_VIRT_GICD 0x08000000ull
#define A64_VIRT_GICR 0x080A0000ull
#define A64_VIRT_GICR_LEN 0x00F60000ull
#define A64_VIRT_GICC 0x08010000ull /* its GICv2 CPU interface (virt,gic-version=2) */

/* The sources by the parts that stand in for each role here (bench/core/irq_platform.h). */
#define IRQ_SRC_CNTV_ONESHOT IRQ_SRC_ONESHOT_TIMER   /* the virtual timer (guard vector: physical) */
#define IRQ_SRC_CNTV_PERIODIC IRQ_SRC_PERIODIC_TIMER /* the virtual timer re-armed at each EOI */
#define IRQ_SRC_SGI_SELF IRQ_SRC_SELF_IPI            /* SGI 1 to this CPU alone */

struct irq_platform {
	IRQ_PLATFORM_HEAD; /* timer_hz = counter_hz (the timers count the counter itself); tick 0:
			    * compare values are exact; the guard vector's one-shot is the physical timer */
	uint64_t counter_hz;
	uint64_t timer_ratio_q32;     /* counter cycles per timer tick, 32.32 (1) */
	bool tsc_deadline;            /* false: no TSC-deadline mode */
	const char *hpet_reason;      /* why there is no HPET */
	uint32_t periodic_ticks;
};

struct a64_irq_facts {
	struct gic gic;                /* the driver that ran: gic.version */
	struct gicv3_bases bases;      /* what the MADT gave (both drivers' addresses) */
	const char *bases_from;        /* "madt" or "qemu_virt_default" */
	uint64_t cntv_ctl_found, cntp_ctl_found; /* the timers as the firmware left them */
	struct gtimer timer;           /* with CNTVOFF (CNTPCT - CNTVCT) as measured, +- uncertainty */
	unsigned pmu_intid;            /* the PMU overflow interrupt (GICC Performance Interrupt GSIV) */
	const char *pmu_intid_from;    /* "madt", "qemu_virt_default" or "none" */
	const char *pmu_intid_reason;  /* why pmu_intid is 0 (NULL otherwise) */
};

/* Set up the GIC and the timers (traps installed, interrupts masked). madt: the MADT's address
 * (0: none; QEMU virt's addresses are assumed only when qemu_virt says this is that board).
 * Returns p->ready; *facts for the boot record. */
bool irq_platform_a64_init(struct irq_platform *p, uint64_t madt, bool qemu_virt, uint64_t counter_hz);
const struct a64_irq_facts *irq_platform_a64_facts(void);
/* Another SGI/PPI on this CPU for a driver of its own (the PMU's overflow, PPI 23): routed to
 * `vector` (a handler slot of arch/irq.h), Group 1 at A64_IRQ_PRIORITY, a PPI level-sensitive,
 * pending state cleared, enabled or (on = false) disabled and unrouted. False when the GIC is not ready or intid >= 32.
 * The caller silences a level-triggered source in its handler before the EOI. */
bool irq_platform_a64_private(unsigned intid, uint8_t vector, bool on);
/* Another core (an application processor, on itself, interrupts masked). GICv3: its
 * redistributor from its own MADT GICC entry's GICR base, else found in the GICR ranges by its
 * MPIDR, woken, its SGIs/PPIs disabled, its CPU interface on. GICv2: its banked SGIs/PPIs
 * disabled and its CPU interface on. The distributor is the boot CPU's, already enabled. False
 * when the boot CPU's GIC is not ready or (GICv3) nothing says where this core's redistributor
 * is. */
bool irq_platform_a64_cpu_up(struct gic *g);
/* As irq_platform_a64_private on that core's redistributor g, without touching the routing (one
 * table for all cores: the boot CPU's routing of intid applies). */
bool irq_platform_a64_cpu_private(struct gic *g, unsigned intid, bool on);

#endif
