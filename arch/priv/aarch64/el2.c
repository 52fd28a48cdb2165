/* Leaving EL2 on the boot core (see arch/aarch64/el2.h): read what the plan needs at EL2, apply
 * it, give EL1 the firmware's translation regime and eret to EL1 on the same stack. */
#include "arch/aarch64/el2.h"

#include "arch/aarch64/cpu.h"
#include "arch/aarch64/walk.h"

#define EL1 1
#define EL2 2
#define PMUVER_SHIFT 8 /* ID_AA64DFR0_EL1.PMUVer */
#define PMUVER_MASK 0xFull
#define PMUVER_IMPDEF 0xF
#define PFR0_GIC_SHIFT 24
#define PFR0_SVE_SHIFT 32
#define FIELD_MASK 0xFull

extern const char a64_vectors_el2[];
/* el2_drop.S: load EL1's translation regime from m and eret to EL1h, same stack, same return. */
void a64_el2_to_el1(const struct el1_mmu *m);

static struct el2_report rep;

/* Our code as EL1 will see it through the inherited tables: both ends of the image's text (the
 * drop's return lands in it, everything after runs from it). 0, or why EL1 could not run it. */
static const char *code_executable_at_el1(const struct el1_mmu *m)
{
	extern const char _text[], _etext[];
	const uint64_t ends[] = { (uint64_t)(uintptr_t)_text, (uint64_t)(uintptr_t)_etext - 1 };
	struct a64_walk w;

	for (unsigned i = 0; i < sizeof(ends) / sizeof(ends[0]); i++) {
		const char *why;

		if (!a64_walk(m->ttbr0, m->tcr, ends[i], a64_desc_read_identity, 0, &w) || !w.mapped)
			return "our code is not mapped in the firmware's EL2 tables as EL1 would walk them";
		why = el2_desc_el1_exec(w.desc);
		if (why)
			return why;
	}
	return 0;
}

static void read_ids(struct el2_ids *ids)
{
	unsigned pmuver;

	ids->pfr0 = sysreg_read(id_aa64pfr0_el1);
	ids->pfr1 = sysreg_read(id_aa64pfr1_el1);
	ids->dfr0 = sysreg_read(id_aa64dfr0_el1);
	ids->isar1 = sysreg_read(id_aa64isar1_el1);
	ids->isar2 = sysreg_read(S3_0_C0_C6_2); /* ID_AA64ISAR2_EL1 */
	ids->mmfr0 = sysreg_read(id_aa64mmfr0_el1);
	ids->mmfr1 = sysreg_read(id_aa64mmfr1_el1);
	ids->hcr = sysreg_read(hcr_el2);
	pmuver = (unsigned)((ids->dfr0 >> PMUVER_SHIFT) & PMUVER_MASK);
	ids->pmcr = pmuver && pmuver != PMUVER_IMPDEF ? sysreg_read(pmcr_el0) : 0;
	ids->icc_sre = ((ids->pfr0 >> PFR0_GIC_SHIFT) & FIELD_MASK) ? sysreg_read(S3_4_C12_C9_5) : 0;
}

bool el2_leave(const char *stay)
{
	struct el2_ids ids;
	struct el1_mmu mmu;

	rep.entry_el = cpu_current_el();
	if (rep.entry_el != EL2)
		return false;
	if (stay) {
		rep.why = stay;
		return false;
	}
	read_ids(&ids);
	rep.why = el2_plan(&ids, &rep.cfg);
	if (rep.why)
		return false;
	rep.cfg.vbar = (uint64_t)(uintptr_t)a64_vectors_el2; /* a trap to EL2 is reported, not lost */
	rep.hpmn = (unsigned)(rep.cfg.mdcr & 0x1F);
	el2_el1_mmu(sysreg_read(mair_el2), sysreg_read(tcr_el2), sysreg_read(ttbr0_el2),
		    sysreg_read(sctlr_el2), (ids.pfr0 >> PFR0_SVE_SHIFT) & FIELD_MASK, &mmu);
	rep.why = code_executable_at_el1(&mmu);
	if (rep.why)
		return false;
	a64_el2_apply(&rep.cfg);
	a64_el2_to_el1(&mmu);
	rep.dropped = cpu_current_el() == EL1;
	if (!rep.dropped)
		rep.why = "the eret to EL1 did not arrive at EL1";
	return rep.dropped;
}

const struct el2_report *el2_report(void)
{
	return &rep;
}

const struct el2_config *el2_config(void)
{
	return &rep.cfg;
}
