/* DMA cache maintenance on x86_64 (efi/platform.h): none. PCI devices' accesses snoop the caches
 * (PCI Express Base 4.0, 2.2.6.5: only No Snoop requests skip them, and our controllers' drivers
 * never ask for those). */
#include "efi/platform.h"

void efi_arch_dma_to_device(const void *p, size_t n)
{
	(void)p;
	(void)n;
}

void efi_arch_dma_from_device(void *p, size_t n)
{
	(void)p;
	(void)n;
}
