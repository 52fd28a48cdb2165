/* Instructions retired by this CPU, read around a piece of code: the consistency check of the
 * counters (pmu_check) needs nothing more, and needs it in every build. Implemented per CPU:
 * x86_64 bare metal, the PMU's `instructions` event programmed directly
 * (arch/priv/x86_64/insn_count_hw.c); AArch64, the PMUv3 event INST_RETIRED on an event counter
 * (arch/aarch64/insn_count.c; under QEMU TCG implemented, PMCEID0_EL0 bit 8, only with -icount,
 * and then exact); hosted, a perf_event counter of user-mode instructions (hosted/insn_count.c),
 * so the check also runs under Linux on any machine whose kernel sees a PMU. Either way the cost
 * of a read is part of every delta: the caller measures it with an empty region. */
#ifndef ARCH_INSN_COUNT_H
#define ARCH_INSN_COUNT_H

#include <stdbool.h>
#include <stdint.h>

#include "arch/pmu.h"

struct insn_count {
	const char *source; /* "pmu_fixed", "pmu_gp" (x86_64), "pmu_event" (AArch64) or "perf_event" */
	const struct pmu_info *pi;
	struct pmu_plan *plan;
	const struct pmu_group *g;
	int fd;
};

/* Start counting. pi: the discovered PMU (bare metal; ignored hosted), plan: scratch storage for
 * the allocation. False, with *why set, when instructions cannot be counted here. */
bool insn_count_open(struct insn_count *ic, const struct pmu_info *pi, struct pmu_plan *plan, const char **why);
/* The running count (raw: differences of two reads are what mean something). */
uint64_t insn_count_read(const struct insn_count *ic);
/* The difference of two reads, within the counter's width. */
uint64_t insn_count_delta(const struct insn_count *ic, uint64_t start, uint64_t end);
void insn_count_close(struct insn_count *ic);

#endif
