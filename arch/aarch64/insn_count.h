/* Instructions retired by this CPU around a piece of code (pmu_check's counter; the interface of
 * arch/x86_64/insn_count.h): the PMUv3 event INST_RETIRED on an event counter, programmed
 * directly (insn_count.c). Under QEMU TCG the event is implemented (PMCEID0_EL0 bit 8) only with
 * -icount, and then counts exactly. The cost of a read is part of every delta: the caller
 * measures it with an empty region. */
#ifndef ARCH_AARCH64_INSN_COUNT_H
#define ARCH_AARCH64_INSN_COUNT_H

#include <stdbool.h>
#include <stdint.h>

#include "arch/aarch64/pmu.h"

struct insn_count {
	const char *source; /* "pmu_event" */
	const struct pmu_info *pi;
	struct pmu_plan *plan;
	const struct pmu_group *g;
	int fd;
};

bool insn_count_open(struct insn_count *ic, const struct pmu_info *pi, struct pmu_plan *plan, const char **why);
uint64_t insn_count_read(const struct insn_count *ic);
uint64_t insn_count_delta(const struct insn_count *ic, uint64_t start, uint64_t end);
void insn_count_close(struct insn_count *ic);

#endif
