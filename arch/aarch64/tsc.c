/* Generic-timer read methods and their back-to-back sample loops (see tsc.h). */
#include "arch/aarch64/tsc.h"

static const char *const method_names[TSC_NUM_METHODS] = {
	"cntvct", "isb_cntvct", "begin_end",
};

const char *tsc_method_name(enum tsc_method m)
{
	return m < TSC_NUM_METHODS ? method_names[m] : "unknown";
}

const char *tsc_method_unavailable(enum tsc_method m)
{
	(void)m;
	return 0; /* the generic timer is architectural: every method exists */
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
	case TSC_CNTVCT:
		B2B_LOOP(tsc_rdtsc, tsc_rdtsc);
		break;
	case TSC_ISB_CNTVCT:
		B2B_LOOP(tsc_isb_cntvct, tsc_isb_cntvct);
		break;
	case TSC_BEGIN_END:
		B2B_LOOP(tsc_begin, tsc_end);
		break;
	default:
		break;
	}
}
