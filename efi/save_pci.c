/* The boot stick's controller as a PCI function (see save_pci.h): its registers' CPU address from
 * the firmware's description of BAR0, D0 and the enables on it and the bridges above it, and the
 * DMA region mapped for it by the firmware, so the controller is given bus addresses and the CPU
 * touches CPU addresses (they differ behind a translating host bridge: BCM2711, bus 0xF8000000 is
 * CPU 0x6_0000_0000). */
/* OPT_SMALL: -Os (Makefile): runs once per boot, around ExitBootServices. */
#include "efi/save_pci.h"

#include <efilib.h>
#include <string.h>

#include "arch/mmio.h"
#include "drivers/pci/pci_cfg.h"
#include "efi/save_state.h"

#define PAGE_BYTES 4096ull
#define BELOW_4G 0xFFFFFFFFull       /* controllers without 64-bit addressing reach this far */
#define PCI_CLASS_XHCI 0x0C0330u     /* serial bus controller, USB, xHCI (xHCI 1.2, 5.2.1) */
#define BAR_RES_MAX 1024             /* a bound on the firmware's resource list; it ends earlier */
#define PATH_PREFIX_MAX 512          /* a bridge's device path: a handful of 6-byte PCI nodes */
#define ENABLES (EFI_PCI_IO_ATTRIBUTE_MEMORY | EFI_PCI_IO_ATTRIBUTE_BUS_MASTER)

static EFI_GUID pci_io_guid = EFI_PCI_IO_PROTOCOL_GUID;
static EFI_PCI_IO *ctl_io; /* the controller's PciIo, for the DMA mapping */

static bool refuse(const char *why)
{
	save_plan.phase = SAVE_PHASE_OFF;
	save_plan.why = why;
	return false;
}

/* Configuration space through PciIo (before ExitBootServices). */
static uint32_t pciio_read32(void *ctx, uint32_t off)
{
	EFI_PCI_IO *io = ctx;
	uint32_t v = 0xFFFFFFFFu;

	uefi_call_wrapper(io->Pci.Read, 5, io, EfiPciIoWidthUint32, off, 1, &v);
	return v;
}

static void pciio_write32(void *ctx, uint32_t off, uint32_t v)
{
	EFI_PCI_IO *io = ctx;

	uefi_call_wrapper(io->Pci.Write, 5, io, EfiPciIoWidthUint32, off, 1, &v);
}

static void stall_us(void *ctx, uint32_t us)
{
	(void)ctx;
	uefi_call_wrapper(BS->Stall, 1, us);
}

static struct pci_cfg pciio_cfg(EFI_PCI_IO *io)
{
	return (struct pci_cfg){ .ctx = io, .read32 = pciio_read32, .write32 = pciio_write32, .delay_us = stall_us };
}

/* Configuration space through ECAM (after ExitBootServices): ctx points at the function's base. */
static uint32_t ecam_read32(void *ctx, uint32_t off)
{
	return mmio_read32((uintptr_t)(*(const uint64_t *)ctx + off));
}

static void ecam_write32(void *ctx, uint32_t off, uint32_t v)
{
	mmio_write32((uintptr_t)(*(const uint64_t *)ctx + off), v);
}

static uint64_t ecam_of(EFI_PCI_IO *io, const struct acpi_info *acpi, UINTN *seg, UINTN *bus, UINTN *dev, UINTN *fn)
{
	uint64_t ecam = 0;

	if (EFI_ERROR(uefi_call_wrapper(io->GetLocation, 5, io, seg, bus, dev, fn)))
		return 0;
	/* from the MCFG allocation of its segment and bus, any segment (drivers/fw/acpi.c) */
	if (!acpi_ecam_address(acpi, (uint16_t)*seg, (uint8_t)*bus, (uint8_t)*dev, (uint8_t)*fn, &ecam))
		return 0;
	return ecam;
}

/* One bridge above the controller: the PCI node `node` ends its device path. */
static void enable_bridge(const EFI_DEVICE_PATH *dp, const EFI_DEVICE_PATH *node, const struct acpi_info *acpi)
{
	static uint8_t prefix[PATH_PREFIX_MAX];
	UINTN len = (UINTN)((const uint8_t *)NextDevicePathNode(node) - (const uint8_t *)dp), seg, bus, dev, fn;
	EFI_DEVICE_PATH *rest = (EFI_DEVICE_PATH *)prefix, *end = (EFI_DEVICE_PATH *)(prefix + len);
	EFI_HANDLE h = NULL;
	EFI_PCI_IO *io = NULL;
	struct pci_cfg c;

	if (len + END_DEVICE_PATH_LENGTH > sizeof(prefix) || save_plan.bridges == SAVE_PCI_BRIDGES_MAX)
		return;
	memcpy(prefix, dp, len);
	SetDevicePathEndNode(end);
	/* the handle whose path is exactly this prefix: the bridge itself, not the root bridge */
	if (EFI_ERROR(uefi_call_wrapper(BS->LocateDevicePath, 3, &pci_io_guid, &rest, &h)) || !IsDevicePathEnd(rest) ||
	    EFI_ERROR(uefi_call_wrapper(BS->HandleProtocol, 3, h, &pci_io_guid, (void **)&io)) || !io)
		return;
	c = pciio_cfg(io);
	pci_power_d0(&c);
	uefi_call_wrapper(io->Attributes, 4, io, EfiPciIoAttributeOperationEnable, ENABLES, NULL);
	pci_enable_master(&c); /* firmware whose Attributes() leaves a bridge's command alone */
	save_plan.bridge_ecam[save_plan.bridges++] = ecam_of(io, acpi, &seg, &bus, &dev, &fn);
}

/* Every PCI node of the path before the controller's (the last) is a bridge, root port first. */
static void enable_bridges(const EFI_DEVICE_PATH *dp, const struct acpi_info *acpi)
{
	const EFI_DEVICE_PATH *n, *last = NULL;

	save_plan.bridges = 0;
	for (n = dp; !IsDevicePathEnd(n) && (UINTN)DevicePathNodeLength(n) >= sizeof(EFI_DEVICE_PATH);
	     n = NextDevicePathNode(n))
		if (DevicePathType(n) == HARDWARE_DEVICE_PATH && DevicePathSubType(n) == HW_PCI_DP)
			last = n;
	for (n = dp; n != last && last; n = NextDevicePathNode(n))
		if (DevicePathType(n) == HARDWARE_DEVICE_PATH && DevicePathSubType(n) == HW_PCI_DP)
			enable_bridge(dp, n, acpi);
}

/* BAR0's CPU address: the firmware's description of it (UEFI 2.10, 14.4 EFI_PCI_IO_PROTOCOL
 * .GetBarAttributes: ACPI address-space descriptors with the root bridge's translation offset). */
static bool bar_address(EFI_PCI_IO *io, const struct pci_cfg *c)
{
	void *res = NULL;
	struct pci_bar_res bar;
	const char *why;
	uint32_t lo;

	if (!EFI_ERROR(uefi_call_wrapper(io->GetBarAttributes, 4, io, 0, NULL, &res)) && res) {
		bool ok = pci_bar_from_acpi(res, BAR_RES_MAX, &bar, &why);

		uefi_call_wrapper(BS->FreePool, 1, res);
		if (!ok)
			return refuse(why);
		save_plan.mmio = bar.cpu;
		save_plan.mmio_bus = bar.device;
		save_plan.mmio_from_fw = true;
		return true;
	}
	/* no description: the BAR itself, which is the CPU's address only without translation */
	lo = c->read32(c->ctx, PCI_CFG_BAR0);
	if (lo & PCI_BAR_IO)
		return refuse("the xHCI controller's BAR0 is not memory");
	save_plan.mmio_bus = lo & ~(uint64_t)PCI_BAR_FLAGS_MASK;
	if ((lo & PCI_BAR_TYPE_MASK) == PCI_BAR_TYPE_64)
		save_plan.mmio_bus |= (uint64_t)c->read32(c->ctx, PCI_CFG_BAR0 + 4) << 32;
	save_plan.mmio = save_plan.mmio_bus;
	save_plan.mmio_from_fw = false;
	return true;
}

bool save_pci_find(EFI_DEVICE_PATH *dp, const struct acpi_info *acpi)
{
	EFI_DEVICE_PATH *rest = dp;
	EFI_HANDLE h = NULL;
	EFI_PCI_IO *io = NULL;
	UINTN seg = 0, bus = 0, dev = 0, fn = 0;
	struct pci_cfg c;
	uint32_t id;

	if (EFI_ERROR(uefi_call_wrapper(BS->LocateDevicePath, 3, &pci_io_guid, &rest, &h)) ||
	    EFI_ERROR(uefi_call_wrapper(BS->HandleProtocol, 3, h, &pci_io_guid, (void **)&io)) || !io)
		return refuse("the boot stick's USB controller has no PCI I/O protocol");
	c = pciio_cfg(io);
	if (c.read32(c.ctx, PCI_CFG_CLASS_REV) >> 8 != PCI_CLASS_XHCI)
		return refuse("the boot stick is on a USB controller that is not xHCI (EHCI/OHCI/UHCI are not driven)");
	id = c.read32(c.ctx, PCI_CFG_VENDOR);
	save_plan.pci_vendor = (uint16_t)id;
	save_plan.pci_device = (uint16_t)(id >> 16);
	save_plan.ecam = ecam_of(io, acpi, &seg, &bus, &dev, &fn);
	save_plan.pci_segment = (uint16_t)seg;
	save_plan.pci_bus = (uint8_t)bus;
	save_plan.pci_dev = (uint8_t)dev;
	save_plan.pci_fn = (uint8_t)fn;
	enable_bridges(dp, acpi);
	save_plan.power_was = pci_power_d0(&c);
	/* through the firmware first (it keeps its own books), then checked in the register */
	uefi_call_wrapper(io->Attributes, 4, io, EfiPciIoAttributeOperationEnable, ENABLES, NULL);
	pci_enable_master(&c);
	if (!bar_address(io, &c))
		return false;
	ctl_io = io;
	return true;
}

static bool drop(void *host, UINTN pages, bool fw_buffer, void *mapping, const char *why)
{
	if (mapping)
		uefi_call_wrapper(ctl_io->Unmap, 2, ctl_io, mapping);
	if (fw_buffer)
		uefi_call_wrapper(ctl_io->FreeBuffer, 3, ctl_io, pages, host);
	else
		uefi_call_wrapper(BS->FreePages, 2, (EFI_PHYSICAL_ADDRESS)(UINTN)host, pages);
	return refuse(why);
}

/* UEFI 2.10, 14.4: a common buffer comes from AllocateBuffer and is mapped once with
 * BusMasterCommonBuffer; the device address Map gives is the one the controller uses (the root
 * bridge's DMA translation, and the IoMmu protocol's mapping where there is one). */
bool save_pci_dma(uint64_t bytes)
{
	UINTN pages = (UINTN)(bytes / PAGE_BYTES), n = (UINTN)bytes;
	EFI_PHYSICAL_ADDRESS dev = 0, low = BELOW_4G;
	void *host = NULL, *mapping = NULL;
	bool fw_buffer;

	if (!ctl_io)
		return refuse("the controller's PCI I/O protocol is gone");
	fw_buffer = !EFI_ERROR(uefi_call_wrapper(ctl_io->AllocateBuffer, 6, ctl_io, AllocateAnyPages, EfiBootServicesData,
						 pages, &host, 0)) && host;
	if (!fw_buffer) {
		if (EFI_ERROR(uefi_call_wrapper(BS->AllocatePages, 4, AllocateMaxAddress, EfiLoaderData, pages, &low)))
			return refuse("no memory below 4 GiB for the USB path and the stream's copy (lower save_mb)");
		host = (void *)(UINTN)low;
	}
	if (EFI_ERROR(uefi_call_wrapper(ctl_io->Map, 6, ctl_io, EfiPciIoOperationBusMasterCommonBuffer, host, &n, &dev,
					&mapping)))
		return drop(host, pages, fw_buffer, NULL,
			    "the firmware would not map the DMA memory for the USB controller (EFI_PCI_IO_PROTOCOL.Map)");
	if (n < bytes)
		return drop(host, pages, fw_buffer, mapping,
			    "the firmware maps only part of the DMA memory for the USB controller (a DMA limit): lower save_mb");
	if (dev + bytes - 1 > BELOW_4G)
		return drop(host, pages, fw_buffer, mapping,
			    "the USB controller would reach its DMA memory above 4 GiB, where one without 64-bit addressing cannot");
	memset(host, 0, (size_t)bytes); /* the mirror's last block goes to the stick whole: its tail must be zeros */
	save_plan.dma = (struct usb_dma){ .base = host, .bus_base = dev, .size = SAVE_USB_DMA_BYTES, .bus_limit = BELOW_4G };
	save_plan.dma_mapped = true;
	return true;
}

/* One function through ECAM: D0 (its BAR0 back if the transition reset it) and the enables. */
static bool resume_one(uint64_t *ecam, void (*delay_us)(void *ctx, uint32_t us), const uint64_t *bar0)
{
	struct pci_cfg c = { .ctx = ecam, .read32 = ecam_read32, .write32 = ecam_write32, .delay_us = delay_us };
	uint32_t want = PCI_CMD_MEMORY | PCI_CMD_MASTER;

	if (pci_power_d0(&c) > (int)PCI_PM_D0 && bar0)
		pci_bar0_restore(&c, *bar0);
	pci_enable_master(&c);
	return (c.read32(c.ctx, PCI_CFG_COMMAND) & want) == want;
}

const char *save_pci_resume(void (*delay_us)(void *ctx, uint32_t us))
{
	for (unsigned i = 0; i < save_plan.bridges; i++)
		if (save_plan.bridge_ecam[i] && !resume_one(&save_plan.bridge_ecam[i], delay_us, NULL))
			return "a PCI bridge above the USB controller would not enable memory decoding and bus mastering";
	if (save_plan.ecam && !resume_one(&save_plan.ecam, delay_us, &save_plan.mmio_bus))
		return "the USB controller would not enable memory decoding and bus mastering (PCI command register)";
	return NULL;
}
