/* The AArch64 identification registers the platform records report raw (readable at EL1 and EL2
 * without trapping). Decoding is left to the reader of the record, except the fields named. */
#ifndef ARCH_AARCH64_ID_REGS_H
#define ARCH_AARCH64_ID_REGS_H

#include <stdint.h>

struct aarch64_id_regs {
	uint64_t midr, revidr, mpidr;
	unsigned current_el;
	uint64_t id_aa64pfr0, id_aa64dfr0, id_aa64isar0, id_aa64mmfr0, id_aa64mmfr2;
	uint64_t ctr, clidr, cntfrq;
	/* Read through sysreg_safe.h (newer ID registers, by encoding); 0 when not read. */
	uint64_t id_aa64pfr1, id_aa64isar2, id_aa64zfr0;
	unsigned pmu_version; /* ID_AA64DFR0_EL1.PMUVer (0: none, 0xF: IMPLEMENTATION DEFINED) */
};

void aarch64_read_id_regs(struct aarch64_id_regs *r);

#endif
