/* The plausibility of a cache description from CPUID (see cache_judge.h).
 *
 * A size is refused, with the reason, when:
 * - the line is not a power of two from 16 to 256 bytes (x86 parts have used 32, 64 and 128);
 * - the size is not a whole number of lines (not of ways x line: AMD's legacy leaf gives real
 *   L3s that are not, e.g. the Opteron 4176 HE's 5 MiB 48-way, part of it the probe filter's);
 * - it is AMD's legacy L3 (CPUID 0x80000006 EDX) on family 17h or later: there the field gives
 *   the L3 of the whole package, every core complex's together, while a core fills only its own
 *   complex's (the one 0x8000001D describes). Real parts, from their CPUID dumps (InstLatx64):
 *   EPYC Turin (1Ah model 02h) 0x80000006 L3 256 MiB, 0x8000001D 32 MiB; EPYC Genoa 384 MiB and
 *   32 MiB; Ryzen 9000 (Granite Ridge) 64 MiB and 32 MiB. Its associativity code there is 9,
 *   "see 0x8000001D" (no ways). The description is used only when 0x8000001D is empty, as a
 *   hypervisor may leave it (bhyve on Turin: a 508 MiB "L3");
 * - it is larger than twice the largest cache of its kind a shipping x86 part has per instance
 *   (the cache one core's accesses can fill): L1 64 KiB (L1I of AMD Zen 1, Intel Lion Cove;
 *   L1D at most 48 KiB), L2 4 MiB (Intel Crestmont/Skymont modules, shared by 4 E-cores), L3 of
 *   AMD one complex's at most 96 MiB (3D V-Cache parts: Ryzen 7 5800X3D/9800X3D, EPYC 9684X per
 *   CCD), other vendors' whole socket at most 576 MB (Intel Xeon 6 with E-cores, Clearwater
 *   Forest; 504 MB on Xeon 6980P). Twice: a margin for parts newer than this list, not a
 *   tolerance for a hypervisor's numbers. Levels above 3 are not bounded (eDRAM L4s). */
#include "arch/x86_64/cache_judge.h"

#define KIB 1024ull
#define MIB (1024ull * KIB)
#define LINE_MIN 16u
#define LINE_MAX 256u
#define AMD_FAMILY_CCX_L3 0x17u    /* Zen: from here the legacy L3 field is the package's */
#define MARGIN 2ull                /* the ceilings are twice the largest shipping cache */
#define L1_LARGEST (64 * KIB)
#define L2_LARGEST (4 * MIB)
#define L3_AMD_CCX_LARGEST (96 * MIB)
#define L3_SOCKET_LARGEST (576000000ull)

static bool power_of_two(unsigned v)
{
	return v && !(v & (v - 1));
}

/* The ceiling of a cache's size at `level`, 0 where none applies. */
static unsigned long long ceiling(unsigned level, bool amd)
{
	switch (level) {
	case 1: return MARGIN * L1_LARGEST;
	case 2: return MARGIN * L2_LARGEST;
	case 3: return MARGIN * (amd ? L3_AMD_CCX_LARGEST : L3_SOCKET_LARGEST);
	default: return 0;
	}
}

static bool is_legacy_amd_l3(const struct cache_judge_desc *c)
{
	const char *want = "cpuid80000006", *s = c->source;

	if (c->level != 3 || !s)
		return false;
	while (*want && *s == *want) {
		s++;
		want++;
	}
	return !*want && !*s;
}

const char *x86_cache_implausible(const struct cache_judge_desc *c, const struct cache_judge_cpu *cpu)
{
	unsigned long long top = ceiling(c->level, cpu->amd);

	if (!power_of_two(c->line) || c->line < LINE_MIN || c->line > LINE_MAX)
		return "cache geometry refused: CPUID's line size is not a power of two from 16 to 256 bytes";
	if (c->size % c->line)
		return "cache geometry refused: CPUID's size is not a whole number of lines";
	if (cpu->amd && cpu->family >= AMD_FAMILY_CCX_L3 && is_legacy_amd_l3(c))
		return "cache geometry refused: CPUID 0x80000006 gives the L3 of the whole package (every core complex's) on "
		       "AMD family 17h and later, not the one a core fills, and 0x8000001D, which "
		       "describes that one, is empty (a hypervisor's CPUID)";
	if (top && c->size > top)
		return c->level == 3 && cpu->amd
			       ? "cache geometry refused: CPUID's L3 is larger than twice the largest L3 of one AMD core complex "
				 "(96 MiB, 3D V-Cache): a hypervisor's value, not a cache a core fills"
			       : "cache geometry refused: CPUID's size is larger than twice the largest x86 cache of its level "
				 "(L1 64 KiB, L2 4 MiB, L3 576 MB): a hypervisor's value";
	return 0;
}
