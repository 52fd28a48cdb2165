/* ACPI table discovery (see acpi.h). Offsets per the ACPI 6.x specification, chapter 5.2. */
#include "drivers/fw/acpi.h"

#include "lib/le.h"

/* RSDP */
#define RSDP_SIGNATURE "RSD PTR "
#define RSDP_V1_LEN 20
#define RSDP_OFF_REVISION 15
#define RSDP_OFF_RSDT 16
#define RSDP_OFF_LENGTH 20
#define RSDP_OFF_XSDT 24
#define RSDP_V2_LEN 36

/* Common table header */
#define SDT_OFF_LENGTH 4
#define SDT_OFF_REVISION 8
#define SDT_HEADER_LEN 36
#define SDT_OFF_OEM_ID 10       /* 6 bytes */
#define SDT_OFF_OEM_TABLE_ID 16 /* 8 bytes */
#define SDT_MAX_LEN (16u << 20) /* sanity bound: no table we read is this large */

/* FADT */
#define FADT_OFF_DSDT 40
#define FADT_OFF_PM1A_CNT 64
#define FADT_OFF_PM1B_CNT 68
#define FADT_OFF_PM_TMR 76
#define FADT_OFF_FLAGS 112
#define FADT_OFF_RESET_REG 116
#define FADT_OFF_RESET_VALUE 128
#define FADT_OFF_ARM_BOOT_ARCH 129 /* 2 bytes, ACPI 5.1+ */
#define FADT_OFF_X_DSDT 140
#define FADT_OFF_X_PM1A_CNT 172
#define FADT_OFF_X_PM_TMR 208
#define FADT_FLAG_TMR_VAL_EXT (1u << 8)
#define FADT_FLAG_RESET_REG_SUP (1u << 10)
#define GAS_LEN 12
#define GAS_OFF_SPACE 0
#define GAS_OFF_BIT_WIDTH 1
#define GAS_OFF_ACCESS 3
#define GAS_OFF_ADDRESS 4

/* HPET table */
#define HPET_OFF_BASE_GAS 40

/* SPCR */
#define SPCR_OFF_INTERFACE 36
#define SPCR_OFF_BASE_GAS 40
#define SPCR_OFF_BAUD 58
/* Revision 3 added the UART clock frequency (Hz, 0 = not given), revision 4 the precise baud rate
 * (0 = the enumerated Configured Baud Rate stands) (Microsoft, "Serial Port Console Redirection
 * Table", revisions 3 and 4). Revision 2 tables are 80 bytes, reserved from offset 76. */
#define SPCR_OFF_UART_CLOCK 76
#define SPCR_OFF_PRECISE_BAUD 80
#define SPCR_REV_UART_CLOCK 3
#define SPCR_REV_PRECISE_BAUD 4
#define SPCR_IF_16550 0x00
#define SPCR_IF_16450 0x01
#define SPCR_IF_16550_GAS 0x12
#define SPCR_IF_PL011 0x03
#define SPCR_IF_SBSA_32BIT 0x0D
#define SPCR_IF_SBSA 0x0E

/* AML opcodes used by \_S5 */
#define AML_PACKAGE_OP 0x12
#define AML_ZERO_OP 0x00
#define AML_ONE_OP 0x01
#define AML_BYTE_PREFIX 0x0A

static const uint8_t *ptr(uint64_t addr)
{
	return (const uint8_t *)(uintptr_t)addr;
}

uint8_t acpi_checksum(const void *p, uint32_t len)
{
	const uint8_t *b = p;
	uint8_t sum = 0;

	while (len--)
		sum = (uint8_t)(sum + *b++);
	return sum;
}

static bool sig_is(const uint8_t *t, const char *sig)
{
	return t[0] == sig[0] && t[1] == sig[1] && t[2] == sig[2] && t[3] == sig[3];
}

/* Why a table is not trusted (NULL: it is): its length must hold the header and stay within the
 * sanity bound, and its bytes must sum to zero. */
static const char *table_refusal(const uint8_t *t)
{
	uint32_t len = rd32(t + SDT_OFF_LENGTH);

	if (len < SDT_HEADER_LEN)
		return "length shorter than the 36-byte table header";
	if (len > SDT_MAX_LEN)
		return "length over the 16 MiB sanity bound";
	if (acpi_checksum(t, len) != 0)
		return "checksum does not sum to zero";
	return 0;
}

static bool table_valid(const uint8_t *t)
{
	return table_refusal(t) == 0;
}

static uint32_t table_len(const uint8_t *t)
{
	return rd32(t + SDT_OFF_LENGTH);
}

/* Reads a 32-bit block address, else the 64-bit GAS of the same block when it is in I/O space. */
static uint16_t io_block(const uint8_t *fadt, uint32_t len, unsigned off32, unsigned off_gas)
{
	uint32_t port = rd32(fadt + off32);

	if (!port && len >= off_gas + GAS_LEN && fadt[off_gas + GAS_OFF_SPACE] == ACPI_GAS_IO)
		port = (uint32_t)rd64(fadt + off_gas + GAS_OFF_ADDRESS);
	return port <= 0xFFFF ? (uint16_t)port : 0;
}

/* PkgLength (ACPI 20.2.4): the lead byte's bits 7:6 count the bytes that follow. */
static uint32_t pkg_length_bytes(uint8_t lead)
{
	return 1u + (lead >> 6);
}

static bool aml_small_int(const uint8_t *p, const uint8_t *end, uint8_t *value, uint32_t *used)
{
	if (p >= end)
		return false;
	switch (*p) {
	case AML_ZERO_OP:
		*value = 0;
		*used = 1;
		return true;
	case AML_ONE_OP:
		*value = 1;
		*used = 1;
		return true;
	case AML_BYTE_PREFIX:
		if (p + 1 >= end)
			return false;
		*value = p[1];
		*used = 2;
		return true;
	default:
		return false;
	}
}

bool acpi_find_s5(const uint8_t *aml, uint32_t len, uint8_t *typ_a, uint8_t *typ_b)
{
	const uint8_t *end = aml + len;
	uint32_t i;

	for (i = 0; i + 5 < len; i++) {
		const uint8_t *p = aml + i;
		uint32_t used;

		if (!(p[0] == '_' && p[1] == 'S' && p[2] == '5' && p[3] == '_' && p[4] == AML_PACKAGE_OP))
			continue;
		/* The name must be a NameOp's operand (possibly with a root prefix), not a reference. */
		if (i == 0 || (p[-1] != 0x08 && !(p[-1] == '\\' && i >= 2 && p[-2] == 0x08)))
			continue;
		p += 5;
		p += pkg_length_bytes(*p);
		p++; /* NumElements */
		if (!aml_small_int(p, end, typ_a, &used))
			continue;
		p += used;
		if (!aml_small_int(p, end, typ_b, &used))
			*typ_b = 0;
		return true;
	}
	return false;
}

static void parse_fadt(const uint8_t *t, struct acpi_info *info)
{
	uint32_t len = table_len(t);
	uint64_t dsdt = 0;

	info->fadt_present = true;
	if (len < FADT_OFF_FLAGS + 4)
		return;
	info->pm1a_cnt = io_block(t, len, FADT_OFF_PM1A_CNT, FADT_OFF_X_PM1A_CNT);
	info->pm1b_cnt = (uint16_t)rd32(t + FADT_OFF_PM1B_CNT);
	info->pm_timer_port = io_block(t, len, FADT_OFF_PM_TMR, FADT_OFF_X_PM_TMR);
	info->pm_timer_32bit = rd32(t + FADT_OFF_FLAGS) & FADT_FLAG_TMR_VAL_EXT;
	if ((rd32(t + FADT_OFF_FLAGS) & FADT_FLAG_RESET_REG_SUP) && len >= FADT_OFF_RESET_VALUE + 1 &&
	    t[FADT_OFF_RESET_REG + GAS_OFF_SPACE] == ACPI_GAS_IO) {
		info->reset_port = (uint16_t)rd64(t + FADT_OFF_RESET_REG + GAS_OFF_ADDRESS);
		info->reset_value = t[FADT_OFF_RESET_VALUE];
	}
	if (len >= FADT_OFF_ARM_BOOT_ARCH + 2) {
		info->arm_boot_valid = true;
		info->arm_boot_flags = (uint16_t)(t[FADT_OFF_ARM_BOOT_ARCH] | t[FADT_OFF_ARM_BOOT_ARCH + 1] << 8);
	}
	if (len >= FADT_OFF_X_DSDT + 8)
		dsdt = rd64(t + FADT_OFF_X_DSDT);
	if (!dsdt)
		dsdt = rd32(t + FADT_OFF_DSDT);
	if (dsdt && table_valid(ptr(dsdt)) && sig_is(ptr(dsdt), "DSDT"))
		info->s5_found = acpi_find_s5(ptr(dsdt) + SDT_HEADER_LEN, table_len(ptr(dsdt)) - SDT_HEADER_LEN,
					      &info->s5_typ_a, &info->s5_typ_b);
}

static void parse_hpet(const uint8_t *t, struct acpi_info *info)
{
	if (table_len(t) < HPET_OFF_BASE_GAS + GAS_LEN || t[HPET_OFF_BASE_GAS + GAS_OFF_SPACE] != ACPI_GAS_MEMORY)
		return;
	info->hpet_base = rd64(t + HPET_OFF_BASE_GAS + GAS_OFF_ADDRESS);
	info->hpet_present = info->hpet_base != 0;
}

/* MCFG (PCI Firmware Specification 3.0, 4.1.2): 44-byte header, then 16-byte allocations. */
#define MCFG_OFF_ALLOC 44
#define MCFG_ALLOC_LEN 16
#define MCFG_ALLOC_OFF_SEGMENT 8
#define MCFG_ALLOC_OFF_BUS_START 10
#define MCFG_ALLOC_OFF_BUS_END 11

static bool mcfg_listed(const struct acpi_info *info, const struct acpi_mcfg_seg *m)
{
	for (unsigned i = 0; i < info->mcfg_segments; i++)
		if (info->mcfg[i].base == m->base && info->mcfg[i].segment == m->segment &&
		    info->mcfg[i].bus_start == m->bus_start && info->mcfg[i].bus_end == m->bus_end)
			return true;
	return false;
}

/* Every distinct allocation of every MCFG table is kept (up to ACPI_MAX_MCFG_SEGMENTS); the mcfg_* fields name segment 0's
 * first one, the one the firmware reaches its boot device through. */
static void parse_mcfg(const uint8_t *t, struct acpi_info *info)
{
	for (uint32_t off = MCFG_OFF_ALLOC; off + MCFG_ALLOC_LEN <= table_len(t); off += MCFG_ALLOC_LEN) {
		const uint8_t *a = t + off;
		uint16_t seg = (uint16_t)(a[MCFG_ALLOC_OFF_SEGMENT] | a[MCFG_ALLOC_OFF_SEGMENT + 1] << 8);

		struct acpi_mcfg_seg m = { rd64(a), seg, a[MCFG_ALLOC_OFF_BUS_START], a[MCFG_ALLOC_OFF_BUS_END] };

		if (mcfg_listed(info, &m))
			continue; /* firmware that lists the same MCFG twice (seen on an X299 board) */
		if (info->mcfg_segments < ACPI_MAX_MCFG_SEGMENTS)
			info->mcfg[info->mcfg_segments++] = m;
		else
			info->mcfg_dropped++;
		if (seg || info->mcfg_present)
			continue;
		info->mcfg_base = rd64(a);
		info->mcfg_bus_start = a[MCFG_ALLOC_OFF_BUS_START];
		info->mcfg_bus_end = a[MCFG_ALLOC_OFF_BUS_END];
		info->mcfg_present = info->mcfg_base != 0;
	}
}

/* ECAM layout (PCI Express Base Specification, 7.2.2): bus 27:20, device 19:15, function 14:12. */
#define ECAM_BUS_SHIFT 20
#define ECAM_DEV_SHIFT 15
#define ECAM_FN_SHIFT 12

bool acpi_ecam_address(const struct acpi_info *info, uint16_t segment, uint8_t bus, uint8_t dev, uint8_t fn,
		       uint64_t *addr)
{
	for (unsigned i = 0; i < info->mcfg_segments; i++) {
		const struct acpi_mcfg_seg *m = &info->mcfg[i];

		if (m->segment != segment || bus < m->bus_start || bus > m->bus_end || !m->base)
			continue;
		/* The base is bus 0's even when the allocation starts at a later bus. */
		*addr = m->base + ((uint64_t)bus << ECAM_BUS_SHIFT) + ((uint64_t)dev << ECAM_DEV_SHIFT) +
			((uint64_t)fn << ECAM_FN_SHIFT);
		return true;
	}
	return false;
}

static void parse_spcr(const uint8_t *t, struct acpi_info *info)
{
	static const uint32_t bauds[8] = { 0, 0, 0, 9600, 19200, 0, 57600, 115200 };
	uint8_t iface;
	const uint8_t *gas;
	bool pl011;

	if (table_len(t) < SPCR_OFF_BAUD + 1)
		return;
	iface = t[SPCR_OFF_INTERFACE];
	info->spcr_interface = iface;
	pl011 = iface == SPCR_IF_PL011 || iface == SPCR_IF_SBSA || iface == SPCR_IF_SBSA_32BIT;
	if (iface != SPCR_IF_16550 && iface != SPCR_IF_16450 && iface != SPCR_IF_16550_GAS && !pl011)
		return; /* not a UART our drivers speak */
	gas = t + SPCR_OFF_BASE_GAS;
	info->spcr_space = gas[GAS_OFF_SPACE];
	info->spcr_bit_width = gas[GAS_OFF_BIT_WIDTH];
	info->spcr_access = gas[GAS_OFF_ACCESS];
	info->spcr_base = rd64(gas + GAS_OFF_ADDRESS);
	info->spcr_baud = t[SPCR_OFF_BAUD] < 8 ? bauds[t[SPCR_OFF_BAUD]] : 0;
	if (t[SDT_OFF_REVISION] >= SPCR_REV_UART_CLOCK && table_len(t) >= SPCR_OFF_UART_CLOCK + 4)
		info->spcr_clock_hz = rd32(t + SPCR_OFF_UART_CLOCK);
	if (t[SDT_OFF_REVISION] >= SPCR_REV_PRECISE_BAUD && table_len(t) >= SPCR_OFF_PRECISE_BAUD + 4 &&
	    rd32(t + SPCR_OFF_PRECISE_BAUD))
		info->spcr_baud = rd32(t + SPCR_OFF_PRECISE_BAUD);
	if (pl011) {
		info->spcr_pl011 = info->spcr_base != 0 && info->spcr_space == ACPI_GAS_MEMORY;
		return;
	}
	info->spcr_present = info->spcr_base != 0 &&
			     (info->spcr_space == ACPI_GAS_IO || info->spcr_space == ACPI_GAS_MEMORY);
}

static void visit_table(uint64_t addr, struct acpi_info *info)
{
	const uint8_t *t = ptr(addr);
	const char *why = addr ? table_refusal(t) : "a null address in the XSDT/RSDT";

	if (why) {
		if (!info->bad_checksums++) {
			for (int i = 0; i < 4; i++)
				info->refused_sig[i] = addr && t[i] >= 0x20 && t[i] < 0x7F ? (char)t[i] : '?';
			info->refused_sig[4] = '\0';
			info->refused_why = why;
		}
		return;
	}
	if (info->num_tables < ACPI_MAX_TABLES) {
		char *s = info->signatures[info->num_tables++];

		for (int i = 0; i < 4; i++)
			s[i] = (t[i] >= 0x20 && t[i] < 0x7F) ? (char)t[i] : '?';
		s[4] = '\0';
	}
	if ((sig_is(t, "FACP") || sig_is(t, "APIC")) && (!info->oem_found || sig_is(t, "FACP"))) {
		info->oem_found = true;
		for (int i = 0; i < 6; i++)
			info->oem_id[i] = t[SDT_OFF_OEM_ID + i];
		for (int i = 0; i < 8; i++)
			info->oem_table_id[i] = t[SDT_OFF_OEM_TABLE_ID + i];
	}
	if (sig_is(t, "FACP"))
		parse_fadt(t, info);
	else if (sig_is(t, "HPET"))
		parse_hpet(t, info);
	else if (sig_is(t, "MCFG"))
		parse_mcfg(t, info);
	else if (sig_is(t, "SPCR"))
		parse_spcr(t, info);
	else if (sig_is(t, "APIC"))
		info->madt = addr;
	else if (sig_is(t, "DMAR"))
		info->dmar = addr;
	else if (sig_is(t, "IVRS"))
		info->ivrs = addr;
	else if (sig_is(t, "IORT"))
		info->iort = addr;
}

bool acpi_parse(uint64_t rsdp, struct acpi_info *info)
{
	const uint8_t *r = ptr(rsdp);
	uint64_t root = 0;
	unsigned entry_size = 4, i, n;
	const char *sig = RSDP_SIGNATURE;

	*info = (struct acpi_info){ 0 };
	info->why = "no RSDP address";
	if (!rsdp)
		return false;
	info->why = "no \"RSD PTR \" signature at the RSDP address";
	for (i = 0; i < 8; i++)
		if (r[i] != (uint8_t)sig[i])
			return false;
	info->why = "RSDP checksum (first 20 bytes) does not sum to zero";
	if (acpi_checksum(r, RSDP_V1_LEN) != 0)
		return false;
	info->rsdp = rsdp;
	info->revision = r[RSDP_OFF_REVISION];
	if (info->revision >= 2 && rd32(r + RSDP_OFF_LENGTH) >= RSDP_V2_LEN &&
	    acpi_checksum(r, rd32(r + RSDP_OFF_LENGTH)) == 0 && rd64(r + RSDP_OFF_XSDT)) {
		root = rd64(r + RSDP_OFF_XSDT);
		entry_size = 8;
	} else {
		root = rd32(r + RSDP_OFF_RSDT);
	}
	if (!root) {
		info->why = "the RSDP names no XSDT or RSDT";
		return false;
	}
	if (table_refusal(ptr(root))) {
		info->why = table_refusal(ptr(root)); /* of the XSDT/RSDT itself */
		return false;
	}
	info->why = 0;
	info->present = true;
	n = (table_len(ptr(root)) - SDT_HEADER_LEN) / entry_size;
	for (i = 0; i < n; i++) {
		const uint8_t *e = ptr(root) + SDT_HEADER_LEN + i * entry_size;

		visit_table(entry_size == 8 ? rd64(e) : rd32(e), info);
	}
	return true;
}
