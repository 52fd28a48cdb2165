/* The PMU operations of the bare-metal build: MSRs through the fault-safe accessors, counters
 * through the fault-safe rdpmc (a hypervisor may intercept it) fenced on both sides (lfence waits for earlier instructions to complete before the
 * read, and keeps later ones from starting before it), as the SDM advises for rdpmc. */
/* OPT_FAST: -O2 (Makefile): the profiler's sampling path and the counters it reads. */
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/msr.h"
#include "arch/pmu.h"

static int hw_rdmsr(void *ctx, uint32_t msr, uint64_t *value)
{
	(void)ctx;
	return rdmsr_safe(msr, value);
}

static int hw_wrmsr(void *ctx, uint32_t msr, uint64_t value)
{
	(void)ctx;
	return wrmsr_safe(msr, value);
}

static int hw_rdpmc(void *ctx, uint32_t index, uint64_t *value)
{
	int st;

	(void)ctx;
	cpu_lfence();
	st = rdpmc_safe(index, value);
	cpu_lfence();
	return st;
}

const struct pmu_ops pmu_hw_ops = { hw_rdmsr, hw_wrmsr, hw_rdpmc, 0, 0, 0 };
