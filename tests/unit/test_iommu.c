/* Tests for drivers/fw/iommu.c: the DMA remapping units of DMAR (Intel VT-d 3.x, 8.1 and 8.3
 * DRHD), IVRS (AMD IOMMU spec 48882, 5.2: IVHD types 10h/11h/40h, the same unit listed once per
 * type) and IORT (Arm DEN 0049, 3.1: SMMUv1/v2 node type 3, SMMUv3 node type 4), malformed tables
 * read as far as they are sound, and each unit's state from a register model: VT-d GSTS.TES
 * (11.4.5, bit 31) and PMEN.PRS (11.4.13, bit 0), AMD IOMMU Control IommuEn (MMIO 0018h bit 0),
 * SMMUv3 SMMU_CR0.SMMUEN and SMMU_GBPA.ABORT (IHI 0070, 6.3.9, 6.3.14), SMMUv2 sCR0.CLIENTPD
 * (IHI 0062, 10.6.1). Then the verdict on the boot stick's DMA: translation or protection left on
 * refuses saving with a reason unless the firmware mapped the buffer through its IoMmu protocol. */
#include <string.h>

#include "drivers/fw/acpi.h"
#include "drivers/fw/iommu.h"
#include "test.h"

#define TABLE_MAX 256
#define VTD_BASE 0xFED90000ull
#define VTD_BASE2 0xFED91000ull
#define AMD_BASE 0xFEB80000ull
#define SMMU_BASE 0x09050000ull

static void put(uint8_t *p, uint64_t v, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void header(uint8_t *t, const char *sig, uint32_t len)
{
	memcpy(t, sig, 4);
	put(t + 4, len, 4);
}

/* DMAR: two DRHDs (segment 0 and 1) around an RMRR (type 1) the parser must step over. */
static uint32_t dmar(uint8_t *t, uint8_t flags)
{
	uint32_t off = 48;

	memset(t, 0, TABLE_MAX);
	t[36] = 38; /* host address width - 1 */
	t[37] = flags;
	put(t + off, 0, 2), put(t + off + 2, 16, 2), put(t + off + 6, 0, 2), put(t + off + 8, VTD_BASE, 8);
	off += 16;
	put(t + off, 1, 2), put(t + off + 2, 24, 2); /* RMRR */
	off += 24;
	put(t + off, 0, 2), put(t + off + 2, 16, 2), put(t + off + 6, 1, 2), put(t + off + 8, VTD_BASE2, 8);
	off += 16;
	header(t, "DMAR", off);
	return off;
}

static void dmar_units(void)
{
	uint8_t t[TABLE_MAX];
	struct iommu_info info = { 0 };

	dmar(t, 1u << 2);
	iommu_parse(t, &info);
	CHECK_EQ_U64(info.kind, IOMMU_VTD);
	CHECK_EQ_U64(info.units, 2);
	CHECK_EQ_U64(info.unit[0].base, VTD_BASE);
	CHECK_EQ_U64(info.unit[1].base, VTD_BASE2);
	CHECK_EQ_U64(info.unit[1].segment, 1);
	CHECK_EQ_U64(info.dmar_flags, 1u << 2);
	CHECK(info.why == NULL);
}

static void dmar_structure_past_end(void)
{
	uint8_t t[TABLE_MAX];
	struct iommu_info info = { 0 };
	uint32_t len = dmar(t, 0);

	put(t + 48 + 16 + 2, 200, 2); /* the RMRR claims more than the table holds */
	header(t, "DMAR", len);
	iommu_parse(t, &info);
	CHECK_EQ_U64(info.units, 1); /* what came before it is kept */
	CHECK(info.why != NULL);
}

static void ivrs_one_unit_two_types(void)
{
	uint8_t t[TABLE_MAX] = { 0 };
	uint32_t off = 48;

	t[off] = 0x10, put(t + off + 2, 24, 2), put(t + off + 8, AMD_BASE, 8);
	off += 24;
	t[off] = 0x11, put(t + off + 2, 40, 2), put(t + off + 8, AMD_BASE, 8);
	off += 40;
	t[off] = 0x21, put(t + off + 2, 32, 2); /* IVMD */
	off += 32;
	header(t, "IVRS", off);
	{
		struct iommu_info info = { 0 };

		iommu_parse(t, &info);
		CHECK_EQ_U64(info.kind, IOMMU_AMDVI);
		CHECK_EQ_U64(info.units, 1);
		CHECK_EQ_U64(info.unit[0].base, AMD_BASE);
	}
}

static void iort_smmus(void)
{
	uint8_t t[TABLE_MAX] = { 0 };
	uint32_t off = 48;
	struct iommu_info info = { 0 };

	put(t + 36, 3, 4), put(t + 40, off, 4);
	t[off] = 0, put(t + off + 1, 24, 2); /* ITS group */
	off += 24;
	t[off] = 4, put(t + off + 1, 68, 2), put(t + off + 16, SMMU_BASE, 8);
	off += 68;
	t[off] = 3, put(t + off + 1, 76, 2), put(t + off + 16, SMMU_BASE + 0x100000, 8);
	off += 76;
	header(t, "IORT", off);
	iommu_parse(t, &info);
	CHECK_EQ_U64(info.units, 2);
	CHECK_EQ_U64(info.unit[0].kind, IOMMU_SMMUV3);
	CHECK_EQ_U64(info.unit[0].base, SMMU_BASE);
	CHECK_EQ_U64(info.unit[1].kind, IOMMU_SMMUV2);
}

static void other_tables_ignored(void)
{
	uint8_t t[TABLE_MAX] = { 0 };
	struct iommu_info info = { 0 };

	header(t, "APIC", 64);
	iommu_parse(t, &info);
	CHECK_EQ_U64(info.units, 0);
	CHECK_EQ_U64(info.kind, IOMMU_NONE);
}

/* A register file: offset -> value within one unit's block. */
struct regs {
	uint64_t base;
	uint32_t v[0x100 / 4];
};

static uint32_t regs_read(void *ctx, uint64_t addr)
{
	struct regs *r = ctx;

	return addr >= r->base && addr < r->base + sizeof(r->v) ? r->v[(addr - r->base) / 4] : 0xFFFFFFFFu;
}

static void vtd_states(void)
{
	struct regs r = { .base = VTD_BASE };
	struct iommu_unit u = { .kind = IOMMU_VTD, .base = VTD_BASE };

	CHECK_EQ_U64(iommu_unit_state(&u, regs_read, &r), IOMMU_PASS);
	r.v[VTD_GSTS / 4] = VTD_GSTS_TES;
	CHECK_EQ_U64(iommu_unit_state(&u, regs_read, &r), IOMMU_TRANSLATE);
	r.v[VTD_GSTS / 4] = 1u << 30; /* RTPS alone: a root table set, translation still off */
	CHECK_EQ_U64(iommu_unit_state(&u, regs_read, &r), IOMMU_PASS);
	r.v[VTD_PMEN / 4] = 1u << 31 | VTD_PMEN_PRS; /* EPM and PRS: protected memory regions on */
	CHECK_EQ_U64(iommu_unit_state(&u, regs_read, &r), IOMMU_PROTECT);
}

static void amd_and_smmu_states(void)
{
	struct regs r = { .base = AMD_BASE };
	struct iommu_unit u = { .kind = IOMMU_AMDVI, .base = AMD_BASE };

	CHECK_EQ_U64(iommu_unit_state(&u, regs_read, &r), IOMMU_PASS);
	r.v[AMDVI_CONTROL / 4] = AMDVI_CONTROL_EN;
	CHECK_EQ_U64(iommu_unit_state(&u, regs_read, &r), IOMMU_TRANSLATE);
	memset(&r, 0, sizeof(r));
	r.base = u.base = SMMU_BASE;
	u.kind = IOMMU_SMMUV3;
	CHECK_EQ_U64(iommu_unit_state(&u, regs_read, &r), IOMMU_PASS);
	r.v[SMMUV3_GBPA / 4] = SMMUV3_GBPA_ABORT;
	CHECK_EQ_U64(iommu_unit_state(&u, regs_read, &r), IOMMU_PROTECT);
	r.v[SMMUV3_CR0 / 4] = SMMUV3_CR0_SMMUEN;
	CHECK_EQ_U64(iommu_unit_state(&u, regs_read, &r), IOMMU_TRANSLATE);
	memset(&r, 0, sizeof(r));
	r.base = SMMU_BASE;
	u.kind = IOMMU_SMMUV2;
	CHECK_EQ_U64(iommu_unit_state(&u, regs_read, &r), IOMMU_TRANSLATE);
	r.v[SMMUV2_SCR0 / 4] = SMMUV2_SCR0_CLIENTPD;
	CHECK_EQ_U64(iommu_unit_state(&u, regs_read, &r), IOMMU_PASS);
}

/* The case: translation on (EDK II PcdVTdPolicyPropertyMask BIT1 keeps it after
 * ExitBootServices) with no firmware mapping is a refusal with the reason, never a silent fault. */
static void translation_on_refuses_unless_fw_mapped(void)
{
	const char *why = iommu_dma_refusal(IOMMU_TRANSLATE, false);

	CHECK(why && strstr(why, "translates"));
	CHECK(iommu_dma_refusal(IOMMU_TRANSLATE, true) == NULL);
	why = iommu_dma_refusal(IOMMU_PROTECT, false);
	CHECK(why && strstr(why, "protect"));
	CHECK(iommu_dma_refusal(IOMMU_PASS, false) == NULL);
	CHECK_STR(iommu_kind_name(IOMMU_VTD), "vt-d");
	CHECK_STR(iommu_state_name(IOMMU_TRANSLATE), "translate");
}

static void checksum(uint8_t *t, unsigned len, unsigned off)
{
	t[off] = 0;
	t[off] = (uint8_t)(0x100 - acpi_checksum(t, len));
}

/* acpi_parse keeps where DMAR, IVRS and IORT are (ACPI 6.5, 5.2.8: the XSDT's entries), for
 * iommu_parse to read; a DMAR whose checksum fails is not believed. */
static void acpi_finds_the_tables(void)
{
	static uint8_t rsdp[36], xsdt[36 + 3 * 8], d[TABLE_MAX], i[64], o[48];
	struct acpi_info a = { 0 };
	uint32_t dlen = dmar(d, 0);

	checksum(d, dlen, 9);
	header(i, "IVRS", sizeof(i));
	checksum(i, sizeof(i), 9);
	header(o, "IORT", sizeof(o));
	checksum(o, sizeof(o), 9);
	memset(xsdt, 0, sizeof(xsdt));
	header(xsdt, "XSDT", sizeof(xsdt));
	put(xsdt + 36, (uint64_t)(uintptr_t)d, 8);
	put(xsdt + 44, (uint64_t)(uintptr_t)i, 8);
	put(xsdt + 52, (uint64_t)(uintptr_t)o, 8);
	checksum(xsdt, sizeof(xsdt), 9);
	memcpy(rsdp, "RSD PTR ", 8);
	rsdp[15] = 2;
	put(rsdp + 20, sizeof(rsdp), 4);
	put(rsdp + 24, (uint64_t)(uintptr_t)xsdt, 8);
	checksum(rsdp, 20, 8);
	checksum(rsdp, sizeof(rsdp), 32);
	CHECK(acpi_parse((uint64_t)(uintptr_t)rsdp, &a));
	CHECK_EQ_U64(a.dmar, (uintptr_t)d);
	CHECK_EQ_U64(a.ivrs, (uintptr_t)i);
	CHECK_EQ_U64(a.iort, (uintptr_t)o);
	d[40] ^= 1; /* a reserved byte: the checksum no longer holds */
	a = (struct acpi_info){ 0 };
	CHECK(acpi_parse((uint64_t)(uintptr_t)rsdp, &a));
	CHECK_EQ_U64(a.dmar, 0);
}

TEST_SUITE(iommu) = {
	{ "acpi_finds_the_tables", acpi_finds_the_tables },
	{ "dmar_units", dmar_units },
	{ "dmar_structure_past_end", dmar_structure_past_end },
	{ "ivrs_one_unit_two_types", ivrs_one_unit_two_types },
	{ "iort_smmus", iort_smmus },
	{ "other_tables_ignored", other_tables_ignored },
	{ "vtd_states", vtd_states },
	{ "amd_and_smmu_states", amd_and_smmu_states },
	{ "translation_on_refuses_unless_fw_mapped", translation_on_refuses_unless_fw_mapped },
	{ 0, 0 },
};
