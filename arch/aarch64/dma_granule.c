/* The CPU's cache-writeback granule on AArch64 (arch/dma_granule.h): CTR_EL0.CWG, decoded by
 * a64_dma_granule (arch/aarch64/id_decode.h). */
#include "arch/dma_granule.h"

#include "arch/aarch64/cpu.h"
#include "arch/aarch64/id_decode.h"

unsigned arch_dma_granule(void)
{
	return a64_dma_granule(sysreg_read(ctr_el0));
}
