/* Whether an AArch64 CPU is QEMU TCG's (see emulator.h). */
#include "bench/facts/aarch64/emulator.h"

#define MIDR_IMPL_SHIFT 24
#define MIDR_IMPL_MASK 0xFFu
#define MIDR_IMPL_SOFTWARE 0x00u

const char *a64_emulator_reason(uint64_t midr, bool qemu_board, bool pmu_usable, uint64_t pmceid0, bool l1_data,
				const char **sign)
{
	uint64_t cache_events = (1ull << A64_PMU_EVENT_L1D_CACHE_REFILL) | (1ull << A64_PMU_EVENT_L1D_CACHE);

	if (((midr >> MIDR_IMPL_SHIFT) & MIDR_IMPL_MASK) == MIDR_IMPL_SOFTWARE) {
		*sign = "midr_software";
		return "MIDR_EL1 implementer 0x00 (reserved for software by the Arm ARM: QEMU TCG's max CPU)";
	}
	/* Both events absent, not one: a PMU missing one of them is odd, not proof of an emulator. */
	if (qemu_board && pmu_usable && l1_data && !(pmceid0 & cache_events)) {
		*sign = "qemu_board_pmu";
		return "QEMU TCG: QEMU's board, and a PMUv3 without the L1D_CACHE and L1D_CACHE_REFILL events "
		       "the Arm ARM requires of a core with a level 1 data cache (the core's ID registers over "
		       "QEMU's PMU)";
	}
	*sign = "none";
	return 0;
}
