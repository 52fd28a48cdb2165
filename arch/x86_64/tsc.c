/* Cycle-counter read methods and their back-to-back sample loops (see tsc.h). */
#include "arch/x86_64/tsc.h"

static bool tsc_have_rdtscp;

void tsc_init(bool have_rdtscp)
{
	tsc_have_rdtscp = have_rdtscp;
}

uint64_t tsc_end(void)
{
	uint64_t t;

	if (!tsc_have_rdtscp)
		return tsc_begin();
	t = tsc_rdtscp();
	__asm__ volatile("lfence" ::: "memory");
	return t;
}

static const char *const method_names[TSC_NUM_METHODS] = {
	"rdtsc", "lfence_rdtsc", "rdtscp", "cpuid_rdtsc", "begin_end",
};

const char *tsc_method_name(enum tsc_method m)
{
	return m < TSC_NUM_METHODS ? method_names[m] : "unknown";
}

const char *tsc_method_unavailable(enum tsc_method m)
{
	if (m == TSC_RDTSCP && !tsc_have_rdtscp)
		return "CPU lacks rdtscp (CPUID 0x80000001 EDX bit 27)";
	return 0;
}

/* One loop per method so each read is inlined and the loop adds nothing between the two reads. */
#define B2B_LOOP(read_first, read_second)                          \
	for (size_t i = 0; i < n; i++) {                           \
		uint64_t t0 = read_first();                        \
		uint64_t t1 = read_second();                       \
		out[i] = t1 - t0;                                  \
	}

void tsc_b2b_samples(enum tsc_method m, uint64_t *out, size_t n)
{
	switch (m) {
	case TSC_RDTSC:
		B2B_LOOP(tsc_rdtsc, tsc_rdtsc);
		break;
	case TSC_LFENCE_RDTSC:
		B2B_LOOP(tsc_lfence_rdtsc, tsc_lfence_rdtsc);
		break;
	case TSC_RDTSCP:
		B2B_LOOP(tsc_rdtscp, tsc_rdtscp);
		break;
	case TSC_CPUID_RDTSC:
		B2B_LOOP(tsc_cpuid_rdtsc, tsc_cpuid_rdtsc);
		break;
	case TSC_BEGIN_END:
		B2B_LOOP(tsc_begin, tsc_end);
		break;
	default:
		break;
	}
}
