/* The x86_64 DMA granule's decode (arch/dma_granule.h), a pure function of CPUID values so the
 * unit tests check it on any host. */
#ifndef ARCH_X86_64_DMA_GRANULE_H
#define ARCH_X86_64_DMA_GRANULE_H

#include <stdint.h>

/* Intel SDM Vol. 2A, CPUID leaf 01H: EBX bits 15:8 the CLFLUSH line size in 8-byte units, valid
 * when EDX bit 19 (CLFSH) is set. The line in bytes; 64 when CLFSH is absent or the field 0 or
 * not a power of two (every x86_64 part so far has 64-byte lines, and its DMA snoops the caches). */
unsigned x86_dma_granule(uint32_t cpuid1_ebx, uint32_t cpuid1_edx);

#endif
