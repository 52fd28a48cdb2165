/* A Linux user program that prints the CPUID leaves the firmware's cache discovery reads, one line
 * per (leaf, subleaf): "leaf subleaf eax ebx ecx edx" in hex. Run under `qemu-x86_64 -cpu MODEL`
 * (Debian qemu-user) it gives a QEMU CPU model's CPUID without our firmware or decoder in the way:
 * tests/integration/test_cpu_models.py decodes it per the SDM / APM and compares the firmware's
 * `plat kind=cache` records of a boot of the same model with that. GCC's <cpuid.h> issues the
 * instruction, so no inline assembly is written here (docs/hacking.md). */
#include <cpuid.h>
#include <stdio.h>

#define LEAF_MAX_STD 0x0u
#define LEAF_CACHE_PARAMS 0x4u          /* Intel deterministic cache parameters */
#define LEAF_MAX_EXT 0x80000000u
#define LEAF_EXT_FEATURES 0x80000001u   /* ECX bit 22: TOPOEXT */
#define LEAF_AMD_L1 0x80000005u
#define LEAF_AMD_L2L3 0x80000006u
#define LEAF_AMD_CACHE_TOPO 0x8000001Du /* AMD cache topology, leaf 4's layout */
#define SUBLEAF_CAP 16u                 /* more cache descriptors than any CPU lists */
#define CACHE_TYPE_MASK 0x1Fu           /* EAX[4:0] of leaves 4 / 0x8000001D; 0: no more caches */

static void dump(unsigned leaf, unsigned sub, unsigned r[4])
{
	__cpuid_count(leaf, sub, r[0], r[1], r[2], r[3]);
	printf("%08x %u %08x %08x %08x %08x\n", leaf, sub, r[0], r[1], r[2], r[3]);
}

/* Every subleaf of a deterministic cache leaf up to the first of type 0 (which is printed too). */
static void dump_caches(unsigned leaf)
{
	unsigned r[4];

	for (unsigned sub = 0; sub < SUBLEAF_CAP; sub++) {
		dump(leaf, sub, r);
		if ((r[0] & CACHE_TYPE_MASK) == 0)
			break;
	}
}

int main(void)
{
	unsigned r[4], max_std, max_ext;

	dump(LEAF_MAX_STD, 0, r);
	max_std = r[0];
	dump(1, 0, r);
	if (max_std >= LEAF_CACHE_PARAMS)
		dump_caches(LEAF_CACHE_PARAMS);
	dump(LEAF_MAX_EXT, 0, r);
	max_ext = r[0];
	for (unsigned leaf = LEAF_EXT_FEATURES; leaf <= LEAF_AMD_L2L3 && leaf <= max_ext; leaf++)
		if (leaf == LEAF_EXT_FEATURES || leaf >= LEAF_AMD_L1)
			dump(leaf, 0, r);
	if (max_ext >= LEAF_AMD_CACHE_TOPO)
		dump_caches(LEAF_AMD_CACHE_TOPO);
	return 0;
}
