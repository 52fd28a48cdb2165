/* The trap interface of the AArch64 build (arch/traps.h). Not ported yet: no exception vectors of
 * our own (VBAR_EL1), so nothing is caught — traps_installed() is false, the suite runs with
 * env.traps = false and skips the fault test probes with that reason, and an exception in a probe
 * ends in the firmware's (no longer valid) handlers. The types are the ones bench/suite.c reports
 * with; the field names are the x86 record fields (rip = ELR, cr2 = FAR, error = ESR) until the
 * vectors exist and the `fault` record gets AArch64 names. */
#ifndef ARCH_AARCH64_TRAPS_H
#define ARCH_AARCH64_TRAPS_H

#include <stdbool.h>
#include <stdint.h>

struct trap_info {
	unsigned vector;
	const char *name;
	uint64_t error, rip, cr2, rsp;
	bool recoverable;
};

typedef void (*trap_report_fn)(const struct trap_info *info);
typedef void (*trap_fatal_fn)(const struct trap_info *info) __attribute__((noreturn));

/* Callee-saved state of a recovery point (x19-x30, sp): unused until the vectors exist. */
struct fault_jmp {
	uint64_t x[12], sp;
};

void traps_init(trap_report_fn report, trap_fatal_fn fatal);
bool traps_installed(void);
int fault_try(struct fault_jmp *j) __attribute__((returns_twice));
void fault_arm(struct fault_jmp *j);
void fault_disarm(void);
const char *trap_vector_name(unsigned vector);

#endif
