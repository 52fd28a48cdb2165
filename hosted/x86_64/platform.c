/* hosted/platform.h on x86_64 Linux: CPUID identifies the CPU (the MSR stubs of hosted/x86_64/msr.c
 * refuse the privileged part: microcode "unreadable", the PMU absent), and the TSC is calibrated
 * against CLOCK_MONOTONIC_RAW, with the kernel's own TSC rate beside it where readable. */
#define _GNU_SOURCE
#include "hosted/platform.h"

#include <sched.h>
#include <time.h>

#include "arch/cycles.h"
#include "bench/core/summary.h"
#include "bench/facts/x86_64/platform.h"
#include "hosted/cache_sysfs.h"
#include "hosted/hosted.h"
#include "lib/emit.h"
#include "lib/fmt.h"

#define NS_PER_S 1000000000ull

const char hosted_overhead_label[] = "timer overhead (cycles)";

void hosted_platform_cpu(struct cpu_info *cpu, struct pmu_info *pmu)
{
	arch_cpu_identify(cpu);
	arch_cpu_identify_privileged(cpu); /* the MSR stubs refuse: microcode "unreadable" */
	/* the levels CPUID cannot describe, where the kernel can (the thread is pinned by now) */
	(void)hosted_caches_fill_from_sysfs(sched_getcpu(), cpu);
	platform_emit_cpu(cpu);
	platform_pmu(cpu, pmu); /* absent here: user space reads no MSRs */
	platform_emit_simd(); /* the kernel enabled the XSAVE state; this only reports it */
}

static uint64_t monotonic_raw_ns(void *ctx)
{
	struct timespec ts;

	(void)ctx;
	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * NS_PER_S + (uint64_t)ts.tv_nsec;
}

uint64_t hosted_platform_clock(const struct cpu_info *cpu, const struct config *cfg)
{
	const struct ref_clock ref = { "monotonic_raw", NS_PER_S, ~0ull, monotonic_raw_ns, 0 };
	const char *source;
	uint64_t khz, hz;
	char cs[64];

	tsc_init(cpu->rdtscp);
	khz = facts_kernel_tsc_khz(&source);
	facts_clocksource(cs, sizeof(cs));
	if (str_eq(cs, "tsc"))
		emit_msg(MSG_INFO, "the kernel's clock source is the TSC: CLOCK_MONOTONIC_RAW is the TSC "
				   "scaled by the kernel's own calibration, so this calibration reproduces "
				   "that rather than checking it against an independent clock");
	hz = platform_calibrate_tsc(cpu, &ref, 1, (unsigned)cfg->tsc_cal_windows, cfg->tsc_cal_ms);
	if (khz)
		summary_value("kernel TSC MHz", khz, 3, source);
	return hz;
}
