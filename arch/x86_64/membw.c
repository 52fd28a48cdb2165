/* The x86_64 side of arch/membw.h's architecture kernels: multi-stream variants of the shared
 * read, copy and copy_nt loops (membw.S), at the widest vector width the CPU can use. A pass still
 * covers the buffer once; it is cut into parts walked side by side, so several sequential streams
 * are in flight where one stream's prefetch depth bounds DRAM bandwidth (docs/methods/membw.md).
 * The width is in the record's `width` ("512x4": 4 streams of 512-bit loads), the stream count in
 * `streams`. Only the widest usable set runs: in caches the width, not the streams, decides. */
#include "arch/membw.h"

#include "arch/simd.h"

void bw_read_256x4(void *, const void *, size_t, uint64_t);
void bw_copy_256x2(void *, const void *, size_t, uint64_t);
void bw_copy_nt_256x2(void *, const void *, size_t, uint64_t);
void bw_read_512x4(void *, const void *, size_t, uint64_t);
void bw_copy_512x2(void *, const void *, size_t, uint64_t);
void bw_copy_nt_512x2(void *, const void *, size_t, uint64_t);

/* Read: 4 parts of bytes / 4 (a multiple of the 256-byte block each); copy: 2 parts per buffer. */
#define READ4_GRANULE (4 * MEMBW_BLOCK)
#define COPY2_GRANULE (2 * MEMBW_BLOCK)
#define SET_LEN 3

static struct membw_arch_kernel avx512_set[SET_LEN] = {
	{ "read", "512x4", "vmovdqa64", bw_read_512x4, 1, 0, 0, READ4_GRANULE, "streams", "4" },
	{ "copy", "512x2", "vmovdqa64", bw_copy_512x2, 1, 1, 0, COPY2_GRANULE, "streams", "2" },
	{ "copy_nt", "512x2", "vmovdqa64,vmovntdq", bw_copy_nt_512x2, 1, 1, 0, COPY2_GRANULE, "streams", "2" },
};

static struct membw_arch_kernel avx_set[SET_LEN] = {
	{ "read", "256x4", "vmovdqa", bw_read_256x4, 1, 0, 0, READ4_GRANULE, "streams", "4" },
	{ "copy", "256x2", "vmovdqa", bw_copy_256x2, 1, 1, 0, COPY2_GRANULE, "streams", "2" },
	{ "copy_nt", "256x2", "vmovdqa,vmovntdq", bw_copy_nt_256x2, 1, 1, 0, COPY2_GRANULE, "streams", "2" },
};

unsigned arch_membw_kernels(const struct membw_arch_kernel **k)
{
	struct simd_state simd;
	struct membw_arch_kernel *set;

	simd_usable(&simd);
	/* without AVX the 256-bit set is listed with the reason, so its skips say why */
	set = simd.usable[SIMD_512] ? avx512_set : avx_set;
	for (unsigned i = 0; i < SET_LEN; i++)
		set[i].why_not = set == avx512_set ? 0 : simd.why_not[SIMD_256];
	*k = set;
	return SET_LEN;
}
