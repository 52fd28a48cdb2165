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

uint64_t psci_call3(bool use_hvc, uint32_t function, uint64_t a1, uint64_t a2, uint64_t a3)
{
	register uint64_t x0 __asm__("x0") = function;
	register uint64_t x1 __asm__("x1") = a1;
	register uint64_t x2 __asm__("x2") = a2;
	register uint64_t x3 __asm__("x3") = a3;

	if (use_hvc)
		__asm__ volatile("hvc #0"
				 : "+r"(x0), "+r"(x1), "+r"(x2), "+r"(x3)
				 :
				 : "x4", "x5", "x6", "x7", "x8", "x9", "x10", "x11", "x12", "x13", "x14", "x15",
				   "x16", "x17", "memory");
	else
		__asm__ volatile("smc #0"
				 : "+r"(x0), "+r"(x1), "+r"(x2), "+r"(x3)
				 :
				 : "x4", "x5", "x6", "x7", "x8", "x9", "x10", "x11", "x12", "x13", "x14", "x15",
				   "x16", "x17", "memory");
	return x0;
}

const char *psci_error_name(int32_t code)
{
	switch (code) {
	case PSCI_SUCCESS: return "success";
	case PSCI_NOT_SUPPORTED: return "not_supported";
	case PSCI_INVALID_PARAMETERS: return "invalid_parameters";
	case PSCI_DENIED: return "denied";
	case PSCI_ALREADY_ON: return "already_on";
	case PSCI_ON_PENDING: return "on_pending";
	case PSCI_INTERNAL_FAILURE: return "internal_failure";
	case PSCI_INVALID_ADDRESS: return "invalid_address";
	default: return "error";
	}
}
