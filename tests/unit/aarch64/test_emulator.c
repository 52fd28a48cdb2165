/* The AArch64 emulator decision (bench/facts/aarch64/emulator.c): QEMU TCG's max by its MIDR, a
 * named core by QEMU's board and QEMU's PMU together; real silicon and KVM guests never. */
#include <stdint.h>

#include "bench/facts/aarch64/emulator.h"
#include "tests/unit/test.h"

/* PMCEID0_EL0 values: QEMU 7.2 TCG's for every named core (SW_INCR and CPU_CYCLES, read in a
 * cortex-a53 boot's plat kind=pmu), with -icount (INST_RETIRED too), and a real core's: the
 * Cortex-A53 TRM's (DDI 0500) table 12-28 events 0x00-0x16 (0x0E not listed there). */
#define PMCEID0_QEMU_TCG 0x20001ull
#define PMCEID0_QEMU_ICOUNT 0x20101ull
#define PMCEID0_REAL_CORE 0x7FBFFFull
#define MIDR_A53 0x410fd034ull
#define MIDR_QEMU_MAX 0x000f0510ull

static void emulator_decision(void)
{
	const char *sign;

	/* TCG's max: MIDR implementer 0x00 alone, whatever else is known */
	CHECK(a64_emulator_reason(MIDR_QEMU_MAX, false, false, 0, false, &sign) != 0);
	CHECK_STR(sign, "midr_software");
	/* a named core under TCG: QEMU's board, a usable PMU without the cache events, an L1 data cache */
	CHECK(a64_emulator_reason(MIDR_A53, true, true, PMCEID0_QEMU_TCG, true, &sign) != 0);
	CHECK_STR(sign, "qemu_board_pmu");
	CHECK(a64_emulator_reason(MIDR_A53, true, true, PMCEID0_QEMU_ICOUNT, true, &sign) != 0);
	/* each fact alone is not enough: */
	CHECK(a64_emulator_reason(MIDR_A53, true, true, PMCEID0_REAL_CORE, true, &sign) == 0); /* KVM on QEMU's board */
	CHECK_STR(sign, "none");
	CHECK(a64_emulator_reason(MIDR_A53, true, false, 0, true, &sign) == 0);  /* no PMU (pmu=off, a hidden PMU) */
	CHECK(a64_emulator_reason(MIDR_A53, false, true, PMCEID0_QEMU_TCG, true, &sign) == 0); /* not QEMU's board */
	CHECK(a64_emulator_reason(MIDR_A53, true, true, PMCEID0_QEMU_TCG, false, &sign) == 0); /* no L1 data cache */
	/* one of the two events is enough to be a PMU that sees a cache */
	CHECK(a64_emulator_reason(MIDR_A53, true, true, PMCEID0_QEMU_TCG | 1u << 3, true, &sign) == 0);
	CHECK(a64_emulator_reason(MIDR_A53, true, true, PMCEID0_QEMU_TCG | 1u << 4, true, &sign) == 0);
	/* real silicon off QEMU's board: nothing changes */
	CHECK(a64_emulator_reason(MIDR_A53, false, true, PMCEID0_REAL_CORE, true, &sign) == 0);
	CHECK(a64_emulator_reason(MIDR_A53, false, false, 0, false, &sign) == 0);
}

TEST_SUITE(a64_emulator) = {
	{ "emulator_decision", emulator_decision },
	{ 0, 0 },
};
