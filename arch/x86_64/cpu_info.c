/* CPUID decoding into struct cpu_info (Intel SDM vol. 2A CPUID; AMD APM vol. 3 appendix E). */
#include "arch/cpu_info.h"

#include "arch/x86_64/cache_judge.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/cpuid_source.h"
#include "arch/x86_64/msr.h"

/* Leaves */
#define LEAF_VENDOR 0x0
#define LEAF_FEATURES 0x1
#define LEAF_CACHE_PARAMS 0x4
#define LEAF_EXT_FEATURES 0x7
#define LEAF_TOPOLOGY 0xB
#define LEAF_PERFMON 0xA
#define LEAF_TSC_CRYSTAL 0x15
#define LEAF_FREQ 0x16
#define LEAF_HV_BASE 0x40000000u
#define LEAF_EXT_MAX 0x80000000u
#define LEAF_EXT_FEATURES1 0x80000001u
#define LEAF_BRAND0 0x80000002u
#define LEAF_AMD_L1 0x80000005u
#define LEAF_AMD_L2L3 0x80000006u
#define LEAF_POWER 0x80000007u
#define LEAF_AMD_CACHE_TOPO 0x8000001Du
#define LEAF_AMD_PERFMON 0x80000022u

/* Leaf 1 */
#define F1_EDX_TSC (1u << 4)
#define F1_EDX_APIC (1u << 9)
#define F1_EDX_SSE2 (1u << 26)
#define F1_EDX_HTT (1u << 28) /* 0: one logical processor per package; else EBX[23:16] counts them */
#define F1_ECX_X2APIC (1u << 21)
#define F1_ECX_TSC_DEADLINE (1u << 24)
#define F1_ECX_OSXSAVE (1u << 27)
#define F1_ECX_AVX (1u << 28)
#define F1_ECX_HYPERVISOR (1u << 31)
#define F1_EBX_LOGICAL_SHIFT 16
#define F1_EBX_APIC_ID_SHIFT 24 /* initial APIC id: bits 31:24 */
/* Leaf 0xB: one subleaf per topology level, ECX[15:8] its type (0 = no more levels), EBX[15:0]
 * the logical processors at that level and below; the last level is the package. */
#define TOPO_ECX_TYPE_SHIFT 8
#define TOPO_MAX_LEVELS 8
/* Leaf 7 subleaf 0 */
#define F7_EBX_AVX2 (1u << 5)
#define F7_EBX_ERMS (1u << 9)
#define F7_EBX_AVX512F (1u << 16)
#define F7_EDX_FSRM (1u << 4)
/* 0x80000001 */
#define FE1_EDX_RDTSCP (1u << 27)
#define FE1_ECX_TOPOEXT (1u << 22)
#define FE1_ECX_PERFCTR_CORE (1u << 23)
/* 0x80000007 */
#define FPWR_EDX_INVARIANT_TSC (1u << 8)
/* 0x80000022 */
#define FPM_EAX_PERFMON_V2 (1u << 0)

static uint32_t bits(uint32_t v, unsigned lo, unsigned hi)
{
	return (v >> lo) & ((hi - lo == 31) ? 0xFFFFFFFFu : ((1u << (hi - lo + 1)) - 1));
}

static bool text_eq(const char *a, const char *b)
{
	while (*a && *a == *b) {
		a++;
		b++;
	}
	return *a == *b;
}

static void cpuid(const struct cpuid_source *s, uint32_t leaf, uint32_t sub, uint32_t r[4])
{
	s->read(s->ctx, leaf, sub, r);
}

/* The instruction itself: the source of every firmware and hosted build. */
static void cpuid_insn(void *ctx, uint32_t leaf, uint32_t sub, uint32_t r[4])
{
	(void)ctx;
	cpu_cpuid(leaf, sub, &r[0], &r[1], &r[2], &r[3]);
}

static const struct cpuid_source cpuid_hw = { cpuid_insn, 0 };

static void copy_regs_text(char *dst, const uint32_t *regs, unsigned nregs)
{
	unsigned i;

	for (i = 0; i < nregs * 4; i++)
		dst[i] = (char)(regs[i / 4] >> (8 * (i % 4)));
	dst[nregs * 4] = '\0';
}

/* Logical processors per package: leaf 0xB's outermost level where it exists and counts, else
 * leaf 1 (EBX[23:16] means something only with HTT set; without it the package has one). */
static void logical_cpus(const struct cpuid_source *s, struct cpu_info *ci, uint32_t leaf1_ebx, uint32_t leaf1_edx)
{
	uint32_t r[4];

	ci->logical_cpus = 0;
	for (unsigned sub = 0; ci->max_leaf >= LEAF_TOPOLOGY && sub < TOPO_MAX_LEVELS; sub++) {
		cpuid(s, LEAF_TOPOLOGY, sub, r);
		if (!bits(r[2], TOPO_ECX_TYPE_SHIFT, TOPO_ECX_TYPE_SHIFT + 7) || !bits(r[1], 0, 15))
			break;
		ci->logical_cpus = bits(r[1], 0, 15);
		ci->logical_cpus_source = "cpuid_0xb";
	}
	if (ci->logical_cpus)
		return;
	if (leaf1_edx & F1_EDX_HTT) {
		ci->logical_cpus = bits(leaf1_ebx, F1_EBX_LOGICAL_SHIFT, F1_EBX_LOGICAL_SHIFT + 7);
		ci->logical_cpus_source = "cpuid_1_max_ids"; /* addressable ids: an upper bound */
	} else {
		ci->logical_cpus = 1;
		ci->logical_cpus_source = "cpuid_1_htt0";
	}
}

static void add_cache(struct cpu_info *ci, unsigned level, enum cache_type type, uint64_t size,
		      unsigned line, unsigned ways, unsigned sets, unsigned shared, const char *src)
{
	struct cache_desc *c;

	if (ci->num_caches >= CPU_MAX_CACHES || !size)
		return;
	c = &ci->caches[ci->num_caches++];
	c->level = level;
	c->type = type;
	c->size = size;
	c->line = line;
	c->ways = ways;
	c->sets = sets;
	c->shared_by = shared;
	c->source = src;
}

/* Deterministic cache parameters: the same layout in Intel leaf 4 and AMD leaf 0x8000001D.
 * EAX[4:0] type: 0 no more caches, 1 data, 2 instruction, 3 unified, 4-31 reserved (SDM). */
#define DET_TYPE_DATA 1
#define DET_TYPE_INST 2
#define DET_TYPE_UNIFIED 3
static void deterministic_caches(const struct cpuid_source *s, struct cpu_info *ci, uint32_t leaf, const char *src)
{
	unsigned sub;

	for (sub = 0; sub < 16; sub++) {
		uint32_t r[4];
		unsigned type, level, line, parts, ways, sets;
		bool fully;

		cpuid(s, leaf, sub, r);
		type = bits(r[0], 0, 4);
		if (type == 0)
			break;
		level = bits(r[0], 5, 7);
		if (type > DET_TYPE_UNIFIED || level == 0)
			continue; /* reserved type, or no level: not a cache we know how to describe */
		fully = bits(r[0], 9, 9);
		line = bits(r[1], 0, 11) + 1;
		parts = bits(r[1], 12, 21) + 1;
		ways = bits(r[1], 22, 31) + 1;
		sets = r[2] + 1;
		add_cache(ci, level, type == DET_TYPE_DATA ? CACHE_DATA : type == DET_TYPE_INST ? CACHE_INST : CACHE_UNIFIED,
			  (uint64_t)ways * parts * line * sets, line, fully ? 0 : ways, sets,
			  bits(r[0], 14, 25) + 1, src);
	}
}

/* 0x80000005/6 give sizes and geometry but not which processors share a cache (with SMT even
 * the L1 is shared by two threads): only 0x8000001D says, and only with TOPOEXT set. */
#define SHARED_UNKNOWN 0

/* AMD's L2/L3 associativity is an encoded field (APM vol. 3, CPUID 0x80000006, table E-4 "L2/L3
 * Cache and TLB Associativity Field Encoding"): 0 the cache is disabled, 7 reserved, 9 "see
 * 0x8000001D", 0xF fully associative, the others a number of ways. */
#define AMD_ASSOC_DISABLED 0x0
#define AMD_ASSOC_FULL 0xF
#define AMD_L1_ASSOC_FULL 0xFF /* 0x80000005's 8-bit field; 0 is reserved there */
#define WAYS_UNKNOWN 0         /* with sets 0; fully associative is ways 0 with one set */

static unsigned amd_assoc(unsigned code)
{
	static const unsigned table[16] = { 0, 1, 2, 3, 4, 6, 8, WAYS_UNKNOWN, 16, WAYS_UNKNOWN, 32, 48, 64, 96, 128, 0 };

	return table[code & 0xF];
}

/* A 0x80000005/6 cache: a line of 0 bytes gives no geometry, and sets are derived only where
 * line x ways divides the size (family 10h with HT Assist reports an L3 1 MiB smaller than its
 * 48 ways make: AMD BKDG 31116); a fully associative cache has one set. */
static void add_legacy_cache(struct cpu_info *ci, unsigned level, enum cache_type type, uint64_t size, unsigned line,
			     unsigned ways, bool fully)
{
	unsigned sets = 0;

	if (!line)
		return;
	if (fully)
		sets = 1;
	else if (ways && size % ((uint64_t)ways * line) == 0)
		sets = (unsigned)(size / ((uint64_t)ways * line));
	add_cache(ci, level, type, size, line, fully ? 0 : ways, sets, SHARED_UNKNOWN, type == CACHE_UNIFIED ? "cpuid80000006" : "cpuid80000005");
}


static void legacy_amd_caches(const struct cpuid_source *s, struct cpu_info *ci)
{
	uint32_t r[4];
	unsigned a;

	if (ci->max_ext_leaf >= LEAF_AMD_L1) {
		cpuid(s, LEAF_AMD_L1, 0, r);
		/* ECX: L1d, EDX: L1i; size KiB in 31:24, assoc 23:16, line 7:0 */
		a = bits(r[2], 16, 23);
		add_legacy_cache(ci, 1, CACHE_DATA, (uint64_t)bits(r[2], 24, 31) * 1024, bits(r[2], 0, 7), a,
				 a == AMD_L1_ASSOC_FULL);
		a = bits(r[3], 16, 23);
		add_legacy_cache(ci, 1, CACHE_INST, (uint64_t)bits(r[3], 24, 31) * 1024, bits(r[3], 0, 7), a,
				 a == AMD_L1_ASSOC_FULL);
	}
	if (ci->max_ext_leaf >= LEAF_AMD_L2L3) {
		cpuid(s, LEAF_AMD_L2L3, 0, r);
		/* ECX: L2 size KiB 31:16, assoc 15:12, line 7:0; EDX: L3 size in 512 KiB units 31:18 */
		a = bits(r[2], 12, 15);
		if (a != AMD_ASSOC_DISABLED)
			add_legacy_cache(ci, 2, CACHE_UNIFIED, (uint64_t)bits(r[2], 16, 31) * 1024, bits(r[2], 0, 7),
					 amd_assoc(a), a == AMD_ASSOC_FULL);
		a = bits(r[3], 12, 15);
		if (a != AMD_ASSOC_DISABLED)
			add_legacy_cache(ci, 3, CACHE_UNIFIED, (uint64_t)bits(r[3], 18, 31) * 512 * 1024, bits(r[3], 0, 7),
					 amd_assoc(a), a == AMD_ASSOC_FULL);
	}
}

static void identify_pmu(const struct cpuid_source *s, struct cpu_info *ci)
{
	uint32_t r[4];

	ci->pmu_present = false;
	ci->pmu_version = 0;
	if (ci->is_intel) {
		if (ci->max_leaf < LEAF_PERFMON) {
			ci->pmu_reason = "CPUID leaf 0xA not available";
			return;
		}
		cpuid(s, LEAF_PERFMON, 0, r);
		ci->pmu_version = bits(r[0], 0, 7);
		if (!ci->pmu_version || !bits(r[0], 8, 15)) {
			ci->pmu_reason = ci->hypervisor ? "CPUID 0xA reports no counters (hypervisor hides the PMU)"
							: "CPUID 0xA reports no counters";
			return;
		}
		ci->pmu_present = true;
		ci->pmu_reason = "architectural PMU (CPUID 0xA)";
		return;
	}
	if (ci->is_amd) {
		uint32_t e[4];

		cpuid(s, LEAF_EXT_FEATURES1, 0, e);
		if (ci->max_ext_leaf >= LEAF_AMD_PERFMON) {
			cpuid(s, LEAF_AMD_PERFMON, 0, r);
			if (r[0] & FPM_EAX_PERFMON_V2) {
				ci->pmu_present = true;
				ci->pmu_version = 3;
				ci->pmu_reason = "AMD PerfMonV2 (CPUID 0x80000022)";
				return;
			}
		}
		if (e[2] & FE1_ECX_PERFCTR_CORE) {
			ci->pmu_present = true;
			ci->pmu_version = 2;
			ci->pmu_reason = "AMD core performance counter extensions (CPUID 0x80000001 ECX[23])";
			return;
		}
		if (ci->hypervisor) {
			ci->pmu_reason = "hypervisor does not expose PerfCtrExtCore; legacy counters unverifiable";
			return;
		}
		ci->pmu_present = true;
		ci->pmu_version = 1;
		ci->pmu_reason = "AMD legacy counters (MSR C001_0000..7)";
		return;
	}
	ci->pmu_reason = "unknown CPU vendor";
}

/* Leaf 0: the highest leaf and the vendor; 0x80000000: the highest extended leaf. */
static void identify_vendor(const struct cpuid_source *s, struct cpu_info *ci)
{
	uint32_t r[4];

	cpuid(s, LEAF_VENDOR, 0, r);
	ci->max_leaf = r[0];
	{
		uint32_t v[3] = { r[1], r[3], r[2] }; /* EBX, EDX, ECX spell the vendor */

		copy_regs_text(ci->vendor, v, 3);
	}
	ci->is_intel = text_eq(ci->vendor, "GenuineIntel");
	ci->is_amd = text_eq(ci->vendor, "AuthenticAMD") || text_eq(ci->vendor, "HygonGenuine");
	cpuid(s, LEAF_EXT_MAX, 0, r);
	ci->max_ext_leaf = r[0] >= LEAF_EXT_MAX ? r[0] : 0;
}

/* Leaf 1: family, model, stepping (with the extended fields where they apply), the logical
 * processors per package, and the feature bits. */
static void identify_leaf1(const struct cpuid_source *s, struct cpu_info *ci)
{
	uint32_t r[4];

	cpuid(s, LEAF_FEATURES, 0, r);
	ci->stepping = bits(r[0], 0, 3);
	ci->family = bits(r[0], 8, 11);
	ci->model = bits(r[0], 4, 7);
	if (ci->family == 0xF)
		ci->family += bits(r[0], 20, 27);
	if (ci->family == 0x6 || ci->family >= 0xF)
		ci->model |= bits(r[0], 16, 19) << 4;
	logical_cpus(s, ci, r[1], r[3]);
	ci->tsc = r[3] & F1_EDX_TSC;
	ci->apic = r[3] & F1_EDX_APIC;
	ci->sse2 = r[3] & F1_EDX_SSE2;
	ci->x2apic = r[2] & F1_ECX_X2APIC;
	ci->tsc_deadline = r[2] & F1_ECX_TSC_DEADLINE;
	ci->osxsave = r[2] & F1_ECX_OSXSAVE;
	ci->avx = r[2] & F1_ECX_AVX;
	ci->hypervisor = r[2] & F1_ECX_HYPERVISOR;
}

/* The features of leaves 7, 0x80000001 and 0x80000007, where the CPU has those leaves. */
static void identify_ext_features(const struct cpuid_source *s, struct cpu_info *ci)
{
	uint32_t r[4];

	if (ci->max_leaf >= LEAF_EXT_FEATURES) {
		cpuid(s, LEAF_EXT_FEATURES, 0, r);
		ci->avx2 = r[1] & F7_EBX_AVX2;
		ci->erms = r[1] & F7_EBX_ERMS;
		ci->avx512f = r[1] & F7_EBX_AVX512F;
		ci->fsrm = r[3] & F7_EDX_FSRM;
	}
	if (ci->max_ext_leaf >= LEAF_EXT_FEATURES1) {
		cpuid(s, LEAF_EXT_FEATURES1, 0, r);
		ci->rdtscp = r[3] & FE1_EDX_RDTSCP;
	}
	if (ci->max_ext_leaf >= LEAF_POWER) {
		cpuid(s, LEAF_POWER, 0, r);
		ci->invariant_tsc = r[3] & FPWR_EDX_INVARIANT_TSC;
	}
}

/* The brand string (0x80000002..4) and the hypervisor's signature (0x40000000). */
static void identify_names(const struct cpuid_source *s, struct cpu_info *ci)
{
	uint32_t r[4], brand[12];

	if (ci->max_ext_leaf >= LEAF_BRAND0 + 2) {
		for (unsigned i = 0; i < 3; i++)
			cpuid(s, LEAF_BRAND0 + i, 0, &brand[i * 4]);
		copy_regs_text(ci->brand, brand, 12);
	}
	if (ci->hypervisor) {
		cpuid(s, LEAF_HV_BASE, 0, r);
		{
			uint32_t v[3] = { r[1], r[2], r[3] };

			copy_regs_text(ci->hv_sig, v, 3);
		}
	}
}

/* 0x15: TSC = crystal * EBX / EAX; 0x16: base frequency in MHz. */
static void identify_tsc_hz(const struct cpuid_source *s, struct cpu_info *ci)
{
	uint32_t r[4];

	if (ci->max_leaf >= LEAF_TSC_CRYSTAL) {
		cpuid(s, LEAF_TSC_CRYSTAL, 0, r);
		if (r[0] && r[1] && r[2])
			ci->tsc_hz_cpuid15 = (uint64_t)r[2] * r[1] / r[0];
	}
	if (ci->max_leaf >= LEAF_FREQ) {
		cpuid(s, LEAF_FREQ, 0, r);
		ci->tsc_hz_cpuid16 = (uint64_t)bits(r[0], 0, 15) * 1000000;
	}
}

/* Every cache judged (arch/x86_64/cache_judge.h): a refused one gets geometry_unknown, its size
 * kept as reported_size and size 0. Not part of cpu_info_decode, which decodes as the manuals
 * allow (the corpus and geometry tests replay every field value through it); arch_cpu_identify,
 * what the probes size their buffers from, judges. */
void cpu_info_judge_caches(struct cpu_info *ci)
{
	struct cache_judge_cpu cpu = { .family = ci->family, .amd = ci->is_amd };

	for (unsigned i = 0; i < ci->num_caches; i++) {
		struct cache_desc *c = &ci->caches[i];
		struct cache_judge_desc d = { c->level, c->size, c->line, c->ways, c->source };
		const char *why = c->geometry_unknown ? 0 : x86_cache_implausible(&d, &cpu);

		if (!why)
			continue;
		c->geometry_unknown = why;
		c->reported_size = c->size;
		c->size = 0;
	}
}

/* Caches: leaf 4 (Intel's, also Centaur's and Zhaoxin's; reserved on AMD and Hygon); AMD's
 * 0x8000001D where TOPOEXT says it is there; else 0x80000005/6. */
static void identify_caches(const struct cpuid_source *s, struct cpu_info *ci)
{
	uint32_t r[4];

	if (!ci->is_amd && ci->max_leaf >= LEAF_CACHE_PARAMS)
		deterministic_caches(s, ci, LEAF_CACHE_PARAMS, "cpuid4");
	if (!ci->num_caches && ci->is_amd && ci->max_ext_leaf >= LEAF_AMD_CACHE_TOPO) {
		cpuid(s, LEAF_EXT_FEATURES1, 0, r);
		if (r[2] & FE1_ECX_TOPOEXT)
			deterministic_caches(s, ci, LEAF_AMD_CACHE_TOPO, "cpuid8000001d");
	}
	if (!ci->num_caches)
		legacy_amd_caches(s, ci);
}

void cpu_info_decode(struct cpu_info *ci, const struct cpuid_source *s)
{
	*ci = (struct cpu_info){ 0 };
	identify_vendor(s, ci);
	identify_leaf1(s, ci);
	identify_ext_features(s, ci);
	identify_names(s, ci);
	identify_tsc_hz(s, ci);
	identify_caches(s, ci);
	identify_pmu(s, ci);
}

void arch_cpu_identify(struct cpu_info *ci)
{
	cpu_info_decode(ci, &cpuid_hw);
	cpu_info_judge_caches(ci); /* a hypervisor's implausible values: unknown, with the reason */
}

void arch_cpu_identify_privileged(struct cpu_info *ci)
{
	const struct cpuid_source *s = &cpuid_hw;
	uint64_t v;
	uint32_t r[4];

	ci->ucode_valid = false;
	if (ci->is_intel) {
		/* SDM: write 0 to IA32_BIOS_SIGN_ID, execute cpuid(1), then read the revision. */
		if (wrmsr_safe(MSR_IA32_BIOS_SIGN_ID, 0) != MSR_OK)
			return;
		cpuid(s, LEAF_FEATURES, 0, r);
		if (rdmsr_safe(MSR_IA32_BIOS_SIGN_ID, &v) == MSR_OK) {
			ci->ucode = v >> 32;
			ci->ucode_valid = true;
		}
	} else if (ci->is_amd) {
		if (rdmsr_safe(MSR_AMD_PATCH_LEVEL, &v) == MSR_OK) {
			ci->ucode = v & 0xFFFFFFFFu;
			ci->ucode_valid = true;
		}
	}
}

#define MSR_SMI_COUNT 0x34u /* Intel: SMIs since reset, bits 31:0 (ARCH_SMI_COUNT_MASK) */

bool arch_smi_count(const struct cpu_info *ci, uint64_t *count)
{
	uint64_t v;

	if (!ci->is_intel || rdmsr_safe(MSR_SMI_COUNT, &v) != MSR_OK)
		return false;
	*count = v & ARCH_SMI_COUNT_MASK;
	return true;
}

/* The hardware id of the calling CPU from CPUID alone (no APIC access, so also in user space):
 * leaf 0xB's x2APIC id where the leaf is implemented, else leaf 1's initial APIC id. */
uint32_t cpu_hw_id_decode(const struct cpuid_source *s)
{
	uint32_t r[4];

	cpuid(s, LEAF_VENDOR, 0, r);
	if (r[0] >= LEAF_TOPOLOGY) {
		cpuid(s, LEAF_TOPOLOGY, 0, r);
		if (r[1]) /* a leaf 0xB with no logical processors at level 0 is not implemented */
			return r[3];
	}
	cpuid(s, LEAF_FEATURES, 0, r);
	return r[1] >> F1_EBX_APIC_ID_SHIFT;
}

uint32_t arch_cpu_hw_id(void)
{
	return cpu_hw_id_decode(&cpuid_hw);
}
