/* GICv2 driver (Arm IHI 0048B; GIC-400 on the Raspberry Pi 4, QEMU virt,gic-version=2): the
 * distributor (GICD_*) and the memory-mapped CPU interface (GICC_*), both at the addresses the
 * MADT gives (GICD entry; this CPU's GICC entry's Physical Base Address). Enough for the
 * interrupt probes, as drivers/irqchip/aarch64/gicv3.h is for a GICv3:
 *  - the distributor switched back on (GICD_CTLR bit 0: the firmware disables it at
 *    ExitBootServices), only by the boot CPU;
 *  - per CPU (every core on itself: SGIs 0-15 and PPIs 16-31 are banked, GICv2 4.1.2, and so is
 *    the CPU interface at its one address): every SGI/PPI the firmware left enabled disabled
 *    (recorded; SGIs may be permanently enabled, GICv2 4.3.5), pending state cleared (SGIs through
 *    GICD_CPENDSGIRn: GICD_ICPENDR0's SGI bits are read-only, 4.3.8 / 4.3.14), then GICC_PMR,
 *    GICC_BPR, GICC_CTLR;
 *  - groups as the firmware left them where it could set them: with the Security Extensions
 *    (GICD_TYPER.SecurityExtn) a non-secure EL1/EL2 access sees GICD_IGROUPRn as RAZ/WI and bit 0
 *    of GICD_CTLR / GICC_CTLR as the Group 1 enable (4.3.1, 4.4.1): Group 1 is ours, Group 0 the
 *    secure side's. Without them there is one view: our INTIDs are put in Group 0 and
 *    GICC_CTLR.FIQEn kept 0, so they are signalled as IRQ (4.4.1), as Linux's irq-gic.c relies on;
 *  - self-SGIs through GICD_SGIR with TargetListFilter 0b10 ("only the requesting CPU", 4.3.15);
 *  - acknowledge: GICC_IAR read whole (InterruptID [9:0], CPUID [12:10] the SGI's source), 1023
 *    spurious (1020-1023 special); EOI: that same value written back to GICC_EOIR (4.4.5: the
 *    CPUID of an SGI must match), EOImode 0 (priority drop and deactivation together).
 *
 * Register access: the GICv3 driver's struct gicv3_io (MMIO only: its system-register calls are
 * not used here), so the host unit tests check the writes against a model. */
#ifndef DRIVERS_GICV2_H
#define DRIVERS_GICV2_H

#include <stdbool.h>
#include <stdint.h>

#include "drivers/irqchip/aarch64/gicv3.h" /* struct gicv3_io, GICD_CTLR/TYPER, GIC_* INTID ranges */

/* Distributor (offsets from GICD; GICD_CTLR and GICD_TYPER are gicv3.h's). */
#define GICV2_GICD_IGROUPR0 0x0080
#define GICV2_GICD_ISENABLER0 0x0100
#define GICV2_GICD_ICENABLER0 0x0180
#define GICV2_GICD_ISPENDR0 0x0200
#define GICV2_GICD_ICPENDR0 0x0280
#define GICV2_GICD_ISACTIVER0 0x0300
#define GICV2_GICD_IPRIORITYR 0x0400 /* one byte per INTID */
#define GICV2_GICD_ITARGETSR0 0x0800 /* bytes 0-31: read-only, this CPU's own bit (4.3.12) */
#define GICV2_GICD_ICFGR1 0x0C04     /* PPIs: two bits each, the upper one set = edge */
#define GICV2_GICD_SGIR 0x0F00
#define GICV2_GICD_CPENDSGIR 0x0F10  /* one byte per SGI: a bit per source CPU */
#define GICV2_GICD_PIDR2 0x0FE8      /* ICPIDR2: ArchRev [7:4] (1: GICv1, 2: GICv2) */
#define GICV2_GICD_CTLR_ENABLE (1u << 0) /* non-secure view: Group 1; one view: Group 0 */
#define GICV2_SGIR_FILTER_SELF (2u << 24) /* TargetListFilter 0b10 */
#define GICV2_SGIR_INTID_MASK 0xFu
#define GICV2_SGI_SOURCES_ALL 0xFFu

/* CPU interface (offsets from GICC). */
#define GICV2_GICC_CTLR 0x0000
#define GICV2_GICC_PMR 0x0004
#define GICV2_GICC_BPR 0x0008
#define GICV2_GICC_IAR 0x000C
#define GICV2_GICC_EOIR 0x0010
#define GICV2_GICC_RPR 0x0014
#define GICV2_GICC_CTLR_ENABLE (1u << 0)   /* non-secure view: EnableGrp1; one view: EnableGrp0 */
#define GICV2_GICC_CTLR_FIQEN (1u << 3)    /* one view: Group 0 as FIQ (kept 0: IRQ) */
#define GICV2_GICC_CTLR_EOIMODE_NS_VIEW (1u << 9) /* EOImodeNS in the non-secure view */
#define GICV2_GICC_CTLR_EOIMODE_NS (1u << 10)     /* EOImodeNS in the secure / one view */
#define GICV2_IAR_INTID_MASK 0x3FFu        /* InterruptID [9:0] */
#define GICV2_IAR_CPUID_SHIFT 10
#define GICV2_PMR_ALL 0xFFu
#define GICV2_ARCH_REV_V1 1
#define GICV2_ARCH_REV_V2 2

struct gicv2 {
	const struct gicv3_io *io;
	bool ready;
	const char *reason;          /* why not ready */
	uint64_t gicd, gicc;
	unsigned arch_rev;           /* ICPIDR2.ArchRev */
	bool security_extn;          /* GICD_TYPER.SecurityExtn: we see the non-secure view */
	uint32_t typer, ctlr_found, ctlr_now;
	uint32_t cpu_ctlr_found, cpu_ctlr_now; /* GICC_CTLR */
	uint32_t enabled_found;      /* GICD_ISENABLER0 (banked) as the firmware left it */
	uint32_t group_found;        /* GICD_IGROUPR0 (banked; RAZ in the non-secure view) */
	uint8_t cpu_mask;            /* GICD_ITARGETSR0's byte: this CPU interface's bit */
};

/* Bring this CPU's side up (interrupts masked at the CPU); `distributor`: also switch the
 * distributor on (the boot CPU; another core leaves it to that). Returns g->ready. */
bool gicv2_init(struct gicv2 *g, uint64_t gicd, uint64_t gicc, bool distributor);

/* One SGI or PPI (intid < 32) of this CPU: disabled, priority set, our group (see above),
 * pending cleared; then enabled or not; a PPI level-sensitive; cleared. */
void gicv2_private_config(struct gicv2 *g, unsigned intid, uint8_t priority);
void gicv2_private_enable(struct gicv2 *g, unsigned intid, bool on);
void gicv2_private_level(struct gicv2 *g, unsigned intid);
void gicv2_private_clear(struct gicv2 *g, unsigned intid);
uint32_t gicv2_private_pending(const struct gicv2 *g);
uint32_t gicv2_private_active(const struct gicv2 *g);
uint32_t gicv2_private_enabled(const struct gicv2 *g);

/* GICD_SGIR's value that sends SGI `intid` to the writing CPU alone. Pure. */
uint32_t gicv2_sgir_self(unsigned intid);
void gicv2_send_sgi_self(struct gicv2 *g, unsigned intid);
/* The raw GICC_IAR (INTID: & GICV2_IAR_INTID_MASK); gicv2_eoi takes that raw value back. */
uint32_t gicv2_ack(struct gicv2 *g);
void gicv2_eoi(struct gicv2 *g, uint32_t iar);
uint32_t gicv2_running_priority(const struct gicv2 *g);

#endif
