/* MADT parsing over synthetic tables built in host memory: QEMU's shape, x2APIC entries, the
 * address override, disabled / online-capable / duplicate processors, and broken entries. */
#include <stdint.h>

#include "drivers/fw/acpi.h"
#include "drivers/fw/madt.h"
#include "tests/unit/test.h"

#define TABLE_MAX 8192

static uint8_t table[TABLE_MAX];
static unsigned table_len;

static void put32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }
static void put64(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); }

static void begin(uint32_t lapic_addr, uint32_t flags)
{
	memset(table, 0, sizeof(table));
	memcpy(table, "APIC", 4);
	table[8] = 4; /* revision */
	put32(table + MADT_OFF_LAPIC_ADDR, lapic_addr);
	put32(table + MADT_OFF_FLAGS, flags);
	table_len = MADT_OFF_ENTRIES;
}

static uint8_t *entry(uint8_t type, uint8_t len)
{
	uint8_t *e = table + table_len;

	e[0] = type;
	e[1] = len;
	table_len += len;
	return e;
}

static void lapic(uint8_t uid, uint8_t id, uint32_t flags)
{
	uint8_t *e = entry(MADT_TYPE_LOCAL_APIC, MADT_LEN_LOCAL_APIC);

	e[2] = uid;
	e[3] = id;
	put32(e + 4, flags);
}

static void x2apic(uint32_t id, uint32_t uid, uint32_t flags)
{
	uint8_t *e = entry(MADT_TYPE_LOCAL_X2APIC, MADT_LEN_LOCAL_X2APIC);

	put32(e + 4, id);
	put32(e + 8, flags);
	put32(e + 12, uid);
}

/* Close the table: length and checksum. */
static uint64_t finish(void)
{
	put32(table + 4, table_len);
	table[9] = 0;
	table[9] = (uint8_t)(0x100 - acpi_checksum(table, table_len));
	return (uint64_t)(uintptr_t)table;
}

/* What QEMU q35 gives with -smp 4: four enabled local APICs, an I/O APIC, overrides, LINT1 NMI. */
static void qemu_shape(void)
{
	struct madt_info m;
	uint8_t *e;

	begin(0xFEE00000, MADT_FLAG_PCAT_COMPAT);
	for (unsigned i = 0; i < 4; i++)
		lapic((uint8_t)i, (uint8_t)i, MADT_LAPIC_ENABLED);
	e = entry(1, 12); /* I/O APIC */
	e[2] = 0;
	put32(e + 4, 0xFEC00000);
	entry(2, 10); /* interrupt source override */
	entry(2, 10);
	e = entry(4, 6); /* local APIC NMI */
	e[2] = 0xFF;
	CHECK(madt_parse(finish(), &m));
	CHECK(m.valid);
	CHECK(m.pcat_compat);
	CHECK_EQ_U64(m.lapic_base, 0xFEE00000);
	CHECK(!m.lapic_override);
	CHECK_EQ_U64(m.num_cpus, 4);
	CHECK_EQ_U64(m.num_enabled, 4);
	CHECK_EQ_U64(m.num_online_capable, 0);
	CHECK_EQ_U64(m.num_malformed, 0);
	for (unsigned i = 0; i < 4; i++) {
		CHECK_EQ_U64(m.cpus[i].apic_id, i);
		CHECK_EQ_U64(m.cpus[i].uid, i);
		CHECK(madt_cpu_enabled(&m.cpus[i]));
		CHECK(!m.cpus[i].from_x2apic);
	}
}

static void flags_sort_processors(void)
{
	struct madt_info m;

	begin(0xFEE00000, 0);
	lapic(0, 0, MADT_LAPIC_ENABLED);
	lapic(1, 2, 0);                         /* absent: not usable, not kept */
	lapic(2, 4, MADT_LAPIC_ONLINE_CAPABLE); /* hot-pluggable: kept, not enabled */
	lapic(3, 6, MADT_LAPIC_ENABLED);
	CHECK(madt_parse(finish(), &m));
	CHECK_EQ_U64(m.num_cpus, 3);
	CHECK_EQ_U64(m.num_enabled, 2);
	CHECK_EQ_U64(m.num_online_capable, 1);
	CHECK_EQ_U64(m.num_unusable, 1);
	CHECK_EQ_U64(m.cpus[1].apic_id, 4);
	CHECK(!madt_cpu_enabled(&m.cpus[1]));
	CHECK_EQ_U64(m.cpus[2].apic_id, 6);
	CHECK(!m.pcat_compat);
}

static void x2apic_entries_and_duplicates(void)
{
	struct madt_info m;

	begin(0xFEE00000, 0);
	lapic(0, 0, MADT_LAPIC_ENABLED);
	x2apic(0x100, 300, MADT_LAPIC_ENABLED);
	x2apic(0, 0, MADT_LAPIC_ENABLED); /* the BSP again, as some firmware lists it twice */
	x2apic(0x12345, 301, MADT_LAPIC_ENABLED);
	CHECK(madt_parse(finish(), &m));
	CHECK_EQ_U64(m.num_cpus, 3);
	CHECK_EQ_U64(m.num_duplicates, 1);
	CHECK_EQ_U64(m.cpus[1].apic_id, 0x100);
	CHECK_EQ_U64(m.cpus[1].uid, 300);
	CHECK(m.cpus[1].from_x2apic);
	CHECK_EQ_U64(m.cpus[2].apic_id, 0x12345);
}

static void address_override(void)
{
	struct madt_info m;
	uint8_t *e;

	begin(0xFEE00000, 0);
	lapic(0, 0, MADT_LAPIC_ENABLED);
	e = entry(MADT_TYPE_LOCAL_APIC_OVERRIDE, MADT_LEN_LOCAL_APIC_OVERRIDE);
	put64(e + 4, 0x1FEE00000ull);
	CHECK(madt_parse(finish(), &m));
	CHECK(m.lapic_override);
	CHECK_EQ_U64(m.lapic_base, 0x1FEE00000ull);
}

static void short_entries_are_skipped(void)
{
	struct madt_info m;
	uint8_t *e;

	begin(0xFEE00000, 0);
	lapic(0, 0, MADT_LAPIC_ENABLED);
	e = entry(MADT_TYPE_LOCAL_APIC, 6); /* too short to hold the flags */
	e[3] = 9;
	e = entry(MADT_TYPE_LOCAL_APIC_OVERRIDE, 8);
	lapic(1, 1, MADT_LAPIC_ENABLED);
	CHECK(madt_parse(finish(), &m));
	CHECK_EQ_U64(m.num_malformed, 2);
	CHECK_EQ_U64(m.num_cpus, 2);
	CHECK(!m.lapic_override);
	CHECK_EQ_U64(m.cpus[1].apic_id, 1);
}

static void zero_length_entry_ends_the_walk(void)
{
	struct madt_info m;

	begin(0xFEE00000, 0);
	lapic(0, 0, MADT_LAPIC_ENABLED);
	entry(MADT_TYPE_LOCAL_APIC, 0); /* would loop forever if followed */
	table_len += 8;
	CHECK(madt_parse(finish(), &m));
	CHECK_EQ_U64(m.num_cpus, 1);
	CHECK_EQ_U64(m.num_malformed, 1);
}

static void entry_past_the_end(void)
{
	struct madt_info m;
	uint64_t a;

	begin(0xFEE00000, 0);
	lapic(0, 0, MADT_LAPIC_ENABLED);
	lapic(1, 1, MADT_LAPIC_ENABLED);
	table_len -= 3; /* the table ends inside the second entry */
	a = finish();
	CHECK(madt_parse(a, &m));
	CHECK_EQ_U64(m.num_cpus, 1);
	CHECK_EQ_U64(m.num_malformed, 1);
}

static void capacity_is_bounded(void)
{
	static struct madt_info m;

	begin(0xFEE00000, 0);
	for (unsigned i = 0; i < MADT_MAX_CPUS + 5; i++)
		x2apic(i, i, MADT_LAPIC_ENABLED);
	CHECK(table_len <= TABLE_MAX);
	CHECK(madt_parse(finish(), &m));
	CHECK_EQ_U64(m.num_cpus, MADT_MAX_CPUS);
	CHECK_EQ_U64(m.num_dropped, 5);
}

static void bad_tables_rejected(void)
{
	struct madt_info m;
	uint64_t a;

	begin(0xFEE00000, 0);
	lapic(0, 0, MADT_LAPIC_ENABLED);
	a = finish();
	table[20] ^= 0x5A; /* checksum no longer matches */
	CHECK(!madt_parse(a, &m));
	CHECK(!m.valid);
	CHECK_EQ_U64(m.num_cpus, 0);
	CHECK(m.why && strstr(m.why, "checksum")); /* a refused table says why */

	a = finish();
	table[0] = 'X';
	CHECK(!madt_parse(a, &m));
	CHECK(m.why && strstr(m.why, "signature"));

	begin(0xFEE00000, 0);
	table_len = 40; /* shorter than the fixed fields */
	CHECK(!madt_parse(finish(), &m));
	CHECK(m.why && strstr(m.why, "header"));
	begin(0xFEE00000, 0);
	a = finish();
	put32(table + 4, 2u << 20);
	CHECK(!madt_parse(a, &m));
	CHECK(m.why && strstr(m.why, "bound"));
	CHECK(!madt_parse(0, &m));
	CHECK(m.why != 0);
	begin(0xFEE00000, 0);
	CHECK(madt_parse(finish(), &m));
	CHECK(!m.why);
}

static void ioapic(uint8_t id, uint32_t addr, uint32_t gsi_base)
{
	uint8_t *e = entry(MADT_TYPE_IO_APIC, MADT_LEN_IO_APIC);

	e[2] = id;
	put32(e + 4, addr);
	put32(e + 8, gsi_base);
}

static void iso(uint8_t source, uint32_t gsi, uint16_t flags)
{
	uint8_t *e = entry(MADT_TYPE_ISO, MADT_LEN_ISO);

	e[2] = 0;
	e[3] = source;
	put32(e + 4, gsi);
	e[8] = (uint8_t)flags;
	e[9] = (uint8_t)(flags >> 8);
}

/* q35's shape: one I/O APIC at 0xFEC00000 from GSI 0; IRQ0 -> GSI2, IRQ9 level/active-high, and
 * a short override that must be skipped. */
static void ioapics_and_overrides(void)
{
	struct madt_info m;
	uint16_t fl = 0xFFFF;

	begin(0xFEE00000u, MADT_FLAG_PCAT_COMPAT);
	lapic(0, 0, MADT_LAPIC_ENABLED);
	ioapic(0, 0xFEC00000u, 0);
	iso(0, 2, 0);
	iso(9, 9, MADT_INTI_POLARITY_HIGH | MADT_INTI_TRIGGER_LEVEL);
	entry(MADT_TYPE_ISO, 6);
	CHECK(madt_parse(finish(), &m));
	CHECK_EQ_U64(m.num_ioapics, 1);
	CHECK_EQ_U64(m.ioapics[0].address, 0xFEC00000u);
	CHECK_EQ_U64(m.ioapics[0].gsi_base, 0);
	CHECK_EQ_U64(m.num_isos, 2);
	CHECK_EQ_U64(m.num_malformed, 1);
	CHECK_EQ_U64(madt_isa_gsi(&m, 0, &fl), 2);
	CHECK_EQ_U64(fl, 0);
	CHECK_EQ_U64(madt_isa_gsi(&m, 9, &fl), 9);
	CHECK_EQ_U64(fl & MADT_INTI_TRIGGER_MASK, MADT_INTI_TRIGGER_LEVEL);
	CHECK_EQ_U64(madt_isa_gsi(&m, 4, &fl), 4); /* no override: identity */
	CHECK_EQ_U64(m.num_cpus, 1);
}

static void ioapic_capacity(void)
{
	struct madt_info m;

	begin(0xFEE00000u, 0);
	for (unsigned i = 0; i < MADT_MAX_IOAPICS + 2; i++)
		ioapic((uint8_t)i, 0xFEC00000u + i * 0x1000, i * 24);
	CHECK(madt_parse(finish(), &m));
	CHECK_EQ_U64(m.num_ioapics, MADT_MAX_IOAPICS);
	CHECK_EQ_U64(m.num_dropped_io, 2);
	CHECK_EQ_U64(m.ioapics[3].gsi_base, 72);
}

TEST_SUITE(madt) = {
	{ "ioapics_and_overrides", ioapics_and_overrides },
	{ "ioapic_capacity", ioapic_capacity },
	{ "qemu_shape", qemu_shape },
	{ "flags_sort_processors", flags_sort_processors },
	{ "x2apic_entries_and_duplicates", x2apic_entries_and_duplicates },
	{ "address_override", address_override },
	{ "short_entries_are_skipped", short_entries_are_skipped },
	{ "zero_length_entry_ends_the_walk", zero_length_entry_ends_the_walk },
	{ "entry_past_the_end", entry_past_the_end },
	{ "capacity_is_bounded", capacity_is_bounded },
	{ "bad_tables_rejected", bad_tables_rejected },
	{ 0, 0 },
};
