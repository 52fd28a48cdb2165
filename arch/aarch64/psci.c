/* PSCI calls (see psci.h). SMCCC: function id in w0, result in x0; x1-x17 may be clobbered by
 * SMCCC 1.0 implementations, so they are all declared clobbered. */
#include "arch/aarch64/psci.h"

#define PSCI_CLOBBERS                                                                              \
	"x1", "x2", "x3", "x4", "x5", "x6", "x7", "x8", "x9", "x10", "x11", "x12", "x13", "x14", "x15", \
		"x16", "x17", "memory"

uint64_t psci_call(bool use_hvc, uint32_t function)
{
	register uint64_t x0 __asm__("x0") = function;

	if (use_hvc)
		__asm__ volatile("hvc #0" : "+r"(x0) : : PSCI_CLOBBERS);
	else
		__asm__ volatile("smc #0" : "+r"(x0) : : PSCI_CLOBBERS);
	return x0;
}
