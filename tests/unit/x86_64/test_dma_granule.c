/* The x86_64 DMA granule (arch/x86_64/dma_granule.c) from CPUID leaf 01H values: Intel SDM Vol.
 * 2A, CPUID, EBX bits 15:8 the CLFLUSH line size in 8-byte units, EDX bit 19 CLFSH. */
#include "arch/x86_64/dma_granule.h"
#include "tests/unit/test.h"

#define EDX_CLFSH (1u << 19)
#define EBX_CLFLUSH(quadwords) ((uint32_t)(quadwords) << 8)
#define EBX_OTHER_FIELDS 0x01020000u /* APIC ID and logical count must not leak in */

static void clflush_line(void)
{
	CHECK_EQ_U64(x86_dma_granule(EBX_OTHER_FIELDS | EBX_CLFLUSH(8), EDX_CLFSH), 64);
	CHECK_EQ_U64(x86_dma_granule(EBX_CLFLUSH(16), EDX_CLFSH), 128);
	CHECK_EQ_U64(x86_dma_granule(EBX_CLFLUSH(16), 0), 64);       /* no CLFSH: the field means nothing */
	CHECK_EQ_U64(x86_dma_granule(EBX_CLFLUSH(0), EDX_CLFSH), 64);
	CHECK_EQ_U64(x86_dma_granule(EBX_CLFLUSH(12), EDX_CLFSH), 64); /* 96: not a power of two */
}

TEST_SUITE(dma_granule_x86_64) = {
	{ "clflush_line", clflush_line },
	{ 0, 0 },
};
