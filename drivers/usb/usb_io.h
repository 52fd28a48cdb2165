/* What the environment gives the USB stack (xHCI driver, mass storage): register access, bounded
 * delays and cache maintenance as an ops table, and a region of DMA memory that the CPU and the
 * device both reach, each at its own address: the CPU at a pointer, the device at a bus address the
 * firmware gave (EFI_PCI_IO_PROTOCOL.Map: a host bridge's DMA translation or an IOMMU mapping may
 * make the two differ). Driver code hands the device only usb_dma_bus() of a pointer, never the
 * pointer itself. Also the transfer result
 * codes shared by the host controller driver and the mass-storage helper.
 *
 * Ordering: write32 must make the CPU's earlier stores to DMA memory visible to the device before
 * the register store (as Linux's writel: on AArch64 a `dsb st` or `dmb oshst` before the store; on
 * x86_64 stores are ordered and plain `mov` does). The driver also fences and calls dma_to_device
 * before every doorbell, and dma_from_device before it reads what the device wrote. */
#ifndef DRIVERS_USB_USB_IO_H
#define DRIVERS_USB_USB_IO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Results of a transfer besides 0 (success). */
#define USB_XFER_STALL (-1) /* the endpoint answered STALL (halted): clear the halt, then go on */
#define USB_XFER_ERROR (-2) /* any other failure: the reason is in the driver's error text */

struct usb_io {
	void *ctx;
	uint32_t (*read32)(void *ctx, uint64_t addr);
	void (*write32)(void *ctx, uint64_t addr, uint32_t v);
	void (*delay_us)(void *ctx, uint32_t us);                  /* every bounded wait counts in these */
	void (*dma_to_device)(void *ctx, const void *p, size_t n); /* clean caches; NULL: DMA coherent */
	void (*dma_from_device)(void *ctx, void *p, size_t n);     /* invalidate; NULL: DMA coherent */
};

/* A bump allocator over the DMA region: base is the CPU's pointer, bus_base the device's address of
 * the same byte (they differ by a constant: the region is one mapping). bus_limit is the highest
 * bus address the device may be given (a DMA limit: the mapping's, or 4 GiB for a controller
 * without 64-bit addressing); 0: none. Nothing is ever freed (one controller, opened once per
 * boot). */
struct usb_dma {
	uint8_t *base;
	uint64_t bus_base;
	size_t size, used;
	size_t granule; /* the CPU's cache-writeback granule (arch/dma_granule.h), a power of two;
			 * every buffer starts on one and none shares one; 0: no such rule */
	uint64_t bus_limit;
};

/* Zeroed memory of n bytes aligned to `align` (a power of two, in bus addresses) not crossing a
 * `boundary` (a power of two, 0: none); NULL when the region is full, n exceeds the boundary or the
 * memory would end above bus_limit. */
void *usb_dma_alloc(struct usb_dma *d, size_t n, size_t align, size_t boundary);
/* Device (bus) address of p, a pointer into the region. */
uint64_t usb_dma_bus(const struct usb_dma *d, const void *p);

#endif
