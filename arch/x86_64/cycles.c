/* Cycle-counter read methods and their back-to-back sample loops (arch/cycles.h; the TSC). */
/* OPT_FAST: -O2 (Makefile): timed window or what runs inside one. */
#include "arch/cycles.h"
#include "arch/cycles_b2b.h"

static bool tsc_have_rdtscp;

void tsc_init(bool have_rdtscp)
{
	tsc_have_rdtscp = have_rdtscp;
}

uint64_t cycles_end(void)
{
	uint64_t t;

	if (!tsc_have_rdtscp)
		return cycles_begin();
	t = tsc_rdtscp();
	__asm__ volatile("lfence" ::: "memory");
	return t;
}

static const char *const method_names[CYCLES_NUM_METHODS] = {
	"rdtsc", "lfence_rdtsc", "rdtscp", "cpuid_rdtsc", "begin_end",
};

const char *cycles_method_name(enum cycles_method m)
{
	return m < CYCLES_NUM_METHODS ? method_names[m] : "unknown";
}

const char *cycles_method_unavailable(enum cycles_method m)
{
	if (m == CYCLES_RDTSCP && !tsc_have_rdtscp)
		return "CPU lacks rdtscp (CPUID 0x80000001 EDX bit 27)";
	return 0;
}

/* Every x86 method reads the TSC: the samples are cycles. */
const char *cycles_method_unit(enum cycles_method m)
{
	(void)m;
	return "cycles";
}

void cycles_b2b_samples(enum cycles_method m, uint64_t *out, size_t n)
{
	switch (m) {
	case CYCLES_RDTSC:
		B2B_LOOP(cycles_read, cycles_read);
		break;
	case CYCLES_LFENCE_RDTSC:
		B2B_LOOP(tsc_lfence_rdtsc, tsc_lfence_rdtsc);
		break;
	case CYCLES_RDTSCP:
		B2B_LOOP(tsc_rdtscp, tsc_rdtscp);
		break;
	case CYCLES_CPUID_RDTSC:
		B2B_LOOP(tsc_cpuid_rdtsc, tsc_cpuid_rdtsc);
		break;
	case CYCLES_BEGIN_END:
		B2B_LOOP(cycles_begin, cycles_end);
		break;
	default:
		break;
	}
}
