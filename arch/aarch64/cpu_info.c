/* What an AArch64 CPU says about itself (arch/cpu_info.h): MIDR_EL1 (implementer, part, variant,
 * revision), the cache hierarchy from CLIDR_EL1 and CCSIDR_EL1 (geometries that cannot be caches
 * vetted by cache_geom.c), MPIDR_EL1's affinity as the hardware id. x86-only fields of struct
 * cpu_info (CPUID leaves, TSC and APIC features, microcode) stay zero. The raw ID registers are emitted by bench/facts/aarch64/platform.c. */
#include "arch/cpu_info.h"

#include "arch/aarch64/cache_geom.h"
#include "arch/aarch64/cpu.h"
#include "arch/aarch64/id_decode.h"

/* MIDR_EL1 */
#define MIDR_IMPL_SHIFT 24
#define MIDR_VARIANT_SHIFT 20
#define MIDR_ARCH_SHIFT 16
#define MIDR_PART_SHIFT 4
#define MIDR_BYTE 0xFFu
#define MIDR_NIBBLE 0xFu
#define MIDR_PART_MASK 0xFFFu

static const struct {
	unsigned code;
	const char *name;
} implementers[] = {
	{ 0x41, "ARM" },	{ 0x42, "Broadcom" }, { 0x43, "Cavium" }, { 0x46, "Fujitsu" },
	{ 0x48, "HiSilicon" }, { 0x4E, "NVIDIA" },   { 0x50, "APM" },	  { 0x51, "Qualcomm" },
	{ 0x61, "Apple" },	{ 0xC0, "Ampere" },
};

static void copy_str(char *dst, unsigned cap, const char *src)
{
	unsigned i = 0;

	for (; src[i] && i + 1 < cap; i++)
		dst[i] = src[i];
	dst[i] = 0;
}

static void hex_str(char *dst, unsigned cap, const char *prefix, uint64_t v, unsigned digits)
{
	unsigned i = 0;

	for (; *prefix && i + 1 < cap; prefix++)
		dst[i++] = *prefix;
	while (digits-- && i + 1 < cap)
		dst[i++] = "0123456789abcdef"[(v >> (4 * digits)) & 0xF];
	dst[i] = 0;
}

#define CSSELR_LEVEL_SHIFT 1 /* CSSELR_EL1: Level in [3:1], InD in bit 0 */
#define CSSELR_IND 1u

/* CSSELR_EL1 selects which cache CCSIDR_EL1 describes. */
static uint64_t read_ccsidr(void *ctx, unsigned level, bool inst)
{
	uint64_t sel = ((uint64_t)(level - 1) << CSSELR_LEVEL_SHIFT) | (inst ? CSSELR_IND : 0);

	(void)ctx;
	__asm__ volatile("msr csselr_el1, %0; isb" : : "r"(sel) : "memory");
	return sysreg_read(ccsidr_el1);
}

static void identify_caches(struct cpu_info *ci)
{
	struct a64_cache found[A64_MAX_CACHES];
	unsigned n = a64_caches_identify(found, A64_MAX_CACHES, sysreg_read(clidr_el1),
					 a64_mmfr2_ccidx(sysreg_read(id_aa64mmfr2_el1)), read_ccsidr, 0);

	for (unsigned i = 0; i < n && ci->num_caches < CPU_MAX_CACHES; i++) {
		struct cache_desc *c = &ci->caches[ci->num_caches++];

		c->level = found[i].level;
		c->type = found[i].ctype == A64_CTYPE_INST   ? CACHE_INST
			  : found[i].ctype == A64_CTYPE_DATA ? CACHE_DATA
							     : CACHE_UNIFIED;
		c->line = found[i].g.line;
		c->ways = found[i].g.ways;
		c->sets = found[i].g.sets;
		c->size = found[i].size; /* 0 where the geometry is unknown */
		c->shared_by = 0;        /* CCSIDR does not say */
		c->source = "ccsidr";
		c->geometry_unknown = found[i].unknown;
	}
}

void arch_cpu_identify(struct cpu_info *ci)
{
	uint64_t midr = sysreg_read(midr_el1);
	unsigned impl = (unsigned)(midr >> MIDR_IMPL_SHIFT) & MIDR_BYTE;

	*ci = (struct cpu_info){ 0 };
	hex_str(ci->vendor, sizeof(ci->vendor), "impl_0x", impl, 2);
	for (unsigned i = 0; i < sizeof(implementers) / sizeof(implementers[0]); i++)
		if (implementers[i].code == impl)
			copy_str(ci->vendor, sizeof(ci->vendor), implementers[i].name);
	/* family: the MIDR architecture field (0xF: see the ID registers); model: the part number;
	 * stepping: variant and revision as rNpM in one number (variant << 4 | revision). */
	ci->family = (unsigned)(midr >> MIDR_ARCH_SHIFT) & MIDR_NIBBLE;
	ci->model = (unsigned)(midr >> MIDR_PART_SHIFT) & MIDR_PART_MASK;
	ci->stepping = ((unsigned)(midr >> MIDR_VARIANT_SHIFT) & MIDR_NIBBLE) << 4 | ((unsigned)midr & MIDR_NIBBLE);
	hex_str(ci->brand, sizeof(ci->brand), "MIDR 0x", midr, 8);
	ci->logical_cpus = 0; /* not from the ID registers: the MADT (GICC entries) counts them */
	ci->logical_cpus_source = "none";
	ci->pmu_present = false;
	ci->pmu_reason = "AArch64 PMUv3 not ported yet";
	/* CLIDR_EL1, CSSELR_EL1 and CCSIDR_EL1 are EL1's: a hosted process (EL0) gets the caches
	 * from the kernel's cacheinfo in sysfs instead (hosted/aarch64/platform.c). */
	if (cpu_current_el() != A64_EL0)
		identify_caches(ci);
}

void arch_cpu_identify_privileged(struct cpu_info *ci)
{
	(void)ci; /* the registers behind a possible fault are surveyed through sysreg_safe.h by
		   * bench/facts/aarch64/sysreg.c; cpu_info's ID registers (MIDR, CLIDR, CCSIDR) never trap */
}

bool arch_smi_count(const struct cpu_info *ci, uint64_t *count)
{
	(void)ci;
	(void)count;
	return false;
}

uint32_t arch_cpu_hw_id(void)
{
	return a64_mpidr_hw_id(sysreg_read(mpidr_el1));
}
