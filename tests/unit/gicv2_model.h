/* A behavioural model of a GICv2 (Arm IHI 0048B) for the driver tests, written from the
 * specification, not from the driver: the distributor's shared registers, the SGI/PPI registers
 * banked per CPU (4.1.2; the CPU a access comes from is `cpu`), the CPU interface banked the same
 * way at its one address, and the interrupt life cycle the acknowledge/EOI tests need:
 *  - GICD_ISENABLER0/ICENABLER0 write-1-to-set/clear; SGIs permanently enabled when
 *    sgis_always_enabled (implementation defined, 4.3.5; GIC-400 and QEMU have them so);
 *  - GICD_ICPENDR0's SGI bits read-only (4.3.8): an SGI's pending state is per source CPU, set by
 *    GICD_SGIR and cleared through GICD_CPENDSGIRn (4.3.14, one byte per SGI);
 *  - GICD_SGIR: TargetListFilter 0b00 the list, 0b01 all but the writer, 0b10 the writer (4.3.15);
 *  - GICD_ITARGETSR0-7 read-only, each byte the reading CPU's own bit (4.3.12);
 *  - GICD_IGROUPR0 RAZ/WI in the non-secure view when the Security Extensions are implemented;
 *  - GICC_IAR: the highest-priority (lowest value; equal: lowest INTID, 3.3) pending, enabled
 *    interrupt of priority below GICC_PMR when distributor and CPU interface forward it, made
 *    active; its value INTID | source CPU << 10 for an SGI; 1023 when none; in the one-view GIC a
 *    Group 1 interrupt is forwarded only with GICC_CTLR.EnableGrp1 and acknowledged only with
 *    AckCtl, else 1022 (4.4.4);
 *  - GICC_EOIR: deactivates the active interrupt whose INTID and (SGI) source CPU match the value
 *    written; any other value is ignored and counted (eoi_mismatch: UNPREDICTABLE on hardware). */
#ifndef TESTS_UNIT_GICV2_MODEL_H
#define TESTS_UNIT_GICV2_MODEL_H

#include <stdbool.h>
#include <stdint.h>

#include "drivers/irqchip/aarch64/gicv3.h"

#define G2M_CPUS 2
#define G2M_LOG 256
#define G2M_GICD 0x08000000ull
#define G2M_GICC 0x08010000ull

struct g2m_cpu {
	uint32_t group, enable, active, ppi_pending, cfg1;
	uint8_t sgi_sources[16];  /* pending SGI: a bit per source CPU */
	uint8_t prio[32];
	uint32_t cctlr, pmr, bpr;
	uint8_t active_src[16];   /* the source of each active SGI */
};

struct g2m_write {
	unsigned cpu;
	uint64_t addr;
	uint32_t value;
};

struct gicv2_model {
	unsigned cpu;                 /* the CPU making the accesses */
	bool security_extn, sgis_always_enabled;
	uint32_t pidr2, dctlr;
	struct g2m_cpu c[G2M_CPUS];
	unsigned eoi_mismatch;
	unsigned nlog;
	struct g2m_write log[G2M_LOG];
};

void g2m_reset(struct gicv2_model *m, bool security_extn);
uint32_t g2m_read(struct gicv2_model *m, uint64_t addr);
void g2m_write(struct gicv2_model *m, uint64_t addr, uint32_t v);
/* A peripheral asserts PPI `intid` (16-31) at CPU `cpu`. */
void g2m_raise_ppi(struct gicv2_model *m, unsigned cpu, unsigned intid);
/* Index of the first logged write to addr at or after `from`, or -1. */
int g2m_find(const struct gicv2_model *m, uint64_t addr, unsigned from);
/* The io the driver is given (ctx: the model). */
extern const struct gicv3_io g2m_io;

#endif
