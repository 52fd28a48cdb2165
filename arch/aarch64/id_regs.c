/* Reads the identification registers of id_regs.h. */
#include "arch/aarch64/id_regs.h"

#include "arch/aarch64/cpu.h"
#include "arch/aarch64/sysreg_safe.h"

#define DFR0_PMUVER_SHIFT 8
#define ID_FIELD_MASK 0xFu

void aarch64_read_id_regs(struct aarch64_id_regs *r)
{
	r->midr = sysreg_read(midr_el1);
	r->revidr = sysreg_read(revidr_el1);
	r->mpidr = sysreg_read(mpidr_el1);
	r->current_el = cpu_current_el();
	r->id_aa64pfr0 = sysreg_read(id_aa64pfr0_el1);
	r->id_aa64dfr0 = sysreg_read(id_aa64dfr0_el1);
	r->id_aa64isar0 = sysreg_read(id_aa64isar0_el1);
	r->id_aa64mmfr0 = sysreg_read(id_aa64mmfr0_el1);
	r->id_aa64mmfr2 = sysreg_read(id_aa64mmfr2_el1);
	r->ctr = sysreg_read(ctr_el0);
	/* CLIDR_EL1 is not in the ID space Linux emulates for EL0 (the hosted build): 0 there. */
	r->clidr = r->current_el == A64_EL0 ? 0 : sysreg_read(clidr_el1);
	r->cntfrq = sysreg_read(cntfrq_el0);
	(void)sysreg_read_safe(A64_SR_ID_AA64PFR1_EL1, &r->id_aa64pfr1);
	(void)sysreg_read_safe(A64_SR_ID_AA64ISAR2_EL1, &r->id_aa64isar2);
	(void)sysreg_read_safe(A64_SR_ID_AA64ZFR0_EL1, &r->id_aa64zfr0);
	r->pmu_version = (unsigned)(r->id_aa64dfr0 >> DFR0_PMUVER_SHIFT) & ID_FIELD_MASK;
}
