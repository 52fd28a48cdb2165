/* AArch64 cache maintenance (see cache_ops.h). Set/way operations act on this core's caches only
 * and do not reach system caches beyond the point of coherency: the cold start they give is the
 * core's, as wbinvd's is on x86 (which does reach the shared levels). */
/* OPT_FAST: -O2 (Makefile): timed window or what runs inside one. */
#include "arch/aarch64/cache_ops.h"

#include "arch/aarch64/cpu.h"
#include "arch/membw.h"

#define CSSELR_LEVEL_SHIFT 1
#define CLIDR_LOC_SHIFT 24 /* level of coherency: levels 1..LoC are cleaned */
#define CLIDR_LOC_MASK 7u

void aarch64_cache_ctl(struct aarch64_cache_ctl *out)
{
	out->ctr = sysreg_read(ctr_el0);
	out->dczid = sysreg_read(dczid_el0);
	out->ccidx = a64_mmfr2_ccidx(sysreg_read(id_aa64mmfr2_el1));
	out->c = a64_ctr_decode(out->ctr);
	out->z = a64_dczid_decode(out->dczid);
}

void aarch64_sync_icache(const void *code, size_t size)
{
	struct a64_sync_plan p = a64_sync_plan(sysreg_read(ctr_el0));
	uintptr_t start = (uintptr_t)code, end = start + size;

	if (p.dc_step)
		for (uintptr_t a = start & ~(uintptr_t)(p.dc_step - 1); a < end; a += p.dc_step)
			__asm__ volatile("dc cvau, %0" : : "r"(a) : "memory");
	__asm__ volatile("dsb ish" ::: "memory"); /* the stores (or cleans) complete before the invalidate */
	if (p.ic_step)
		for (uintptr_t a = start & ~(uintptr_t)(p.ic_step - 1); a < end; a += p.ic_step)
			__asm__ volatile("ic ivau, %0" : : "r"(a) : "memory");
	__asm__ volatile("dsb ish; isb" ::: "memory"); /* and this core fetches anew */
}

static void flush_level(unsigned level)
{
	bool ccidx = a64_mmfr2_ccidx(sysreg_read(id_aa64mmfr2_el1));
	struct a64_cache_geom g;

	__asm__ volatile("msr csselr_el1, %0; isb" : : "r"((uint64_t)(level - 1) << CSSELR_LEVEL_SHIFT) : "memory");
	g = a64_ccsidr_decode(sysreg_read(ccsidr_el1), ccidx);
	for (unsigned w = 0; w < g.ways; w++)
		for (unsigned s = 0; s < g.sets; s++)
			__asm__ volatile("dc cisw, %0" : : "r"(a64_setway_operand(level, w, s, g.ways, g.line)) : "memory");
	__asm__ volatile("dsb sy" ::: "memory");
}

void arch_cache_flush_all(void)
{
	uint64_t clidr = sysreg_read(clidr_el1);
	unsigned loc = (unsigned)(clidr >> CLIDR_LOC_SHIFT) & CLIDR_LOC_MASK;

	for (unsigned n = 0; n < loc && n < A64_CLIDR_LEVELS; n++) {
		unsigned t = a64_clidr_ctype(clidr, n);

		if (t == A64_CTYPE_DATA || t == A64_CTYPE_SEPARATE || t == A64_CTYPE_UNIFIED)
			flush_level(n + 1);
	}
	__asm__ volatile("ic iallu; dsb sy; isb" ::: "memory");
}

/* Data cache maintenance by address to the point of coherency (Arm ARM D7.5.9): for memory a
 * device reads or writes by DMA where the interconnect does not keep caches coherent. */
static void dcache_range(const void *p, size_t n, bool invalidate)
{
	uint64_t line = a64_ctr_decode(sysreg_read(ctr_el0)).dminline; /* bytes */
	uint64_t a = (uint64_t)(uintptr_t)p & ~(line - 1), end = (uint64_t)(uintptr_t)p + n;

	__asm__ volatile("dsb sy" ::: "memory");
	for (; a < end; a += line) {
		if (invalidate)
			__asm__ volatile("dc civac, %0" : : "r"(a) : "memory");
		else
			__asm__ volatile("dc cvac, %0" : : "r"(a) : "memory");
	}
	__asm__ volatile("dsb sy" ::: "memory");
}

void aarch64_dcache_clean_range(const void *p, size_t n)
{
	dcache_range(p, n, false);
}

void aarch64_dcache_clean_invalidate_range(const void *p, size_t n)
{
	dcache_range(p, n, true);
}

void arch_cache_evict_range(const void *p, size_t n, bool code)
{
	uint64_t line = a64_ctr_decode(sysreg_read(ctr_el0)).iminline;
	uint64_t a = (uint64_t)(uintptr_t)p & ~(line - 1), end = (uint64_t)(uintptr_t)p + n;

	dcache_range(p, n, true); /* DC CIVAC: to the point of coherency, system caches included */
	if (!code)
		return;
	for (; a < end; a += line)
		__asm__ volatile("ic ivau, %0" : : "r"(a) : "memory");
	__asm__ volatile("dsb ish; isb" ::: "memory");
}
