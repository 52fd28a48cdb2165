/* MADT parsing (see madt.h). Offsets per ACPI 6.5, section 5.2.12. */
#include "drivers/fw/madt.h"

#include "lib/le.h"

#include "drivers/fw/acpi.h"

#define SDT_OFF_LENGTH 4
#define MADT_MAX_LEN (1u << 20) /* sanity bound: 64 Ki processors take 1 MiB of x2APIC entries */
#define ENTRY_OFF_TYPE 0
#define ENTRY_OFF_LENGTH 1
#define ENTRY_HEADER_LEN 2

/* Processor Local APIC (type 0) */
#define LAPIC_OFF_UID 2
#define LAPIC_OFF_ID 3
#define LAPIC_OFF_FLAGS 4
/* I/O APIC (type 1) */
#define IOAPIC_OFF_ID 2
#define IOAPIC_OFF_ADDRESS 4
#define IOAPIC_OFF_GSI_BASE 8
/* Interrupt Source Override (type 2) */
#define ISO_OFF_BUS 2
#define ISO_OFF_SOURCE 3
#define ISO_OFF_GSI 4
#define ISO_OFF_FLAGS 8
/* Local APIC Address Override (type 5) */
#define LAPIC_OVR_OFF_ADDRESS 4
/* Processor Local x2APIC (type 9) */
#define X2APIC_OFF_ID 4
#define X2APIC_OFF_FLAGS 8
#define X2APIC_OFF_UID 12

static bool id_listed(const struct madt_info *info, uint32_t id)
{
	for (unsigned i = 0; i < info->num_cpus; i++)
		if (info->cpus[i].apic_id == id)
			return true;
	return false;
}

void madt_add_cpu(struct madt_info *info, uint32_t id, uint32_t uid, uint32_t flags, bool x2)
{
	struct madt_cpu *c;

	if (!(flags & (MADT_LAPIC_ENABLED | MADT_LAPIC_ONLINE_CAPABLE))) {
		info->num_unusable++;
		return;
	}
	if (id_listed(info, id)) {
		info->num_duplicates++;
		return;
	}
	if (info->num_cpus >= MADT_MAX_CPUS) {
		info->num_dropped++;
		return;
	}
	c = &info->cpus[info->num_cpus++];
	c->apic_id = id;
	c->uid = uid;
	c->flags = flags;
	c->from_x2apic = x2;
	if (flags & MADT_LAPIC_ENABLED)
		info->num_enabled++;
	else
		info->num_online_capable++;
}

/* One MADT entry of `type` (elen bytes at e, at least the header): a CPU, an I/O APIC, an
 * interrupt source override or the local APIC address override; others are ignored. */
static void parse_entry(struct madt_info *info, uint8_t type, const uint8_t *e, uint8_t elen)
{
	switch (type) {
	case MADT_TYPE_LOCAL_APIC:
		if (elen < MADT_LEN_LOCAL_APIC) {
			info->num_malformed++;
			return;
		}
		madt_add_cpu(info, e[LAPIC_OFF_ID], e[LAPIC_OFF_UID], rd32(e + LAPIC_OFF_FLAGS), false);
		break;
	case MADT_TYPE_LOCAL_X2APIC:
		if (elen < MADT_LEN_LOCAL_X2APIC) {
			info->num_malformed++;
			return;
		}
		madt_add_cpu(info, rd32(e + X2APIC_OFF_ID), rd32(e + X2APIC_OFF_UID),
			rd32(e + X2APIC_OFF_FLAGS), true);
		break;
	case MADT_TYPE_IO_APIC:
		if (elen < MADT_LEN_IO_APIC) {
			info->num_malformed++;
			return;
		}
		if (info->num_ioapics >= MADT_MAX_IOAPICS) {
			info->num_dropped_io++;
			return;
		}
		info->ioapics[info->num_ioapics++] = (struct madt_ioapic){
			e[IOAPIC_OFF_ID], rd32(e + IOAPIC_OFF_ADDRESS), rd32(e + IOAPIC_OFF_GSI_BASE) };
		break;
	case MADT_TYPE_ISO:
		if (elen < MADT_LEN_ISO) {
			info->num_malformed++;
			return;
		}
		if (info->num_isos >= MADT_MAX_ISOS) {
			info->num_dropped_io++;
			return;
		}
		info->isos[info->num_isos++] = (struct madt_iso){
			.bus = e[ISO_OFF_BUS],
			.source = e[ISO_OFF_SOURCE],
			.gsi = rd32(e + ISO_OFF_GSI),
			.flags = (uint16_t)(e[ISO_OFF_FLAGS] | e[ISO_OFF_FLAGS + 1] << 8) };
		break;
	case MADT_TYPE_LOCAL_APIC_OVERRIDE:
		if (elen < MADT_LEN_LOCAL_APIC_OVERRIDE) {
			info->num_malformed++;
			return;
		}
		info->lapic_base = rd64(e + LAPIC_OVR_OFF_ADDRESS);
		info->lapic_override = true;
		break;
	default:
		break; /* NMI sources, GIC...: not needed here */
	}
}

bool madt_parse(uint64_t addr, struct madt_info *info)
{
	const uint8_t *t = (const uint8_t *)(uintptr_t)addr;
	uint32_t len;

	*info = (struct madt_info){ 0 };
	info->why = "no MADT address";
	if (!t)
		return false;
	info->why = "signature is not \"APIC\"";
	if (t[0] != 'A' || t[1] != 'P' || t[2] != 'I' || t[3] != 'C')
		return false;
	len = rd32(t + SDT_OFF_LENGTH);
	info->why = "length shorter than the 44-byte MADT header";
	if (len < MADT_OFF_ENTRIES)
		return false;
	info->why = "length over the 1 MiB MADT bound";
	if (len > MADT_MAX_LEN)
		return false;
	info->why = "checksum does not sum to zero";
	if (acpi_checksum(t, len) != 0)
		return false;
	info->why = 0;
	info->valid = true;
	info->lapic_base = rd32(t + MADT_OFF_LAPIC_ADDR);
	info->pcat_compat = (rd32(t + MADT_OFF_FLAGS) & MADT_FLAG_PCAT_COMPAT) != 0;

	if (!madt_walk(addr, info, parse_entry))
		info->num_malformed++; /* the walk cannot continue past a bad length */
	return true;
}

bool madt_walk(uint64_t addr, struct madt_info *info, madt_entry_fn fn)
{
	const uint8_t *t = (const uint8_t *)(uintptr_t)addr;
	uint32_t len = rd32(t + SDT_OFF_LENGTH), off;

	for (off = MADT_OFF_ENTRIES; off + ENTRY_HEADER_LEN <= len;) {
		const uint8_t *e = t + off;
		uint8_t type = e[ENTRY_OFF_TYPE], elen = e[ENTRY_OFF_LENGTH];

		if (elen < ENTRY_HEADER_LEN || off + elen > len)
			return false;
		off += elen;
		fn(info, type, e, elen);
	}
	return true;
}

uint32_t madt_isa_gsi(const struct madt_info *info, uint8_t irq, uint16_t *flags)
{
	for (unsigned i = 0; i < info->num_isos; i++) {
		if (info->isos[i].bus == 0 && info->isos[i].source == irq) {
			if (flags)
				*flags = info->isos[i].flags;
			return info->isos[i].gsi;
		}
	}
	if (flags)
		*flags = 0;
	return irq;
}
