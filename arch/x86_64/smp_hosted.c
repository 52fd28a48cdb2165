/* The SMP interface in the hosted build: one CPU (the one the process is pinned to). Multi-core
 * runs under Linux would need threads pinned per core; until then probes see one CPU and say so. */
#include "arch/smp.h"

static const struct smp_report hosted_report = {
	.reason = "hosted build: multi-core runs are not implemented (one pinned CPU)",
	.cpus_madt = 1,
	.cpus_online = 1,
};

const struct smp_report *smp_report(void)
{
	return &hosted_report;
}

unsigned smp_cpus_online(void)
{
	return 1;
}

bool smp_run(unsigned cpu, void (*fn)(void *), void *arg)
{
	if (cpu != 0)
		return false;
	fn(arg);
	return true;
}

bool smp_wait(unsigned cpu, uint64_t timeout_cycles)
{
	(void)timeout_cycles;
	return cpu == 0;
}

bool smp_run_all(unsigned n, void (*fn)(void *), void *const args[], uint64_t timeout_cycles)
{
	(void)timeout_cycles;
	if (n != 1)
		return false;
	fn(args[0]);
	return true;
}

void smp_start_none(const char *reason)
{
	(void)reason;
}

uint32_t smp_cpu_apic_id(unsigned cpu)
{
	(void)cpu;
	return 0;
}

uint32_t smp_self_apic_id(void)
{
	return 0;
}

enum smp_cpu_status smp_cpu_status(unsigned cpu)
{
	return cpu == 0 ? SMP_CPU_IDLE : SMP_CPU_NONE;
}

bool smp_cpu_fault(unsigned cpu, struct trap_info *out)
{
	(void)cpu;
	(void)out;
	return false;
}

uint64_t smp_release_tsc(void)
{
	return 0;
}
