/* The CPU's cache-writeback granule for DMA buffers, for code outside arch/ (the USB path's DMA
 * allocator, drivers/usb/usb_io.h): the largest block a cache clean or invalidate by address may
 * act on, so buffers a device writes never share one with anything the CPU writes. Implemented
 * per CPU: x86_64 from CPUID leaf 1 (the CLFLUSH line size), AArch64 from CTR_EL0.CWG. */
#ifndef ARCH_DMA_GRANULE_H
#define ARCH_DMA_GRANULE_H

/* Bytes, a power of two (at least 16). */
unsigned arch_dma_granule(void);

#endif
