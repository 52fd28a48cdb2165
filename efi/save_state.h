/* What efi/save_prepare.c (with save_pci.c and save_iommu.c) finds before ExitBootServices and
 * efi/save_stick.c uses after it (the two halves of efi/save.h); the plan itself lives in
 * efi/save_state.c. Nothing else includes this. */
#ifndef EFI_SAVE_STATE_H
#define EFI_SAVE_STATE_H

#include <stdbool.h>
#include <stdint.h>

#include "drivers/fw/iommu.h"
#include "drivers/storage/save_log.h"
#include "drivers/usb/usb_io.h"
#include "drivers/usb/xhci.h"

#define SAVE_FILE_CHARS 32     /* "\BAREMETRIC\RUN_NNN.LOG" and its NUL */
#define SAVE_USB_DMA_BYTES (512u * 1024) /* rings, contexts, scratchpads, descriptors, SCSI scratch */
#define SAVE_PCI_BRIDGES_MAX 8 /* bridges between the root bridge and the controller */

enum save_phase {
	SAVE_PHASE_OFF,     /* not asked for, or not possible: why says which */
	SAVE_PHASE_PLANNED, /* the file exists with its extents; the USB path comes after boot services */
	SAVE_PHASE_LIVE,    /* the stick is attached: flushes write */
	SAVE_PHASE_FAILED,  /* the USB path or a write failed after boot services: why says how */
};

struct save_plan {
	enum save_phase phase;
	bool asked;           /* save=usb, or auto on a USB boot device: a reason not to save is a warning */
	const char *why;      /* the reason nothing is (or no more is) saved */
	char file[SAVE_FILE_CHARS];
	/* the boot stick's controller: PCI function, its registers, its configuration space */
	uint16_t pci_segment;
	uint8_t pci_bus, pci_dev, pci_fn;
	uint16_t pci_vendor, pci_device;
	uint64_t mmio;        /* BAR0 (64-bit BARs: BAR0 + BAR1) as the CPU reaches it */
	uint64_t mmio_bus;    /* BAR0 as the bus sees it (differs behind a translating host bridge) */
	bool mmio_from_fw;    /* mmio from GetBarAttributes; else the BAR itself (CPU = bus assumed) */
	uint64_t ecam;        /* the function's ECAM configuration space; 0: unknown (no MCFG) */
	int power_was;        /* the PM state found (0 D0 .. 3 D3hot), -1: no PM capability */
	unsigned bridges;     /* PCI bridges above it (from the device path), enabled before EBS */
	uint64_t bridge_ecam[SAVE_PCI_BRIDGES_MAX]; /* their configuration spaces after EBS (0: unknown) */
	bool dma_mapped;      /* the DMA region is mapped for the controller by EFI_PCI_IO_PROTOCOL.Map */
	bool iommu_protocol;  /* the firmware has an IoMmu protocol (PciIo Map goes through it) */
	struct iommu_info iommu; /* DMAR / IVRS / IORT units */
	struct usb_port_path path; /* from the device path: the walk's first guess, not trusted */
	uint8_t lun;          /* the device path's logical unit (lun_known), tried first */
	bool lun_known;
	uint64_t part_lba;    /* the partition's first block on the device */
	uint32_t block;       /* the device's logical block size */
	uint64_t dev_blocks;  /* the partition's BlockIo view: last LBA + 1 */
	struct usb_dma dma;   /* below 4 GiB: the USB path's own memory */
	struct save_log log;  /* hdr and data also below 4 GiB */
};

extern struct save_plan save_plan;

#endif
