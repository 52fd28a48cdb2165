/* Is this AArch64 CPU an emulator's (QEMU TCG), whose caches are not modelled and whose timing is
 * no core's? A pure decision over facts the firmware has already read (unit-tested on the host:
 * tests/unit/aarch64/test_emulator.c); bench/facts/aarch64/platform.c emits it as plat
 * kind=emulator. Two signs, either enough:
 *  - MIDR_EL1.Implementer 0x00, reserved for software use by the Arm ARM: no silicon has it, TCG's
 *    `max` CPU does;
 *  - a named core under TCG (-cpu cortex-a53 ... neoverse-v1) has the real core's ID registers, so
 *    the board and the PMU give it away together: the board is QEMU's (qemu_board: its ACPI OEM
 *    ID "BOCHS "/"BXPC" or SMBIOS maker "QEMU", drivers/fw/aarch64/platform_id.h) and its usable
 *    PMUv3 (pmu_usable: discovery read it without a trap) implements neither L1D_CACHE_REFILL
 *    (0x03) nor L1D_CACHE (0x04) in PMCEID0_EL0 while the CPU has a level 1 data or unified cache
 *    (l1_data). Both are among the events the Arm ARM (DDI 0487) requires of PMUv3 (Linux's arm64
 *    perf_event.c lists the same set as "Required events"), and the PMU event table of every core
 *    QEMU names lists them (Cortex-A53 TRM DDI 0500 table 12-28, Cortex-A57 DDI 0488 table 11-24,
 *    Cortex-A76 TRM C2.3, ...); QEMU's TCG PMU (target/arm pm_events, 7.2 to 10) implements
 *    SW_INCR, CPU_CYCLES, INST_RETIRED with -icount, and STALL_FRONTEND/BACKEND/STALL (never
 *    counting) from PMUv3p1/p4: no cache event (PMCEID0_EL0 0x20001 on QEMU 7.2's cortex-a53).
 * Under KVM the guest's PMCEID is the host core's (cache events present) and a KVM guest without a
 * PMU shows no sign: both are judged as having real caches, which they have. A TCG named core
 * without a PMU (-cpu cortex-a53,pmu=off) shows no sign either (a known limit). */
#ifndef BENCH_FACTS_AARCH64_EMULATOR_H
#define BENCH_FACTS_AARCH64_EMULATOR_H

#include <stdbool.h>
#include <stdint.h>

#define A64_PMU_EVENT_L1D_CACHE_REFILL 0x03u
#define A64_PMU_EVENT_L1D_CACHE 0x04u

/* Returns the reason (for records), or NULL: real, or no sign to tell. *sign names which:
 * "midr_software", "qemu_board_pmu" or "none". */
const char *a64_emulator_reason(uint64_t midr, bool qemu_board, bool pmu_usable, uint64_t pmceid0, bool l1_data,
				const char **sign);

#endif
