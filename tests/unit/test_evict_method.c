/* cachefill's eviction method. Whole-cache operations are trusted only on bare metal without a
 * hypervisor and only where they reach every level: Linux KVM makes WBINVD a no-op for a guest
 * without non-coherent DMA (arch/x86/kvm/x86.c, kvm_emulate_wbinvd_noskip) and honours only the
 * first of a guest's set/way operations (arch/arm64/kvm/mmu.c, kvm_set_way_flush); the Arm ARM
 * (D7.5.9) says set/way maintenance does not reach system caches. */
#include "bench/probes/mem/evict_method.h"
#include "tests/unit/test.h"

static void choose(void)
{
	/* x86 bare metal: WBINVD reaches every level */
	CHECK_EQ_U64(evict_method_choose(true, false, true), EVICT_FLUSH_ALL);
	/* x86 under a hypervisor: WBINVD may do nothing */
	CHECK_EQ_U64(evict_method_choose(true, true, true), EVICT_BY_ADDRESS);
	/* AArch64, with or without a hypervisor: set/way is never trusted */
	CHECK_EQ_U64(evict_method_choose(true, false, false), EVICT_BY_ADDRESS);
	CHECK_EQ_U64(evict_method_choose(true, true, false), EVICT_BY_ADDRESS);
	/* hosted: no cache maintenance at all, a walk */
	CHECK_EQ_U64(evict_method_choose(false, true, true), EVICT_WALK);
	CHECK_EQ_U64(evict_method_choose(false, false, false), EVICT_WALK);
}

static void check_status(void)
{
	const char *why;

	CHECK_STR(evict_check_status(200, 100, false, 0, &why), "pass");
	CHECK(why == 0);
	CHECK_STR(evict_check_status(100, 100, false, 0, &why), "fail"); /* equal: not colder */
	CHECK_STR(evict_check_status(90, 100, false, 0, &why), "fail");
	/* the last level: a warm fill that is no faster cannot judge the eviction */
	CHECK_STR(evict_check_status(90, 100, true, 0, &why), "skip");
	CHECK(why != 0);
	CHECK_STR(evict_check_status(200, 100, true, 0, &why), "pass");
	/* an emulator: nothing to judge, whatever the numbers */
	CHECK_STR(evict_check_status(200, 100, false, "emulated", &why), "skip");
	CHECK_STR(why, "emulated");
}

#define MIB (1024ull * 1024)

/* The hosted walk: twice the largest cache, capped to 2/3 of the arena's free bytes; a level is
 * measured only where the walk covers it twice. A bhyve guest on EPYC Turin: a 508 MiB "L3" (had it
 * not been judged implausible) in a 640 MiB arena: the walk is capped, the L1D (48 KiB) and L2
 * (1 MiB) are still evicted, the 508 MiB level is not (a skip, no longer the whole probe). */
static void walk_size(void)
{
	bool capped;
	uint64_t walk;

	walk = evict_walk_size(32 * MIB, 640 * MIB, &capped);
	CHECK_EQ_U64(walk, 64 * MIB);
	CHECK(!capped);
	walk = evict_walk_size(508 * MIB, 639 * MIB, &capped);
	CHECK(capped);
	CHECK(walk <= 639 * MIB / 3 * 2 && walk % EVICT_WALK_ALIGN == 0 && walk > 400 * MIB);
	CHECK(walk + walk / 2 <= 639 * MIB); /* the largest level it covers fits beside it */
	CHECK(evict_walk_covers(walk, 48 * 1024));
	CHECK(evict_walk_covers(walk, 1 * MIB));
	CHECK(!evict_walk_covers(walk, 508 * MIB));
	/* exactly twice covers, a line more does not; nothing free: no walk */
	CHECK(evict_walk_covers(2 * MIB, 1 * MIB));
	CHECK(!evict_walk_covers(2 * MIB, 1 * MIB + 64));
	CHECK_EQ_U64(evict_walk_size(1 * MIB, 0, &capped), 0);
	CHECK(capped);
	CHECK(!evict_walk_covers(0, 64));
}

TEST_SUITE(evict_method) = { { "choose", choose }, { "check_status", check_status }, { "walk_size", walk_size }, { 0, 0 } };
