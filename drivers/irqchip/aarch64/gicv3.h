/* GICv3 driver (Arm IHI 0069): the distributor, this CPU's redistributor and its SGI frame
 * (SGIs and PPIs: INTIDs 0-31), and the CPU interface through its system registers. Enough for
 * the interrupt probes: affinity routing and Group 1 back on (the firmware disables the
 * distributor at ExitBootServices), this CPU's redistributor found from the MADT's GICC entry or
 * by walking the redistributor frames for our MPIDR affinity, woken (GICR_WAKER), every SGI/PPI
 * the firmware left enabled disabled (and recorded), then single INTIDs configured as Group 1
 * with a priority, enabled, disabled, cleared; self-SGIs; acknowledge and EOI.
 *
 * Every register access goes through struct gicv3_io, so the host unit tests check the exact
 * writes against a model (drivers/irqchip/aarch64/gicv3_hw.c is the hardware's io: MMIO plus arch/aarch64/
 * gic_cpuif.h). Every wait (RWP, ChildrenAsleep) is bounded by io->now ticks. */
#ifndef DRIVERS_GICV3_H
#define DRIVERS_GICV3_H

#include <stdbool.h>
#include <stdint.h>

/* Distributor (GICD_*), offsets from its base. */
#define GICD_CTLR 0x0000
#define GICD_TYPER 0x0004
#define GICD_PIDR2 0xFFE8
#define GICD_CTLR_ENABLE_GRP0 (1u << 0)
#define GICD_CTLR_ENABLE_GRP1 (1u << 1)  /* EnableGrp1 (DS=1) / EnableGrp1A (non-secure view) */
#define GICD_CTLR_ARE (1u << 4)          /* ARE (DS=1) / ARE_NS (non-secure view) */
#define GICD_CTLR_DS (1u << 6)           /* security disabled: one security state */
#define GICD_CTLR_RWP (1u << 31)         /* register write pending */
#define GICD_TYPER_ITLINES_MASK 0x1Fu    /* SPIs: 32 * (N + 1) INTIDs in all */
#define GICD_TYPER_SECURITY_EXTN (1u << 10)
#define GIC_PIDR2_ARCHREV_SHIFT 4
#define GIC_PIDR2_ARCHREV_MASK 0xFu

/* Redistributor RD_base frame (GICR_*). */
#define GICR_CTLR 0x0000
#define GICR_TYPER 0x0008 /* 64 bits */
#define GICR_WAKER 0x0014
#define GICR_PIDR2 0xFFE8
#define GICR_CTLR_RWP (1u << 3)
#define GICR_TYPER_VLPIS (1ull << 1) /* GICv4 virtual LPIs: two more 64 KiB frames */
#define GICR_TYPER_LAST (1ull << 4)
#define GICR_TYPER_AFF_SHIFT 32
#define GICR_WAKER_PROCESSOR_SLEEP (1u << 1)
#define GICR_WAKER_CHILDREN_ASLEEP (1u << 2)
#define GICR_FRAME_BYTES 0x10000ull   /* one 64 KiB frame */
#define GICR_STRIDE_V3 0x20000ull     /* RD_base + SGI_base */
#define GICR_STRIDE_V4 0x40000ull     /* + VLPI_base + reserved */
#define GICR_MAX_FRAMES 4096          /* bound on the walk */

/* SGI_base frame (RD_base + 64 KiB): the SGI/PPI registers. */
#define GICR_SGI_OFFSET GICR_FRAME_BYTES
#define GICR_IGROUPR0 0x0080
#define GICR_ISENABLER0 0x0100
#define GICR_ICENABLER0 0x0180
#define GICR_ISPENDR0 0x0200
#define GICR_ICPENDR0 0x0280
#define GICR_ISACTIVER0 0x0300
#define GICR_ICACTIVER0 0x0380
#define GICR_IPRIORITYR 0x0400 /* one byte per INTID, accessed as 32-bit words */
#define GICR_IGRPMODR0 0x0D00
#define GICR_ICFGR1 0x0C04            /* PPIs 16-31: two bits each, the upper one set = edge */
#define GICR_ICFGR_BITS_PER_INTID 2
#define GICR_ICFGR_EDGE_BIT 1

#define GIC_NUM_PRIVATE 32     /* SGIs 0-15 and PPIs 16-31 */
#define GIC_NUM_SGIS 16
#define GIC_INTID_SPURIOUS 1023
#define GIC_INTID_SPECIAL_FIRST 1020 /* 1020-1023: special INTIDs, never EOI'd */
#define GIC_INTID_MASK 0xFFFFFFu     /* IAR's INTID field (24 bits) */
#define GIC_ALL_PRIVATE 0xFFFFFFFFu

/* CPU interface. */
#define ICC_SRE_SRE (1u << 0)
#define ICC_CTLR_EOIMODE (1u << 1)
#define ICC_PMR_ALL 0xFFu              /* every priority below 0xFF is signalled */
#define ICC_IGRPEN1_ENABLE 1u
#define ICC_SGI1R_TARGETS_MASK 0xFFFFull
#define ICC_SGI1R_AFF1_SHIFT 16
#define ICC_SGI1R_INTID_SHIFT 24
#define ICC_SGI1R_AFF2_SHIFT 32
#define ICC_SGI1R_RS_SHIFT 44
#define ICC_SGI1R_AFF3_SHIFT 48
#define GIC_SGI_TARGETS_PER_RANGE 16

/* MPIDR_EL1 affinity fields. */
#define MPIDR_AFF0(m) ((m) & 0xFFu)
#define MPIDR_AFF1(m) (((m) >> 8) & 0xFFu)
#define MPIDR_AFF2(m) (((m) >> 16) & 0xFFu)
#define MPIDR_AFF3(m) (((m) >> 32) & 0xFFu)
/* Aff3.Aff2.Aff1.Aff0 as GICR_TYPER[63:32] holds it. */
#define MPIDR_TO_GICR_AFF(m) ((MPIDR_AFF3(m) << 24) | (MPIDR_AFF2(m) << 16) | (MPIDR_AFF1(m) << 8) | MPIDR_AFF0(m))

enum gic_sysreg {
	GIC_ICC_SRE, GIC_ICC_PMR, GIC_ICC_IGRPEN1, GIC_ICC_CTLR, GIC_ICC_BPR1, GIC_ICC_IAR1,
	GIC_ICC_EOIR1, GIC_ICC_SGI1R, GIC_ICC_RPR, GIC_NUM_SYSREGS,
};

struct gicv3_io {
	uint32_t (*read32)(void *ctx, uint64_t addr);
	void (*write32)(void *ctx, uint64_t addr, uint32_t v);
	uint64_t (*read64)(void *ctx, uint64_t addr);
	uint64_t (*sysreg_read)(void *ctx, enum gic_sysreg r);
	void (*sysreg_write)(void *ctx, enum gic_sysreg r, uint64_t v);
	uint64_t (*now)(void *ctx); /* a counter for the bounded waits */
	void *ctx;
};

/* GICR discovery ranges kept from the MADT: one per socket on multi-socket machines (each
 * GICR structure is one contiguous range of redistributors, ACPI 6.5 5.2.12.17). */
#define GIC_MAX_GICR_RANGES 8

struct gicr_range {
	uint64_t base, len; /* len 0: walk up to the Last bit only */
};

/* Where the GIC is: from the MADT (GICD entry; this CPU's GICC entry's GICR base, else the GICR
 * discovery ranges; a GICv2's CPU interface from this CPU's GICC entry), or the caller's defaults. */
struct gicv3_bases {
	uint64_t gicd;
	uint64_t gicc;              /* this CPU's GICC Physical Base Address: GICv2's CPU interface (0: none) */
	uint64_t gicr_cpu;          /* this CPU's RD_base from its GICC entry (0: none) */
	struct gicr_range gicr[GIC_MAX_GICR_RANGES]; /* the GICR structures, in table order */
	unsigned gicr_ranges;       /* of them kept */
	unsigned gicr_ranges_dropped; /* GICR structures past GIC_MAX_GICR_RANGES */
	unsigned gicc_gicr_entries; /* enabled GICC entries that give a GICR base */
	unsigned gic_version;       /* the GICD entry's version byte (0: not stated) */
	unsigned gicc_entries;
	uint32_t pmu_gsiv;          /* this CPU's GICC entry's Performance Interrupt GSIV (0: none) */
	bool pmu_gsiv_found;        /* that entry was found */
};

struct gicv3 {
	const struct gicv3_io *io;
	bool ready;
	const char *reason;          /* why not ready */
	uint64_t gicd, rd, sgi;      /* distributor, this CPU's RD_base and SGI_base */
	uint64_t mpidr;
	uint64_t wait_ticks;         /* bound of each wait in io->now ticks */
	unsigned arch_rev;           /* GICD_PIDR2.ArchRev */
	uint32_t typer, ctlr_found, ctlr_now;
	uint32_t waker_found, enabled_found; /* GICR_WAKER, GICR_ISENABLER0 as the firmware left them */
	uint64_t sre_found;
	unsigned frames_walked;      /* redistributor frames looked at (0: from the GICC entry) */
	unsigned timeouts;           /* waits that ran out */
};

/* Parse an MADT (the whole table) for the GIC entries; mpidr selects this CPU's GICC entry.
 * False when the table is not an MADT or has no GICD entry. Pure (host-tested). */
bool gicv3_madt_parse(const uint8_t *madt, uint32_t len, uint64_t mpidr, struct gicv3_bases *out);

/* The bases for another core (mpidr) from the boot CPU's `boot`: its own GICC entry's GICR base
 * and CPU interface when the MADT (madt, len; NULL: none) lists it, the distributor and GICR
 * ranges shared. False when neither its GICC entry nor a GICR range says where its
 * redistributor is (machines may list redistributors only in the GICC entries). Pure. */
bool gicv3_bases_for_cpu(const struct gicv3_bases *boot, const uint8_t *madt, uint32_t len, uint64_t mpidr,
			 struct gicv3_bases *out);

/* Bring the GIC up for this CPU (interrupts masked at the CPU): see the header comment.
 * gicr_cpu: this CPU's RD_base if known, else 0 and every GICR range is walked in turn.
 * Returns g->ready. */
bool gicv3_init(struct gicv3 *g, const struct gicv3_bases *b, uint64_t mpidr, uint64_t wait_ticks);

/* One SGI or PPI (intid < 32): Group 1 (non-secure), priority, cleared, then enabled or not. */
void gicv3_private_config(struct gicv3 *g, unsigned intid, uint8_t priority);
void gicv3_private_enable(struct gicv3 *g, unsigned intid, bool on);
/* A PPI (16..31) level-sensitive (GICR_ICFGR1 bit clear): a level source such as the PMU's
 * overflow stays asserted until its handler clears it. SGIs are left alone (always edge). */
void gicv3_private_level(struct gicv3 *g, unsigned intid);
void gicv3_private_clear(struct gicv3 *g, unsigned intid);
/* GICR_ISPENDR0 / GICR_ISACTIVER0 (bit i: INTID i). */
uint32_t gicv3_private_pending(const struct gicv3 *g);
uint32_t gicv3_private_active(const struct gicv3 *g);
uint32_t gicv3_private_enabled(const struct gicv3 *g);

/* ICC_SGI1R_EL1's value that sends SGI `intid` to the CPU with this MPIDR alone. Pure. */
uint64_t gicv3_sgi1r_self(uint64_t mpidr, unsigned intid);
void gicv3_send_sgi_self(struct gicv3 *g, unsigned intid);
uint32_t gicv3_ack(struct gicv3 *g);
void gicv3_eoi(struct gicv3 *g, uint32_t intid);
uint64_t gicv3_running_priority(const struct gicv3 *g);

#endif
