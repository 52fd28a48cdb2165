/* The ACPI Multiple APIC Description Table (MADT, signature "APIC"; ACPI 6.5 section 5.2.12):
 * which logical processors the platform has, by local APIC id, where the local APIC registers
 * are, the I/O APICs (address, first GSI) and the interrupt source overrides (ISA IRQ -> GSI). Pure parsing over identity-mapped memory (the host unit tests hand it a buffer):
 * the header length and checksum are checked first, every entry's length before it is read, and
 * an entry of length 0 ends the walk rather than looping on it. */
#ifndef DRIVERS_MADT_H
#define DRIVERS_MADT_H

#include <stdbool.h>
#include <stdint.h>

/* Processor entries kept (enabled or online-capable); more are counted in num_dropped. */
#define MADT_MAX_CPUS 256

/* Table layout: the standard 36-byte header, then two fields, then the entries. */
#define MADT_OFF_LAPIC_ADDR 36
#define MADT_OFF_FLAGS 40
#define MADT_OFF_ENTRIES 44
#define MADT_FLAG_PCAT_COMPAT (1u << 0) /* dual 8259 PICs are present as well */

/* Interrupt controller structure types used here (ACPI 6.5, table 5.21). */
#define MADT_TYPE_LOCAL_APIC 0          /* Processor Local APIC, 8 bytes */
#define MADT_TYPE_IO_APIC 1             /* I/O APIC, 12 bytes */
#define MADT_TYPE_ISO 2                 /* Interrupt Source Override, 10 bytes */
#define MADT_TYPE_LOCAL_APIC_OVERRIDE 5 /* Local APIC Address Override, 12 bytes */
#define MADT_TYPE_LOCAL_X2APIC 9        /* Processor Local x2APIC, 16 bytes */
#define MADT_LEN_LOCAL_APIC 8
#define MADT_LEN_IO_APIC 12
#define MADT_LEN_ISO 10
#define MADT_LEN_LOCAL_APIC_OVERRIDE 12
#define MADT_LEN_LOCAL_X2APIC 16

/* Local APIC flags (types 0 and 9; ACPI 6.5, table 5.23). */
#define MADT_LAPIC_ENABLED (1u << 0)        /* usable now */
#define MADT_LAPIC_ONLINE_CAPABLE (1u << 1) /* not enabled, but may be brought online (ACPI 6.3+) */

#define MADT_MAX_IOAPICS 8
#define MADT_MAX_ISOS 16

/* MPS INTI flags of an override (ACPI 6.5, table 5.26): polarity bits 1:0, trigger bits 3:2. */
#define MADT_INTI_POLARITY_MASK 0x3u
#define MADT_INTI_POLARITY_HIGH 0x1u
#define MADT_INTI_POLARITY_LOW 0x3u
#define MADT_INTI_TRIGGER_SHIFT 2
#define MADT_INTI_TRIGGER_MASK (0x3u << MADT_INTI_TRIGGER_SHIFT)
#define MADT_INTI_TRIGGER_EDGE (0x1u << MADT_INTI_TRIGGER_SHIFT)
#define MADT_INTI_TRIGGER_LEVEL (0x3u << MADT_INTI_TRIGGER_SHIFT)

struct madt_ioapic {
	uint8_t id;
	uint32_t address;
	uint32_t gsi_base;
};

struct madt_iso {
	uint8_t bus;     /* 0 = ISA */
	uint8_t source;  /* bus-relative IRQ */
	uint32_t gsi;
	uint16_t flags;  /* MADT_INTI_* */
};

struct madt_cpu {
	uint32_t apic_id;  /* 8-bit id (type 0) or 32-bit x2APIC id (type 9) */
	uint32_t uid;      /* ACPI processor UID */
	uint32_t flags;    /* MADT_LAPIC_* */
	bool from_x2apic;  /* listed by a type 9 entry */
};

struct madt_info {
	bool valid;
	const char *why;         /* madt_parse() false: why the table is refused */
	uint64_t lapic_base;     /* the header's 32-bit address, or the type 5 override */
	bool lapic_override;     /* a type 5 entry gave the address */
	bool pcat_compat;
	unsigned num_cpus;       /* entries in cpus[], in MADT order (firmware lists the BSP first) */
	unsigned num_enabled;    /* of them: enabled */
	unsigned num_online_capable; /* of them: not enabled but online-capable (hot-pluggable) */
	unsigned num_unusable;   /* processor entries neither enabled nor online-capable: not kept */
	unsigned num_dropped;    /* usable entries beyond MADT_MAX_CPUS: not kept */
	unsigned num_duplicates; /* entries repeating an APIC id already listed: not kept */
	unsigned num_malformed;  /* entries shorter than their type needs, or running past the end */
	struct madt_cpu cpus[MADT_MAX_CPUS];
	unsigned num_ioapics;    /* I/O APIC entries kept (more: counted in num_dropped_io) */
	struct madt_ioapic ioapics[MADT_MAX_IOAPICS];
	unsigned num_isos;
	struct madt_iso isos[MADT_MAX_ISOS];
	unsigned num_dropped_io; /* I/O APIC or override entries beyond the arrays */
};

/* The GSI an ISA IRQ arrives on (the override's, else the identity) and its INTI flags. */
uint32_t madt_isa_gsi(const struct madt_info *info, uint8_t irq, uint16_t *flags);

/* Parse the MADT at `addr` (identity-mapped). False, with info->valid clear, when the signature,
 * length or checksum is wrong; otherwise every well-formed entry is used. */
bool madt_parse(uint64_t addr, struct madt_info *info);

/* One MADT entry of `type`, elen bytes at e (at least its 2-byte header, within the table). */
typedef void (*madt_entry_fn)(struct madt_info *info, uint8_t type, const uint8_t *e, uint8_t elen);
/* The one walk over the entries of the MADT at `addr` (whose header madt_parse() accepted): fn
 * for each entry in table order. False when an entry's length is below its header or runs past
 * the table: the walk stops there (madt_parse() counts it in num_malformed). */
bool madt_walk(uint64_t addr, struct madt_info *info, madt_entry_fn fn);
/* Keep a processor entry (id, ACPI UID, MADT_LAPIC_* flags; x2: from a type 9 entry), or count it
 * as unusable, duplicate or dropped. */
void madt_add_cpu(struct madt_info *info, uint32_t id, uint32_t uid, uint32_t flags, bool x2);

static inline bool madt_cpu_enabled(const struct madt_cpu *c)
{
	return (c->flags & MADT_LAPIC_ENABLED) != 0;
}

#endif
