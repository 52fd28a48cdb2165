/* The plausibility of CPUID's cache descriptions (arch/x86_64/cache_judge.c). Real values from
 * the CPUID dumps of the InstLatx64 collection (AIDA64's decoding beside each leaf):
 *   EPYC Turin 1Ah/02h (AuthenticAMD0B00F21_K20_Turin_01): 0x8000001D L1D 48 KiB 12-way, L1I
 *     32 KiB 8-way, L2 1 MiB 16-way, L3 32 MiB 16-way (32768 sets); 0x80000006 EDX 08009140: L3
 *     512 x 512 KiB = 256 MiB, associativity code 9;
 *   Ryzen 7 5800X3D (AuthenticAMD0A20F12_K19_Vermeer_00): 0x8000001D L3 16-way, 98304 sets:
 *     96 MiB (3D V-Cache);
 *   Xeon 6 Granite Rapids (GenuineIntel00A06D1_GraniteRapids_03): leaf 4 L3 144 MiB 16-way;
 *   Lunar Lake (GenuineIntel00B06D1_LunarLake_04): leaf 4 L2 4 MiB 16-way (E-core module);
 * and a bhyve guest (Oxide "Turin-like Processor", 1Ah/02h): 0x80000006 EDX 0FE09140, an
 * "L3" of 1016 x 512 KiB = 508 MiB with no ways, 0x8000001D empty. */
#include <string.h>

#include "arch/cpu_info.h"
#include "arch/x86_64/cache_judge.h"
#include "tests/unit/test.h"

#define KIB 1024ull
#define MIB (1024ull * KIB)

static const struct cache_judge_cpu zen5 = { .family = 0x1A, .amd = true };
static const struct cache_judge_cpu zen3 = { .family = 0x19, .amd = true };
static const struct cache_judge_cpu k10 = { .family = 0x10, .amd = true };
static const struct cache_judge_cpu intel = { .family = 6, .amd = false };

static struct cache_judge_desc cache(unsigned level, enum cache_type t, uint64_t size, unsigned line,
				     unsigned ways, const char *src)
{
	(void)t; /* the rules do not read the type: given for the reader */
	return (struct cache_judge_desc){ .level = level, .size = size, .line = line, .ways = ways, .source = src };
}

static void real_caches_pass(void)
{
	struct cache_judge_desc turin[] = {
		cache(1, CACHE_DATA, 48 * KIB, 64, 12, "cpuid8000001d"),
		cache(1, CACHE_INST, 32 * KIB, 64, 8, "cpuid8000001d"),
		cache(2, CACHE_UNIFIED, 1 * MIB, 64, 16, "cpuid8000001d"),
		cache(3, CACHE_UNIFIED, 32 * MIB, 64, 16, "cpuid8000001d"),
	};
	struct cache_judge_desc x3d = cache(3, CACHE_UNIFIED, 96 * MIB, 64, 16, "cpuid8000001d");
	struct cache_judge_desc gnr = cache(3, CACHE_UNIFIED, 144 * MIB, 64, 16, "cpuid4");
	struct cache_judge_desc lnl = cache(2, CACHE_UNIFIED, 4 * MIB, 64, 16, "cpuid4");
	/* the bhyve guest's L1D and L2 from 0x80000005/6 (48 KiB 12-way, 1 MiB 8-way): plausible */
	struct cache_judge_desc hv_l1 = cache(1, CACHE_DATA, 48 * KIB, 64, 12, "cpuid80000005");
	struct cache_judge_desc hv_l2 = cache(2, CACHE_UNIFIED, 1 * MIB, 64, 8, "cpuid80000006");
	/* K10 (Phenom II, family 10h): its legacy L3 is the one all cores share and fill: 6 MiB 48-way */
	struct cache_judge_desc deneb = cache(3, CACHE_UNIFIED, 6 * MIB, 64, 48, "cpuid80000006");

	for (unsigned i = 0; i < sizeof(turin) / sizeof(turin[0]); i++)
		CHECK(x86_cache_implausible(&turin[i], &zen5) == 0);
	CHECK(x86_cache_implausible(&x3d, &zen3) == 0);
	CHECK(x86_cache_implausible(&gnr, &intel) == 0);
	CHECK(x86_cache_implausible(&lnl, &intel) == 0);
	CHECK(x86_cache_implausible(&hv_l1, &zen5) == 0);
	CHECK(x86_cache_implausible(&hv_l2, &zen5) == 0);
	CHECK(x86_cache_implausible(&deneb, &k10) == 0);
}

static void legacy_l3_refused(void)
{
	/* Turin's own legacy L3 (the package's 256 MiB) and the bhyve guest's 508 MiB: both refused
	 * as the package's, whatever the size */
	struct cache_judge_desc turin = cache(3, CACHE_UNIFIED, 256 * MIB, 64, 0, "cpuid80000006");
	struct cache_judge_desc hv = cache(3, CACHE_UNIFIED, 1016 * 512 * KIB, 64, 0, "cpuid80000006");
	const char *why = x86_cache_implausible(&hv, &zen5);

	CHECK(why != 0 && strstr(why, "0x80000006") && strstr(why, "whole package"));
	CHECK(x86_cache_implausible(&turin, &zen5) != 0);
}

static void ceilings(void)
{
	/* 508 MiB as one AMD complex's L3 (from 0x8000001D): over twice 96 MiB */
	struct cache_judge_desc amd = cache(3, CACHE_UNIFIED, 1016 * 512 * KIB, 64, 16, "cpuid8000001d");
	/* the same size as an Intel socket's L3: Xeon 6980P has 504 MB, so not refused */
	struct cache_judge_desc xeon = cache(3, CACHE_UNIFIED, 1016 * 512 * KIB, 64, 16, "cpuid4");
	/* 192 MiB: exactly the AMD ceiling (twice 96 MiB) passes, one set more does not */
	struct cache_judge_desc edge = cache(3, CACHE_UNIFIED, 192 * MIB, 64, 16, "cpuid8000001d");
	struct cache_judge_desc over = cache(3, CACHE_UNIFIED, 192 * MIB + 16 * 64, 64, 16, "cpuid8000001d");
	struct cache_judge_desc l1 = cache(1, CACHE_DATA, 256 * KIB, 64, 8, "cpuid4");
	struct cache_judge_desc l2 = cache(2, CACHE_UNIFIED, 16 * MIB, 64, 16, "cpuid4");
	struct cache_judge_desc l4 = cache(4, CACHE_UNIFIED, 128 * MIB, 64, 16, "cpuid4"); /* eDRAM: unbounded */
	struct cache_judge_desc huge = cache(3, CACHE_UNIFIED, 2048 * MIB, 64, 16, "cpuid4");

	CHECK(strstr(x86_cache_implausible(&amd, &zen5), "96 MiB") != 0);
	CHECK(x86_cache_implausible(&xeon, &intel) == 0);
	CHECK(x86_cache_implausible(&edge, &zen5) == 0);
	CHECK(x86_cache_implausible(&over, &zen5) != 0);
	CHECK(x86_cache_implausible(&l1, &intel) != 0);
	CHECK(x86_cache_implausible(&l2, &intel) != 0);
	CHECK(x86_cache_implausible(&l4, &intel) == 0);
	CHECK(x86_cache_implausible(&huge, &intel) != 0);
}

static void geometry(void)
{
	struct cache_judge_desc line0 = cache(1, CACHE_DATA, 32 * KIB, 0, 8, "cpuid80000005");
	struct cache_judge_desc line48 = cache(1, CACHE_DATA, 48 * KIB, 48, 8, "cpuid80000005");
	struct cache_judge_desc line512 = cache(2, CACHE_UNIFIED, 1 * MIB, 512, 8, "cpuid4");
	/* not a whole number of lines; a whole number of lines but not of ways x line is real
	 * (Opteron 4176 HE, family 10h: 5 MiB 48-way L3 from 0x80000006) */
	struct cache_judge_desc ragged = cache(2, CACHE_UNIFIED, 1000 * KIB + 32, 64, 16, "cpuid80000006");
	struct cache_judge_desc opteron = cache(3, CACHE_UNIFIED, 5 * MIB, 64, 48, "cpuid80000006");
	/* odd ways that divide: 12-way 48 KiB, 20-way 2.5 MiB, 11-way 5.5 MiB are fine */
	struct cache_judge_desc w12 = cache(1, CACHE_DATA, 48 * KIB, 64, 12, "cpuid4");
	struct cache_judge_desc w20 = cache(2, CACHE_UNIFIED, 2560 * KIB, 64, 20, "cpuid4");
	struct cache_judge_desc w11 = cache(3, CACHE_UNIFIED, 5632 * KIB, 64, 11, "cpuid4");
	/* fully associative (ways 0): only the line count is checked */
	struct cache_judge_desc full = cache(1, CACHE_DATA, 4 * KIB, 64, 0, "cpuid4");

	CHECK(x86_cache_implausible(&line0, &intel) != 0);
	CHECK(x86_cache_implausible(&line48, &intel) != 0);
	CHECK(x86_cache_implausible(&line512, &intel) != 0);
	CHECK(x86_cache_implausible(&ragged, &zen5) != 0);
	CHECK(x86_cache_implausible(&opteron, &k10) == 0);
	CHECK(x86_cache_implausible(&w12, &intel) == 0);
	CHECK(x86_cache_implausible(&w20, &intel) == 0);
	CHECK(x86_cache_implausible(&w11, &intel) == 0);
	CHECK(x86_cache_implausible(&full, &intel) == 0);
}

TEST_SUITE(cache_judge) = {
	{ "real_caches_pass", real_caches_pass }, { "legacy_l3_refused", legacy_l3_refused },
	{ "ceilings", ceilings }, { "geometry", geometry }, { 0, 0 }
};
