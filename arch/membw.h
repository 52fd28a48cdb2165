/* The bandwidth kernels (arch/<cpu>/membw.S) and the pointer-chase loop, for code outside arch/;
 * the CPU's part, <cpu/membw.h> (arch/<cpu>/include/cpu/membw.h), names its cache maintenance and
 * gives its own kernels. */
#ifndef ARCH_MEMBW_H
#define ARCH_MEMBW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arch/simd.h" /* the kernels' widths (struct simd_state) */

/* One pass = `bytes` (a multiple of MEMBW_BLOCK) from the lowest address up; `passes` >= 1. */
typedef void (*membw_kernel_fn)(void *dst, const void *src, size_t bytes, uint64_t passes);

#define MEMBW_BLOCK 256

#define MEMBW_DECLARE(w)                                                          \
	void bw_read_##w(void *, const void *, size_t, uint64_t);                 \
	void bw_write_##w(void *, const void *, size_t, uint64_t);                \
	void bw_copy_##w(void *, const void *, size_t, uint64_t);                 \
	void bw_write_nt_##w(void *, const void *, size_t, uint64_t);             \
	void bw_copy_nt_##w(void *, const void *, size_t, uint64_t);
MEMBW_DECLARE(64)
MEMBW_DECLARE(128)
MEMBW_DECLARE(256)
MEMBW_DECLARE(512)
void bw_rep_stosb(void *, const void *, size_t, uint64_t);
void bw_rep_movsb(void *, const void *, size_t, uint64_t);

/* Write back and invalidate all caches (privileged: bare metal only); ARCH_CACHE_FLUSH_NAME names
 * how, for the records (x86_64: wbinvd; AArch64: DC CISW by set/way, then IC IALLU), and
 * ARCH_CACHE_FLUSH_ALL_TRUSTED says whether a cold start of record may rest on it;
 * ARCH_CACHE_EVICT_NAME names arch_cache_evict_range's instruction. The CPU's part. */
void arch_cache_flush_all(void);

/* Evict [p, p + n) from every cache level by address, to the point of coherency, whatever a
 * hypervisor does with whole-cache operations (x86_64: CLFLUSH each line, then MFENCE; AArch64:
 * DC CIVAC each line and DSB SY, then for `code` IC IVAU each line, DSB, ISB). */
void arch_cache_evict_range(const void *p, size_t n, bool code);

/* The size of the page that maps `addr` in the current page tables ("4K", "2M", "1G"), or NULL
 * when it cannot be told (privileged: reads CR3; bare metal only). */
const char *arch_page_size(const void *addr);

/* Follow a pointer chain `loads` times; returns the last pointer reached. */
void *arch_chase(void *p, uint64_t loads);

/* NULL when the `rep` kernels (bw_rep_stosb, bw_rep_movsb) run on this architecture, else why not
 * (for their skip records). */
const char *arch_membw_rep_unavailable(void);

/* Kernels only one architecture has (AArch64: load/store pair, DC ZVA, SVE; x86_64: multi-stream
 * loops), run by the membw probe after the shared table under the shared kernel names (read,
 * write, copy, write_nt, copy_nt) with a width of their own; `insn` names the instructions for the
 * record. Each passes a known-answer check (bench/probes/mem/membw_verify.h) before it is timed. */
struct membw_arch_kernel {
	const char *name, *width, *insn;
	membw_kernel_fn fn;
	unsigned reads, writes;
	const char *why_not;   /* NULL when it runs here, else the reason for its skip */
	unsigned granule;      /* sizes must be a multiple of this (bytes); 0: MEMBW_BLOCK */
	const char *note_key;  /* one more record parameter (e.g. the SVE vector length), or NULL */
	const char *note_val;
};

/* The CPU's part (<cpu/membw.h>) names the flush and eviction (above). */
#include <cpu/membw.h>

/* The table and its length; computes availability (AArch64: and enables SVE) on each call. */
unsigned arch_membw_kernels(const struct membw_arch_kernel **k);

#endif
