/* The PMU operations of the hosted (Linux user-space) build: counters need ring 0 (the MSRs), so
 * the PMU reports absent with this reason and nothing is ever read through it. Per-sample counter
 * sets are not mapped onto perf_event (its multiplexing and kernel-side reads are not the direct
 * programming this project measures); only pmu_check's instruction count uses perf_event
 * (hosted/insn_count.c). Replaces arch/priv/x86_64/pmu_hw.c there (mk/hosted.mk). */
#include "arch/x86_64/msr.h"
#include "arch/pmu.h"

static int no_rdmsr(void *ctx, uint32_t msr, uint64_t *value)
{
	(void)ctx;
	(void)msr;
	*value = 0;
	return MSR_NO_TRAPS;
}

static int no_wrmsr(void *ctx, uint32_t msr, uint64_t value)
{
	(void)ctx;
	(void)msr;
	(void)value;
	return MSR_NO_TRAPS;
}

static int no_rdpmc(void *ctx, uint32_t index, uint64_t *value)
{
	(void)ctx;
	(void)index;
	*value = 0;
	return MSR_NO_TRAPS;
}

const struct pmu_ops pmu_hw_ops = { no_rdmsr, no_wrmsr, no_rdpmc, 0,
				    "hosted build: counters need ring 0 (perf_event serves only pmu_check)", 0 };
