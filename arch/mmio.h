/* Device-register access for code outside arch/ that drives a device on every CPU (the USB path):
 * declared here once, implemented per CPU in arch/<cpu>/include/cpu/mmio.h (<cpu/mmio.h>). The contract:
 *   uint32_t mmio_read32(uintptr_t a)           one 32-bit read, never merged, split or cached
 *   void mmio_write32(uintptr_t a, uint32_t v)  one 32-bit write
 *   void mmio_barrier(void)                     earlier memory writes (DMA descriptors) are seen
 *                                               by a device before any later register write
 * (x86_64: plain volatile accesses to uncached memory, stores are not reordered with stores;
 * AArch64: Device memory and a DSB after the write). */
#ifndef ARCH_MMIO_H
#define ARCH_MMIO_H

#include <cpu/mmio.h>

#endif
