/* The boot stick's controller as a PCI function, for the two halves of saving (efi/save.h):
 * before ExitBootServices the firmware's EFI_PCI_IO_PROTOCOL gives its registers' CPU address
 * (GetBarAttributes), powers it to D0 and enables it and every bridge above it, and maps the DMA
 * region for it (AllocateBuffer + Map, BusMasterCommonBuffer: the device address comes from the
 * firmware, through its IoMmu protocol where there is one); after it, ECAM restores the enables. */
#ifndef EFI_SAVE_PCI_H
#define EFI_SAVE_PCI_H

#include <efi.h>
#include <stdbool.h>
#include <stdint.h>

#include "drivers/fw/acpi.h"

/* The xHCI function on the image's device path: save_plan's PCI fields; false with save_plan.why. */
bool save_pci_find(EFI_DEVICE_PATH *dp, const struct acpi_info *acpi);
/* `bytes` of zeroed DMA memory mapped for the controller: save_plan.dma (its first
 * SAVE_USB_DMA_BYTES for the USB path, the rest after it); false with save_plan.why. */
bool save_pci_dma(uint64_t bytes);
/* After ExitBootServices: D0, memory decoding and bus mastering again on the bridges and the
 * function (the firmware's driver may turn them off at ExitBootServices). NULL, or why not. */
const char *save_pci_resume(void (*delay_us)(void *ctx, uint32_t us));

#endif
