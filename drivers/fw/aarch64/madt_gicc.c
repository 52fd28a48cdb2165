/* GICC entries of the MADT (see madt_gicc.h). Offsets per ACPI 6.5, section 5.2.12.14. */
#include "drivers/fw/aarch64/madt_gicc.h"

#include "lib/le.h"

#define SDT_OFF_LENGTH 4
#define ENTRY_OFF_TYPE 0
#define ENTRY_OFF_LENGTH 1
#define ENTRY_HEADER_LEN 2

static void add_gicc(struct madt_info *info, const uint8_t *e)
{
	uint32_t gflags = rd32(e + MADT_GICC_OFF_FLAGS), flags = 0;
	uint32_t id = madt_mpidr_pack(rd64(e + MADT_GICC_OFF_MPIDR));
	struct madt_cpu *c;

	if (gflags & MADT_GICC_ENABLED)
		flags = MADT_LAPIC_ENABLED;
	else if (gflags & MADT_GICC_ONLINE_CAPABLE)
		flags = MADT_LAPIC_ONLINE_CAPABLE;
	if (!flags) {
		info->num_unusable++;
		return;
	}
	for (unsigned i = 0; i < info->num_cpus; i++) {
		if (info->cpus[i].apic_id == id) {
			info->num_duplicates++;
			return;
		}
	}
	if (info->num_cpus >= MADT_MAX_CPUS) {
		info->num_dropped++;
		return;
	}
	c = &info->cpus[info->num_cpus++];
	*c = (struct madt_cpu){ .apic_id = id, .uid = rd32(e + MADT_GICC_OFF_UID), .flags = flags };
	if (flags & MADT_LAPIC_ENABLED)
		info->num_enabled++;
	else
		info->num_online_capable++;
}

bool madt_parse_gicc(uint64_t addr, struct madt_info *info)
{
	const uint8_t *t = (const uint8_t *)(uintptr_t)addr;
	uint32_t len, off;

	if (!madt_parse(addr, info))
		return false;
	len = rd32(t + SDT_OFF_LENGTH);
	for (off = MADT_OFF_ENTRIES; off + ENTRY_HEADER_LEN <= len;) {
		const uint8_t *e = t + off;
		uint8_t elen = e[ENTRY_OFF_LENGTH];

		if (elen < ENTRY_HEADER_LEN || off + elen > len)
			break; /* madt_parse() counted it as malformed */
		off += elen;
		if (e[ENTRY_OFF_TYPE] != MADT_TYPE_GICC)
			continue;
		if (elen < MADT_LEN_GICC_MIN) {
			info->num_malformed++;
			continue;
		}
		add_gicc(info, e);
	}
	return true;
}
