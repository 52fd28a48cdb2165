/* DMA cache maintenance on AArch64 (efi/platform.h). Many Arm systems keep DMA coherent (ACPI
 * _CCA = 1), but not all, and the firmware does not read _CCA: clean before the device reads,
 * clean and invalidate before the CPU reads what the device wrote. On a coherent system this
 * only costs time outside the measurements. */
#include "efi/platform.h"

#include "arch/aarch64/cache_ops.h"

void efi_arch_dma_to_device(const void *p, size_t n)
{
	aarch64_dcache_clean_range(p, n);
}

void efi_arch_dma_from_device(void *p, size_t n)
{
	aarch64_dcache_clean_invalidate_range(p, n);
}
