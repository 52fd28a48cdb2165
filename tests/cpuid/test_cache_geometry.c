/* x86 cache geometry from CPUID (arch/x86_64/cpu_info.c) over every value the fields allow: the
 * geometry every probe uses. The expected values are the manuals', written out here:
 *   - Intel SDM vol. 2A, CPUID leaf 04H "Deterministic Cache Parameters": EAX[4:0] type (0 null,
 *     1 data, 2 instruction, 3 unified, 4-31 reserved), EAX[7:5] level (starts at 1), EAX[9]
 *     fully associative; EBX[11:0] line size - 1, EBX[21:12] physical line partitions - 1,
 *     EBX[31:22] ways - 1; ECX sets - 1; size = ways x partitions x line x sets.
 *   - AMD APM vol. 3 (pub. 24594), CPUID Fn8000_001D: the same layout.
 *   - AMD APM vol. 3, Fn8000_0005 ECX / EDX: L1 size in KiB [31:24], associativity [23:16]
 *     (00h reserved, FFh fully associative, else the number of ways), line size in bytes [7:0].
 *   - AMD APM vol. 3, Fn8000_0006 ECX: L2 size in KiB [31:16], associativity [15:12], line
 *     [7:0]; EDX: L3 size in 512 KiB units [31:18], associativity [15:12], line [7:0]; the
 *     associativity encoding of table E-4 "L2/L3 Cache and TLB Associativity Field Encoding":
 *     0 disabled, 1 direct mapped, 2 2-way, 3 3-way, 4 4-way, 5 6-way, 6 8-way, 8 16-way, 9 "the
 *     value is given by Fn8000_001D", A 32-way, B 48-way, C 64-way, D 96-way, E 128-way, F fully
 *     associative, 7 reserved. (Intel SDM's 80000006H ECX[15:12] table has the same codes.)
 * Convention of struct cache_desc (arch/cpu_info.h): ways 0 is fully associative (sets 1) or not
 * known (sets 0); sets 0 where line x ways does not divide the size (AMD BKDG for family 10h,
 * pub. 31116: with HT Assist the L3 reported in Fn8000_0006 shrinks by the probe filter's 1 MiB
 * while its ways stay 48, e.g. 5 MiB x 48 ways x 64 B, not a whole number of sets). */
#include <string.h>

#include "arch/cpu_info.h"
#include "arch/x86_64/cpuid_source.h"
#include "tests/unit/test.h"

#define LEAF_DET 0x4u
#define LEAF_AMD_DET 0x8000001Du
#define EXT1_ECX_TOPOEXT (1u << 22)
#define KIB 1024ull

struct fake {
	uint32_t vendor[3]; /* EBX, EDX, ECX of leaf 0 */
	uint32_t max_leaf, max_ext;
	uint32_t ext1_ecx;
	uint32_t det[3][4];  /* leaf 4 / 0x8000001D subleaves 0..2 (then type 0) */
	uint32_t l1[4], l2l3[4];
};

static struct fake F;
static struct cpu_info CI;

static const uint32_t INTEL[3] = { 0x756E6547, 0x49656E69, 0x6C65746E }; /* "GenuineIntel" */
static const uint32_t AMD[3] = { 0x68747541, 0x69746E65, 0x444D4163 };   /* "AuthenticAMD" */

static void fake_read(void *ctx, uint32_t leaf, uint32_t sub, uint32_t out[4])
{
	const struct fake *f = ctx;

	memset(out, 0, 4 * sizeof(uint32_t));
	if (leaf == 0) {
		out[0] = f->max_leaf;
		out[1] = f->vendor[0];
		out[3] = f->vendor[1];
		out[2] = f->vendor[2];
	} else if (leaf == 0x80000000u) {
		out[0] = f->max_ext;
	} else if (leaf == 0x80000001u) {
		out[2] = f->ext1_ecx;
	} else if ((leaf == LEAF_DET || leaf == LEAF_AMD_DET) && sub < 3) {
		memcpy(out, f->det[sub], sizeof(f->det[sub]));
	} else if (leaf == 0x80000005u) {
		memcpy(out, f->l1, sizeof(f->l1));
	} else if (leaf == 0x80000006u) {
		memcpy(out, f->l2l3, sizeof(f->l2l3));
	}
}

static void setup(const uint32_t vendor[3], uint32_t max_leaf, uint32_t max_ext)
{
	memset(&F, 0, sizeof(F));
	memcpy(F.vendor, vendor, sizeof(F.vendor));
	F.max_leaf = max_leaf;
	F.max_ext = max_ext;
}

static void decode(void)
{
	struct cpuid_source s = { fake_read, &F };

	cpu_info_decode(&CI, &s);
}

/* A leaf 4 / 0x8000001D entry. */
static void det(unsigned i, unsigned type, unsigned level, bool fully, unsigned line, unsigned parts, unsigned ways,
		uint32_t ecx)
{
	F.det[i][0] = type | level << 5 | (fully ? 1u << 9 : 0);
	F.det[i][1] = (line - 1) | (parts - 1) << 12 | (ways - 1) << 22;
	F.det[i][2] = ecx;
}

static bool one_cache(unsigned level, enum cache_type type, uint64_t size, unsigned line, unsigned ways, unsigned sets)
{
	const struct cache_desc *c = &CI.caches[0];

	return CI.num_caches == 1 && c->level == level && c->type == type && c->size == size && c->line == line &&
	       c->ways == ways && c->sets == sets;
}

static void leaf4_every_line_size(void)
{
	setup(INTEL, 4, 0);
	for (unsigned line = 1; line <= 4096; line++) {
		det(0, 1, 1, false, line, 1, 12, 63);
		decode();
		if (!one_cache(1, CACHE_DATA, 12ull * line * 64, line, 12, 64))
			return test_fail(__FILE__, __LINE__, "line %u: %u caches, size %llu", line, CI.num_caches,
					 (unsigned long long)CI.caches[0].size);
	}
}

/* Every way count and partition count (10 bits each), with odd sets and partitions beside them. */
static void leaf4_every_way_and_partition_count(void)
{
	static const unsigned others[] = { 1, 3, 1024 };

	setup(INTEL, 4, 0);
	for (unsigned n = 1; n <= 1024; n++)
		for (unsigned j = 0; j < 3; j++) {
			det(0, 3, 2, false, 64, others[j], n, 2046);
			decode();
			if (!one_cache(2, CACHE_UNIFIED, (uint64_t)n * others[j] * 64 * 2047, 64, n, 2047))
				return test_fail(__FILE__, __LINE__, "ways %u partitions %u", n, others[j]);
			det(0, 3, 2, false, 64, n, others[j], 12286);
			decode();
			if (!one_cache(2, CACHE_UNIFIED, (uint64_t)n * others[j] * 64 * 12287, 64, others[j], 12287))
				return test_fail(__FILE__, __LINE__, "partitions %u ways %u", n, others[j]);
		}
}

/* Sets: ECX + 1 over the 32-bit field; 2^32 sets do not fit the record's field: not reported. */
static void leaf4_sets_whole_range(void)
{
	static const uint32_t ecx[] = { 0, 1, 2, 62, 1023, 1534, 0x7FFFFu, 0x7FFFFFFFu, 0xFFFFFFFEu };

	setup(INTEL, 4, 0);
	for (unsigned i = 0; i < sizeof(ecx) / sizeof(ecx[0]); i++) {
		det(0, 3, 3, false, 64, 1, 16, ecx[i]);
		decode();
		CHECK(one_cache(3, CACHE_UNIFIED, 16ull * 64 * ((uint64_t)ecx[i] + 1), 64, 16, ecx[i] + 1));
	}
	det(0, 3, 3, false, 64, 1, 16, 0xFFFFFFFFu);
	decode();
	CHECK_EQ_U64(CI.num_caches, 0);
}

/* EAX[9]: fully associative (ways 0 in the record, one set); types 4-31 are reserved and level
 * 0 does not exist: such entries are skipped, the ones after them still read. */
static void leaf4_types_levels_fully(void)
{
	setup(INTEL, 4, 0);
	det(0, 1, 1, true, 64, 1, 48, 0);
	decode();
	CHECK(one_cache(1, CACHE_DATA, 48 * 64, 64, 0, 1));
	for (unsigned level = 1; level <= 7; level++)
		for (unsigned type = 1; type <= 31; type++) {
			det(0, type, level, false, 64, 1, 8, 63);
			det(1, 2, 1, false, 64, 1, 8, 63);
			decode();
			if (type > 3 && !one_cache(1, CACHE_INST, 32 * KIB, 64, 8, 64))
				return test_fail(__FILE__, __LINE__, "reserved type %u level %u: %u caches", type, level,
						 CI.num_caches);
			if (type <= 3 && (CI.num_caches != 2 || CI.caches[0].level != level ||
					  CI.caches[0].type != (type == 1 ? CACHE_DATA : type == 2 ? CACHE_INST : CACHE_UNIFIED)))
				return test_fail(__FILE__, __LINE__, "type %u level %u", type, level);
		}
	det(0, 1, 0, false, 64, 1, 8, 63);
	decode();
	CHECK(one_cache(1, CACHE_INST, 32 * KIB, 64, 8, 64));
}

/* Leaf 4 is Intel's, but Centaur / Zhaoxin implement it too (InstLatx64's KX-7000: its 32 MiB L3
 * only there; their 0x80000005/6 give L1 and L2): read it on every vendor but AMD and Hygon,
 * whose leaf 4 is reserved (APM vol. 3, "CPUID Fn0000_0004 reserved"). */
static void leaf4_on_other_vendors(void)
{
	static const uint32_t CENTAUR[3] = { 0x746E6543, 0x48727561, 0x736C7561 }; /* "CentaurHauls" */

	setup(CENTAUR, 4, 0x80000006u);
	det(0, 3, 3, false, 64, 1, 16, 32767);
	F.l2l3[2] = 512u << 16 | 0x6u << 12 | 64;
	decode();
	CHECK(one_cache(3, CACHE_UNIFIED, 32 * KIB * KIB, 64, 16, 32768));
	CHECK_STR(CI.num_caches ? CI.caches[0].source : "", "cpuid4");
	setup(AMD, 4, 0x80000006u);
	det(0, 3, 3, false, 64, 1, 16, 32767); /* not read on AMD */
	F.l2l3[2] = 512u << 16 | 0x6u << 12 | 64;
	decode();
	CHECK(one_cache(2, CACHE_UNIFIED, 512 * KIB, 64, 8, 1024));
}

/* AMD: 0x8000001D (the same layout) where TOPOEXT says it is there, else 0x80000005/6. */
static void amd_8000001d_with_topoext(void)
{
	setup(AMD, 0x10, 0x80000021u);
	F.ext1_ecx = EXT1_ECX_TOPOEXT;
	det(0, 3, 3, false, 64, 1, 16, 32767); /* Zen 3 / 4: 32 MiB, 16 ways */
	F.l2l3[3] = 64u << 18 | 0x9u << 12 | 64; /* 0x80000006 with 'see 0x8000001D': not read */
	decode();
	CHECK(one_cache(3, CACHE_UNIFIED, 32 * KIB * KIB, 64, 16, 32768));
	CHECK_STR(CI.caches[0].source, "cpuid8000001d");
	F.ext1_ecx = 0;
	decode();
	CHECK_STR(CI.num_caches ? CI.caches[0].source : "", "cpuid80000006");
}

/* 0x80000005: every size, associativity and line value of the L1 data cache. */
static void amd_l1_every_field(void)
{
	setup(AMD, 1, 0x80000005u);
	for (unsigned v = 0; v <= 255; v++) {
		unsigned ways = v == 0xFF ? 0 : v; /* 00h reserved: not known either */

		F.l1[2] = 32u << 24 | v << 16 | 64;
		decode();
		if (!one_cache(1, CACHE_DATA, 32 * KIB, 64, ways, v == 0xFF ? 1 : v ? 32 * 1024 / (64 * v) * (32 * 1024 % (64 * v) == 0) : 0))
			return test_fail(__FILE__, __LINE__, "L1 associativity %02Xh: ways %u sets %u", v, CI.caches[0].ways,
					 CI.caches[0].sets);
		F.l1[2] = v << 24 | 2u << 16 | 64;
		decode();
		if (!(v ? one_cache(1, CACHE_DATA, v * KIB, 64, 2, v * 1024 / 128) : CI.num_caches == 0))
			return test_fail(__FILE__, __LINE__, "L1 size %u KiB", v);
		F.l1[2] = 64u << 24 | 2u << 16 | v;
		decode();
		/* a line of 0 bytes gives no geometry: the cache is not reported rather than with line 0 */
		if (!(v ? one_cache(1, CACHE_DATA, 64 * KIB, v, 2, (64 * 1024) % (2 * v) ? 0 : 64 * 1024 / (2 * v))
			: CI.num_caches == 0))
			return test_fail(__FILE__, __LINE__, "L1 line %u", v);
	}
}

/* 0x80000006: every associativity code of table E-4, for the L2 and the L3. */
static void amd_l2_l3_every_associativity_code(void)
{
	/* ways per code; -1: no cache (disabled), -2: ways not known here (reserved, or 'see 1D') */
	static const int ways[16] = { -1, 1, 2, 3, 4, 6, 8, -2, 16, -2, 32, 48, 64, 96, 128, 0 };

	setup(AMD, 1, 0x80000006u);
	for (unsigned code = 0; code < 16; code++) {
		unsigned w = ways[code] > 0 ? (unsigned)ways[code] : 0;
		unsigned sets = ways[code] == 0 ? 1 : w ? (unsigned)(KIB * KIB / (64ull * w)) : 0;

		if (ways[code] > 0 && (KIB * KIB) % (64ull * w))
			sets = 0;
		F.l2l3[2] = 1024u << 16 | code << 12 | 64;
		F.l2l3[3] = 0;
		decode();
		if (!(ways[code] == -1 ? CI.num_caches == 0 : one_cache(2, CACHE_UNIFIED, KIB * KIB, 64, w, sets)))
			return test_fail(__FILE__, __LINE__, "L2 code %Xh: %u caches, ways %u sets %u", code, CI.num_caches,
					 CI.caches[0].ways, CI.caches[0].sets);
		F.l2l3[2] = 0;
		F.l2l3[3] = 2u << 18 | code << 12 | 64;
		decode();
		if (!(ways[code] == -1 ? CI.num_caches == 0 : one_cache(3, CACHE_UNIFIED, KIB * KIB, 64, w, sets)))
			return test_fail(__FILE__, __LINE__, "L3 code %Xh: %u caches, ways %u sets %u", code, CI.num_caches,
					 CI.caches[0].ways, CI.caches[0].sets);
	}
}

/* Every L2 size (16 bits, KiB) and L3 size (14 bits, 512 KiB units). */
static void amd_l2_l3_every_size(void)
{
	setup(AMD, 1, 0x80000006u);
	for (unsigned n = 0; n < 65536; n++) {
		F.l2l3[2] = n << 16 | 0x6u << 12 | 64;
		decode();
		if (!(n ? one_cache(2, CACHE_UNIFIED, n * KIB, 64, 8, n * 1024 % 512 ? 0 : n * 2) : CI.num_caches == 0))
			return test_fail(__FILE__, __LINE__, "L2 %u KiB", n);
	}
	F.l2l3[2] = 0;
	for (unsigned n = 0; n < 16384; n++) {
		F.l2l3[3] = n << 18 | 0xBu << 12 | 64;
		decode();
		uint64_t size = n * 512 * KIB;

		if (!(n ? one_cache(3, CACHE_UNIFIED, size, 64, 48, size % (48 * 64) ? 0 : (unsigned)(size / (48 * 64)))
			: CI.num_caches == 0))
			return test_fail(__FILE__, __LINE__, "L3 %u x 512 KiB: sets %u", n, CI.caches[0].sets);
	}
}

/* The InstLatx64 Opteron 4176 HE (family 10h, HT Assist on): 5 MiB, 48 ways, 64 B. */
static void amd_l3_probe_filter_sets_unknown(void)
{
	setup(AMD, 5, 0x8000001Bu);
	F.l2l3[3] = 0x0028B140;
	decode();
	CHECK(one_cache(3, CACHE_UNIFIED, 5 * KIB * KIB, 64, 48, 0));
}

TEST_SUITE(cache_geometry) = {
	{ "leaf4_every_line_size", leaf4_every_line_size },
	{ "leaf4_every_way_and_partition_count", leaf4_every_way_and_partition_count },
	{ "leaf4_sets_whole_range", leaf4_sets_whole_range },
	{ "leaf4_types_levels_fully", leaf4_types_levels_fully },
	{ "leaf4_on_other_vendors", leaf4_on_other_vendors },
	{ "amd_8000001d_with_topoext", amd_8000001d_with_topoext },
	{ "amd_l1_every_field", amd_l1_every_field },
	{ "amd_l2_l3_every_associativity_code", amd_l2_l3_every_associativity_code },
	{ "amd_l2_l3_every_size", amd_l2_l3_every_size },
	{ "amd_l3_probe_filter_sets_unknown", amd_l3_probe_filter_sets_unknown },
	{ 0, 0 },
};
