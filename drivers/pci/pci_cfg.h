/* A PCI function's configuration space, reached through whatever the environment has (the
 * firmware's PciIo before ExitBootServices, ECAM after): the capability list, the power state
 * (PCI Bus Power Management Interface 1.2) and the command register's enables. Also the
 * firmware's description of a BAR (ACPI address-space descriptors, as EFI_PCI_IO_PROTOCOL
 * .GetBarAttributes returns them) turned into the CPU's address of the registers. Pure logic over
 * an ops table: the unit tests drive it with a configuration-space model. */
#ifndef DRIVERS_PCI_PCI_CFG_H
#define DRIVERS_PCI_PCI_CFG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Type 0/1 header (PCI Local Bus 3.0, 6.1; PCI-to-PCI Bridge 1.2, 3.2). */
#define PCI_CFG_VENDOR 0x00
#define PCI_CFG_COMMAND 0x04
#define PCI_CFG_STATUS_CAP_LIST (1u << 20) /* status bit 4, as seen in the dword at 0x04 */
#define PCI_CFG_CLASS_REV 0x08
#define PCI_CFG_HEADER 0x0C                /* header type in bits 23:16 of this dword */
#define PCI_CFG_BAR0 0x10
#define PCI_CFG_CAP_PTR 0x34
#define PCI_BAR_IO 0x1u
#define PCI_BAR_TYPE_MASK 0x6u
#define PCI_BAR_TYPE_64 0x4u
#define PCI_BAR_FLAGS_MASK 0xFu
#define PCI_CMD_MEMORY 0x2u
#define PCI_CMD_MASTER 0x4u
#define PCI_CAP_ID_PM 0x01

/* PCI PM 1.2, 3.2.4: PMCSR at capability + 4; PowerState in bits 1:0 (0 D0, 3 D3hot). */
#define PCI_PM_CSR 4
#define PCI_PM_STATE_MASK 0x3u
#define PCI_PM_D0 0u
#define PCI_PM_D3HOT 3u
/* PCI PM 1.2, 5.6.1 table 18: D3hot -> D0 needs 10 ms before the function is accessed. */
#define PCI_PM_D3HOT_RECOVERY_US 10000u

struct pci_cfg {
	void *ctx;
	uint32_t (*read32)(void *ctx, uint32_t off);
	void (*write32)(void *ctx, uint32_t off, uint32_t v);
	void (*delay_us)(void *ctx, uint32_t us);
};

/* Offset of the first capability of `id`, 0 when none (a list that loops or leaves the header
 * is cut off after 48 entries, PCI 3.0 6.7: at most (256 - 64) / 4). */
uint32_t pci_cap_find(const struct pci_cfg *c, uint8_t id);

/* The power state before the call (0..3), and the function in D0 after it: D3hot (or D1/D2) is
 * written to D0 and the recovery time waited. -1: no PM capability (the function is always D0). */
int pci_power_d0(const struct pci_cfg *c);

/* Memory decoding and bus mastering on; the command register as it was before. The status half
 * (RW1C error bits) is written as zeros so nothing there is cleared by accident. */
uint16_t pci_enable_master(const struct pci_cfg *c);

/* BAR0 (and BAR1 when BAR0 is a 64-bit memory BAR) set back to `bus` when it no longer holds it:
 * a D3hot -> D0 transition without No_Soft_Reset (PCI PM 1.2, 3.2.4 PMCSR bit 3) resets the
 * function's configuration. True when it had to. */
bool pci_bar0_restore(const struct pci_cfg *c, uint64_t bus);

/* ACPI 6.x 6.4.3.5: the QWORD (0x8A), DWORD (0x87) and WORD (0x88) address-space descriptors and
 * the end tag (0x79) of a resource list. */
#define ACPI_RES_QWORD 0x8A
#define ACPI_RES_DWORD 0x87
#define ACPI_RES_WORD 0x88
#define ACPI_RES_END 0x79
#define ACPI_RES_TYPE_MEM 0

struct pci_bar_res {
	uint64_t device;      /* the BAR as the bus sees it (AddrRangeMin) */
	uint64_t cpu;         /* where the CPU reaches it: device - translation (UEFI 2.7+) */
	uint64_t length;
	uint64_t translation; /* AddrTranslationOffset: device = host + translation */
};

/* The first memory descriptor of a GetBarAttributes resource list of at most `max` bytes; false
 * with a reason when the list holds none or is malformed. */
bool pci_bar_from_acpi(const uint8_t *res, size_t max, struct pci_bar_res *out, const char **why);

#endif
