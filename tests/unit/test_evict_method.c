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

TEST_SUITE(evict_method) = { { "choose", choose }, { "check_status", check_status }, { 0, 0 } };
