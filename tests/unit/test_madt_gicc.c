/* GICC entries of the MADT (drivers/fw/aarch64/madt_gicc.c) over synthetic tables: QEMU virt's shape (GICD,
 * one GICC per core, GICR), the enabled / online-capable / unusable flags, ACPI 6.0's 76-byte
 * entry, short entries, duplicates, Aff3 packing, and the MPIDR round trip PSCI needs. */
#include <stdint.h>

#include "drivers/fw/acpi.h"
#include "drivers/fw/aarch64/madt_gicc.h"
#include "tests/unit/test.h"

#define TABLE_MAX 32768
#define GICC_LEN_QEMU 80 /* ACPI 6.3 shape, as QEMU virt builds it */
#define TYPE_GICD 0x0C
#define LEN_GICD 24
#define TYPE_GICR 0x0E
#define LEN_GICR 16
#define GICC_OFF_CPU_IF 4
#define GICC_OFF_GICR_BASE 60

static uint8_t table[TABLE_MAX];
static unsigned table_len;

static void put32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }
static void put64(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); }

static void begin(void)
{
	memset(table, 0, sizeof(table));
	memcpy(table, "APIC", 4);
	table[8] = 4;
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

static void gicc(uint8_t len, uint32_t uid, uint32_t flags, uint64_t mpidr)
{
	uint8_t *e = entry(MADT_TYPE_GICC, len);

	put32(e + GICC_OFF_CPU_IF, uid);
	put32(e + MADT_GICC_OFF_UID, uid);
	put32(e + MADT_GICC_OFF_FLAGS, flags);
	put64(e + GICC_OFF_GICR_BASE, 0); /* GICv3 with a GICR entry: 0 here */
	if (len >= MADT_LEN_GICC_MIN)
		put64(e + MADT_GICC_OFF_MPIDR, mpidr);
}

static uint64_t finish(void)
{
	put32(table + 4, table_len);
	table[9] = 0;
	table[9] = (uint8_t)(0x100 - acpi_checksum(table, table_len));
	return (uint64_t)(uintptr_t)table;
}

/* QEMU virt, gic-version=3, -smp 2: GICD, GICC for MPIDR 0 and 1 (MPIDR.U/MT clear, bit 31 RES1
 * is not in the table's field), GICR. */
static void qemu_virt_shape(void)
{
	static struct madt_info m;

	begin();
	put64(entry(TYPE_GICD, LEN_GICD) + 8, 0x08000000);
	gicc(GICC_LEN_QEMU, 0, MADT_GICC_ENABLED, 0x0);
	gicc(GICC_LEN_QEMU, 1, MADT_GICC_ENABLED, 0x1);
	put64(entry(TYPE_GICR, LEN_GICR) + 4, 0x080A0000);
	CHECK(madt_parse_gicc(finish(), &m));
	CHECK(m.valid);
	CHECK_EQ_U64(m.num_cpus, 2);
	CHECK_EQ_U64(m.num_enabled, 2);
	CHECK_EQ_U64(m.num_malformed, 0);
	CHECK_EQ_U64(m.cpus[0].apic_id, 0);
	CHECK_EQ_U64(m.cpus[1].apic_id, 1);
	CHECK_EQ_U64(m.cpus[1].uid, 1);
	CHECK(madt_cpu_enabled(&m.cpus[0]) && madt_cpu_enabled(&m.cpus[1]));
	CHECK(!m.cpus[1].from_x2apic);
}

/* Clusters: Aff1 and Aff2 in place, Aff3 (MPIDR 39:32) packed into 31:24 and back. */
static void affinity_packing(void)
{
	static struct madt_info m;
	const uint64_t mpidr[3] = { 0x0000000100ull, 0x0000020301ull, 0x7F00000002ull };

	begin();
	for (unsigned i = 0; i < 3; i++)
		gicc(GICC_LEN_QEMU, i, MADT_GICC_ENABLED, mpidr[i]);
	CHECK(madt_parse_gicc(finish(), &m));
	CHECK_EQ_U64(m.num_cpus, 3);
	CHECK_EQ_U64(m.cpus[0].apic_id, 0x100);
	CHECK_EQ_U64(m.cpus[1].apic_id, 0x020301);
	CHECK_EQ_U64(m.cpus[2].apic_id, 0x7F000002);
	for (unsigned i = 0; i < 3; i++)
		CHECK_EQ_U64(madt_mpidr_unpack(m.cpus[i].apic_id), mpidr[i]);
	/* MPIDR_EL1 as read carries bit 31 (RES1), U (30) and MT (24): not affinity */
	CHECK_EQ_U64(madt_mpidr_pack(0x81000001ull | (1ull << 30)), 0x000001);
	CHECK_EQ_U64(madt_mpidr_pack(0xFF80FFFFFFull), 0xFFFFFFFF);
}

/* Enabled, online-capable (ACPI 6.5 bit 3), neither (not kept), a duplicate affinity. */
static void flags_and_duplicates(void)
{
	static struct madt_info m;

	begin();
	gicc(GICC_LEN_QEMU, 0, MADT_GICC_ENABLED, 0);
	gicc(GICC_LEN_QEMU, 1, MADT_GICC_ONLINE_CAPABLE, 1);
	gicc(GICC_LEN_QEMU, 2, 0, 2);
	gicc(GICC_LEN_QEMU, 3, MADT_GICC_ENABLED, 0);
	gicc(GICC_LEN_QEMU, 4, MADT_GICC_ENABLED | (1u << 1), 4); /* performance interrupt mode bit */
	CHECK(madt_parse_gicc(finish(), &m));
	CHECK_EQ_U64(m.num_cpus, 3);
	CHECK_EQ_U64(m.num_enabled, 2);
	CHECK_EQ_U64(m.num_online_capable, 1);
	CHECK_EQ_U64(m.num_unusable, 1);
	CHECK_EQ_U64(m.num_duplicates, 1);
	CHECK(!madt_cpu_enabled(&m.cpus[1]));
	CHECK_EQ_U64(m.cpus[1].flags, MADT_LAPIC_ONLINE_CAPABLE);
	CHECK_EQ_U64(m.cpus[2].apic_id, 4);
}

/* ACPI 6.0's 76-byte entry is read; a shorter one (no MPIDR) is malformed and skipped, and the
 * walk goes on past it. */
static void entry_lengths(void)
{
	static struct madt_info m;

	begin();
	gicc(MADT_LEN_GICC_MIN, 0, MADT_GICC_ENABLED, 0);
	gicc(MADT_LEN_GICC_MIN - 4, 1, MADT_GICC_ENABLED, 1);
	gicc(GICC_LEN_QEMU + 2, 2, MADT_GICC_ENABLED, 2); /* ACPI 6.5: 82 bytes */
	CHECK(madt_parse_gicc(finish(), &m));
	CHECK_EQ_U64(m.num_cpus, 2);
	CHECK_EQ_U64(m.num_malformed, 1);
	CHECK_EQ_U64(m.cpus[1].apic_id, 2);
}

/* A length running past the table ends the walk; a bad checksum rejects the table. */
static void broken_tables(void)
{
	static struct madt_info m;

	begin();
	gicc(GICC_LEN_QEMU, 0, MADT_GICC_ENABLED, 0);
	entry(MADT_TYPE_GICC, 200); /* claims more than is there */
	table_len -= 200 - 8;
	CHECK(madt_parse_gicc(finish(), &m));
	CHECK_EQ_U64(m.num_cpus, 1);
	CHECK_EQ_U64(m.num_malformed, 1);

	begin();
	gicc(GICC_LEN_QEMU, 0, MADT_GICC_ENABLED, 0);
	finish();
	table[9] ^= 1;
	CHECK(!madt_parse_gicc((uint64_t)(uintptr_t)table, &m));
	CHECK(!m.valid);
	CHECK_EQ_U64(m.num_cpus, 0);
}

/* More usable entries than MADT_MAX_CPUS: the rest are counted, not kept. */
static void capacity(void)
{
	static struct madt_info m;

	begin();
	for (unsigned i = 0; i < MADT_MAX_CPUS + 3; i++)
		gicc(MADT_LEN_GICC_MIN, i, MADT_GICC_ENABLED, i); /* Aff1:Aff0 = i */
	CHECK(table_len <= TABLE_MAX);
	CHECK(madt_parse_gicc(finish(), &m));
	CHECK_EQ_U64(m.num_cpus, MADT_MAX_CPUS);
	CHECK_EQ_U64(m.num_dropped, 3);
}

TEST_SUITE(madt_gicc) = {
	{ "qemu_virt_shape", qemu_virt_shape },
	{ "affinity_packing", affinity_packing },
	{ "flags_and_duplicates", flags_and_duplicates },
	{ "entry_lengths", entry_lengths },
	{ "broken_tables", broken_tables },
	{ "capacity", capacity },
	{ 0, 0 },
};
