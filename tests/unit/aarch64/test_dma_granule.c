/* The AArch64 DMA granule (arch/aarch64/id_decode.c a64_dma_granule) from CTR_EL0 values built
 * here from the Arm ARM's layout: CWG in bits 27:24, log2 of the granule in 4-byte words, 0 "not
 * given" (Linux arm64 then aligns DMA to ARCH_DMA_MINALIGN, 128 bytes). */
#include "arch/aarch64/id_decode.h"
#include "tests/unit/test.h"

#define CTR_CWG(log2_words) ((uint64_t)(log2_words) << 24)
#define CTR_RES1 (1ull << 31)
#define CTR_DMINLINE_64 (4ull << 16) /* 16 words */

static void cwg_decoded(void)
{
	CHECK_EQ_U64(a64_dma_granule(CTR_RES1 | CTR_DMINLINE_64 | CTR_CWG(5)), 128); /* 32 words */
	CHECK_EQ_U64(a64_dma_granule(CTR_RES1 | CTR_DMINLINE_64 | CTR_CWG(4)), 64);
	CHECK_EQ_U64(a64_dma_granule(CTR_RES1 | CTR_DMINLINE_64), 128);              /* not given */
	CHECK_EQ_U64(a64_dma_granule(CTR_RES1 | CTR_CWG(0xf)), 128);                 /* reserved */
}

TEST_SUITE(dma_granule_aarch64) = {
	{ "cwg_decoded", cwg_decoded },
	{ 0, 0 },
};
