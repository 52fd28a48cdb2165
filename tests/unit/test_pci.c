/* Tests for drivers/pci/pci_cfg.c against a configuration-space model: the capability walk (PCI
 * Local Bus 3.0, 6.7), D3hot -> D0 through PMCSR with the 10 ms recovery before the next access
 * (PCI Bus Power Management Interface 1.2, 3.2.4 and 5.6.1 table 18) and BAR0 restored after a
 * transition that reset the function (PMCSR No_Soft_Reset = 0), the command register's enables
 * with the status half's RW1C bits left alone, and BAR0's CPU address from the ACPI address-space
 * descriptors EFI_PCI_IO_PROTOCOL.GetBarAttributes returns (UEFI 2.10, 14.4; ACPI 6.5, 6.4.3.5.1
 * QWORD and 6.4.3.5.2 DWORD descriptors; device address = host address + translation offset,
 * UEFI 2.7 EFI_PCI_ROOT_BRIDGE_IO_PROTOCOL.Configuration). Also the USB DMA region's two
 * addresses (drivers/usb/usb_io.h): bus addresses from bus_base, CPU pointers from base, and its
 * DMA limit. */
#include <string.h>

#include "drivers/pci/pci_cfg.h"
#include "drivers/usb/usb_io.h"
#include "test.h"

#define PM_CAP 0x50
#define MSI_CAP 0x60
#define CAP_ID_MSI 0x05
#define STATUS_RW1C_BITS 0xF9000000u /* status errors (PCI 3.0, 6.2.3): write one to clear */
#define PMCSR_NO_SOFT_RESET (1u << 3)
#define PMCSR_PME_STATUS (1u << 15)
#define BAR0_RESET 0x4u /* a 64-bit memory BAR after reset: address 0 */
#define BAR_BUS 0xF8000000ull
#define BAR_64 0x4u

struct cfg_model {
	uint32_t sp[64];
	uint64_t now_us, ready_at_us; /* no access before ready_at (D3hot recovery) */
	unsigned early_accesses, writes, rw1c_cleared;
};

static uint32_t m_read(void *ctx, uint32_t off)
{
	struct cfg_model *m = ctx;

	if (m->now_us < m->ready_at_us)
		m->early_accesses++;
	return m->sp[off / 4];
}

static void m_write(void *ctx, uint32_t off, uint32_t v)
{
	struct cfg_model *m = ctx;
	uint32_t *r = &m->sp[off / 4];

	if (m->now_us < m->ready_at_us)
		m->early_accesses++;
	m->writes++;
	if (off == PCI_CFG_COMMAND) {
		m->rw1c_cleared += (v & *r & STATUS_RW1C_BITS) != 0;
		*r = (*r & ~(v & STATUS_RW1C_BITS) & 0xFFFF0000u) | (v & 0xFFFFu);
	} else if (off == PM_CAP + PCI_PM_CSR) {
		uint32_t from = *r & PCI_PM_STATE_MASK, to = v & PCI_PM_STATE_MASK;

		*r = (*r & ~PCI_PM_STATE_MASK) | to;
		if (v & PMCSR_PME_STATUS)
			*r &= ~PMCSR_PME_STATUS, m->rw1c_cleared++;
		if (from == PCI_PM_D3HOT && to == PCI_PM_D0) {
			m->ready_at_us = m->now_us + PCI_PM_D3HOT_RECOVERY_US;
			if (!(*r & PMCSR_NO_SOFT_RESET)) { /* internal reset: BARs and command lost */
				m->sp[PCI_CFG_BAR0 / 4] = BAR0_RESET;
				m->sp[PCI_CFG_BAR0 / 4 + 1] = 0;
				m->sp[PCI_CFG_COMMAND / 4] &= 0xFFFF0000u;
			}
		}
	} else {
		*r = v;
	}
}

static void m_delay(void *ctx, uint32_t us)
{
	((struct cfg_model *)ctx)->now_us += us;
}

/* An xHCI function: MSI capability, then PM, BAR0 64-bit at BAR_BUS, decoding on. */
static struct pci_cfg model(struct cfg_model *m, uint32_t pmcsr)
{
	memset(m, 0, sizeof(*m));
	m->sp[0] = 0x10338086u;
	m->sp[PCI_CFG_COMMAND / 4] = PCI_CFG_STATUS_CAP_LIST | PCI_CMD_MEMORY;
	m->sp[PCI_CFG_BAR0 / 4] = (uint32_t)BAR_BUS | BAR_64;
	m->sp[PCI_CFG_CAP_PTR / 4] = MSI_CAP;
	m->sp[MSI_CAP / 4] = CAP_ID_MSI | PM_CAP << 8;
	m->sp[PM_CAP / 4] = PCI_CAP_ID_PM; /* last in the list */
	m->sp[(PM_CAP + PCI_PM_CSR) / 4] = pmcsr;
	return (struct pci_cfg){ .ctx = m, .read32 = m_read, .write32 = m_write, .delay_us = m_delay };
}

static void cap_walk(void)
{
	struct cfg_model m;
	struct pci_cfg c = model(&m, 0);

	CHECK_EQ_U64(pci_cap_find(&c, PCI_CAP_ID_PM), PM_CAP);
	CHECK_EQ_U64(pci_cap_find(&c, CAP_ID_MSI), MSI_CAP);
	CHECK_EQ_U64(pci_cap_find(&c, 0x10), 0); /* no PCIe capability */
	m.sp[PM_CAP / 4] = PCI_CAP_ID_PM | MSI_CAP << 8; /* a list that loops: bounded, not found */
	CHECK_EQ_U64(pci_cap_find(&c, 0x10), 0);
	m.sp[PCI_CFG_COMMAND / 4] &= ~PCI_CFG_STATUS_CAP_LIST; /* no list at all */
	CHECK_EQ_U64(pci_cap_find(&c, PCI_CAP_ID_PM), 0);
}

static void d0_stays_d0(void)
{
	struct cfg_model m;
	struct pci_cfg c = model(&m, PCI_PM_D0);

	CHECK_EQ_U64(pci_power_d0(&c), PCI_PM_D0);
	CHECK_EQ_U64(m.writes, 0);
	CHECK_EQ_U64(m.now_us, 0);
}

static void d3hot_to_d0_waits_recovery(void)
{
	struct cfg_model m;
	struct pci_cfg c = model(&m, PCI_PM_D3HOT | PMCSR_NO_SOFT_RESET | PMCSR_PME_STATUS);

	CHECK_EQ_U64(pci_power_d0(&c), PCI_PM_D3HOT);
	CHECK_EQ_U64(m.sp[(PM_CAP + PCI_PM_CSR) / 4] & PCI_PM_STATE_MASK, PCI_PM_D0);
	CHECK(m.sp[(PM_CAP + PCI_PM_CSR) / 4] & PMCSR_PME_STATUS); /* RW1C: not cleared by us */
	CHECK(m.now_us >= PCI_PM_D3HOT_RECOVERY_US);
	pci_enable_master(&c);
	CHECK_EQ_U64(m.early_accesses, 0);
	CHECK_EQ_U64(pci_bar0_restore(&c, BAR_BUS), 0); /* No_Soft_Reset: the BAR survived */
}

static void d3hot_reset_restores_bar0(void)
{
	struct cfg_model m;
	struct pci_cfg c = model(&m, PCI_PM_D3HOT);

	CHECK_EQ_U64(pci_power_d0(&c), PCI_PM_D3HOT);
	CHECK_EQ_U64(m.sp[PCI_CFG_BAR0 / 4], BAR0_RESET);
	CHECK(pci_bar0_restore(&c, BAR_BUS | 0x100000000ull));
	CHECK_EQ_U64(m.sp[PCI_CFG_BAR0 / 4], (uint32_t)BAR_BUS | BAR_64);
	CHECK_EQ_U64(m.sp[PCI_CFG_BAR0 / 4 + 1], 1);
	pci_enable_master(&c);
	CHECK_EQ_U64(m.sp[PCI_CFG_COMMAND / 4] & 0xFFFF, PCI_CMD_MEMORY | PCI_CMD_MASTER);
	CHECK_EQ_U64(m.early_accesses, 0);
}

static void no_pm_capability(void)
{
	struct cfg_model m;
	struct pci_cfg c = model(&m, 0);

	m.sp[MSI_CAP / 4] = CAP_ID_MSI; /* the list ends before PM */
	CHECK_EQ_U64(pci_power_d0(&c), (uint64_t)-1);
}

static void enables_keep_status(void)
{
	struct cfg_model m;
	struct pci_cfg c = model(&m, 0);

	m.sp[PCI_CFG_COMMAND / 4] |= STATUS_RW1C_BITS; /* errors the firmware left */
	CHECK_EQ_U64(pci_enable_master(&c), PCI_CMD_MEMORY);
	CHECK_EQ_U64(m.sp[PCI_CFG_COMMAND / 4] & 0xFFFF, PCI_CMD_MEMORY | PCI_CMD_MASTER);
	CHECK_EQ_U64(m.rw1c_cleared, 0);
	m.writes = 0;
	pci_enable_master(&c); /* already on: no write */
	CHECK_EQ_U64(m.writes, 0);
}

static void put_le(uint8_t *p, uint64_t v, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* A QWORD descriptor (ACPI 6.5 table 6.44) as EDK II's PciIoGetBarAttributes builds it, then the
 * end tag. */
static size_t qword_bar(uint8_t *b, uint8_t type, uint64_t min, uint64_t len, uint64_t translation)
{
	memset(b, 0, 64);
	b[0] = ACPI_RES_QWORD;
	put_le(b + 1, 43, 2);
	b[3] = type;
	put_le(b + 14, min, 8);
	put_le(b + 22, min + len - 1, 8);
	put_le(b + 30, translation, 8);
	put_le(b + 38, len, 8);
	b[46] = ACPI_RES_END;
	return 48;
}

static void bar_from_qword_translated(void)
{
	/* BCM2711 (Raspberry Pi 4): the xHCI's BAR on the bus at 0xF8000000 is CPU 0x6_0000_0000 */
	uint8_t b[64];
	struct pci_bar_res r;
	const char *why = NULL;
	uint64_t cpu = 0x600000000ull;

	qword_bar(b, ACPI_RES_TYPE_MEM, BAR_BUS, 0x1000, BAR_BUS - cpu);
	CHECK(pci_bar_from_acpi(b, sizeof(b), &r, &why));
	CHECK_EQ_U64(r.device, BAR_BUS);
	CHECK_EQ_U64(r.cpu, cpu);
	CHECK_EQ_U64(r.length, 0x1000);
}

static void bar_from_qword_identity(void)
{
	uint8_t b[64];
	struct pci_bar_res r;
	const char *why = NULL;

	qword_bar(b, ACPI_RES_TYPE_MEM, 0xC0000000ull, 0x4000, 0);
	CHECK(pci_bar_from_acpi(b, sizeof(b), &r, &why));
	CHECK_EQ_U64(r.cpu, 0xC0000000ull);
	CHECK_EQ_U64(r.cpu, r.device);
}

static void bar_from_dword(void)
{
	uint8_t b[32] = { ACPI_RES_DWORD, 23, 0, ACPI_RES_TYPE_MEM };
	struct pci_bar_res r;
	const char *why = NULL;

	put_le(b + 10, 0x80000000u, 4); /* minimum */
	put_le(b + 18, 0x40000000u, 4); /* translation: device = host + 0x40000000 */
	put_le(b + 22, 0x10000u, 4);    /* length */
	b[26] = ACPI_RES_END;
	CHECK(pci_bar_from_acpi(b, sizeof(b), &r, &why));
	CHECK_EQ_U64(r.cpu, 0x40000000u);
	CHECK_EQ_U64(r.length, 0x10000u);
}

static void bar_refusals(void)
{
	uint8_t b[64];
	struct pci_bar_res r;
	const char *why = NULL;

	qword_bar(b, 1 /* I/O */, 0x1000, 0x20, 0);
	CHECK(!pci_bar_from_acpi(b, sizeof(b), &r, &why));
	CHECK(why && strstr(why, "no memory range"));
	qword_bar(b, ACPI_RES_TYPE_MEM, 0xC0000000ull, 0x4000, 0);
	put_le(b + 38, 0, 8); /* length 0 */
	CHECK(!pci_bar_from_acpi(b, sizeof(b), &r, &why));
	qword_bar(b, ACPI_RES_TYPE_MEM, 0xC0000000ull, 0x4000, 0);
	CHECK(!pci_bar_from_acpi(b, 40, &r, &why)); /* cut inside the descriptor, no end tag */
	CHECK(why && strstr(why, "past its end"));
}

/* Driver code hands the device usb_dma_bus() of a pointer: with a bus_base unlike the CPU's
 * address (a translating host bridge or an IOMMU mapping) the two stay apart, and the firmware's
 * DMA limit (BCM2711: 3 GiB) is never crossed. */
static void dma_region_bus_vs_cpu(void)
{
	static uint8_t region[8192] __attribute__((aligned(4096)));
	struct usb_dma d = { .base = region, .bus_base = 0xBFFFF000ull, .size = sizeof(region),
			     .bus_limit = 0xBFFFFFFFull };
	uint8_t *a = usb_dma_alloc(&d, 64, 64, 0), *b;

	CHECK(a == region);
	CHECK_EQ_U64(usb_dma_bus(&d, a), 0xBFFFF000ull);
	CHECK(usb_dma_bus(&d, a) != (uint64_t)(uintptr_t)a);
	b = usb_dma_alloc(&d, 4096, 4096, 0); /* would start at bus 0xC0000000: past the limit */
	CHECK(b == NULL);
	b = usb_dma_alloc(&d, 1024, 64, 0); /* still below it */
	CHECK(b != NULL && usb_dma_bus(&d, b) + 1024 - 1 <= d.bus_limit);
}

TEST_SUITE(pci) = {
	{ "cap_walk", cap_walk },
	{ "d0_stays_d0", d0_stays_d0 },
	{ "d3hot_to_d0_waits_recovery", d3hot_to_d0_waits_recovery },
	{ "d3hot_reset_restores_bar0", d3hot_reset_restores_bar0 },
	{ "no_pm_capability", no_pm_capability },
	{ "enables_keep_status", enables_keep_status },
	{ "bar_from_qword_translated", bar_from_qword_translated },
	{ "bar_from_qword_identity", bar_from_qword_identity },
	{ "bar_from_dword", bar_from_dword },
	{ "bar_refusals", bar_refusals },
	{ "dma_region_bus_vs_cpu", dma_region_bus_vs_cpu },
	{ 0, 0 },
};
