/* What the two bare-metal insn_count implementations share (arch/priv/x86_64/insn_count_hw.c,
 * arch/aarch64/insn_count.c; implemented in arch/priv/insn_count_pmu.c): the one-event plan and
 * the reads, delta and close on it. Not for the hosted build (perf_event, hosted/insn_count.c). */
#ifndef ARCH_INSN_COUNT_INTERNAL_H
#define ARCH_INSN_COUNT_INTERNAL_H

#include "arch/insn_count.h"

/* Reset *ic (source as given, no fd) and plan the PMU's `instructions` event alone on one
 * counter: ic->g is that counter's group. False, with *why set, when the PMU is absent or the
 * event cannot be given a counter. Programming and starting it is the CPU's part. */
bool insn_count_plan(struct insn_count *ic, const struct pmu_info *pi, struct pmu_plan *plan, const char *source,
		     const char **why);

#endif
