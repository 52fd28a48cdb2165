/* GICC entries of the MADT (see madt_gicc.h). Offsets per ACPI 6.5, section 5.2.12.14. */
#include "drivers/fw/aarch64/madt_gicc.h"

#include "lib/le.h"

/* The GICC entry's flags as the local APIC's (MADT_LAPIC_*), then kept as any processor entry. */
static void add_gicc(struct madt_info *info, const uint8_t *e)
{
	uint32_t gflags = rd32(e + MADT_GICC_OFF_FLAGS), flags = 0;
	uint32_t id = madt_mpidr_pack(rd64(e + MADT_GICC_OFF_MPIDR));

	if (gflags & MADT_GICC_ENABLED)
		flags = MADT_LAPIC_ENABLED;
	else if (gflags & MADT_GICC_ONLINE_CAPABLE)
		flags = MADT_LAPIC_ONLINE_CAPABLE;
	madt_add_cpu(info, id, rd32(e + MADT_GICC_OFF_UID), flags, false);
}

static void gicc_entry(struct madt_info *info, uint8_t type, const uint8_t *e, uint8_t elen)
{
	if (type != MADT_TYPE_GICC)
		return;
	if (elen < MADT_LEN_GICC_MIN) {
		info->num_malformed++;
		return;
	}
	add_gicc(info, e);
}

bool madt_parse_gicc(uint64_t addr, struct madt_info *info)
{
	if (!madt_parse(addr, info))
		return false;
	(void)madt_walk(addr, info, gicc_entry); /* a bad length: madt_parse() counted it as malformed */
	return true;
}
