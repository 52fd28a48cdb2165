/* Per-CPU settings that make counter and TSC readings mean what the probes assume (see pmu.h):
 *
 * - AMD: lfence is dispatch-serialising only with DE_CFG[1] set (AMD, "Software techniques for
 *   managing speculation on AMD processors"); cycles_begin/cycles_end and the fenced rdpmc rely on it.
 *   Read DE_CFG, set the bit when clear, read back to see whether it stuck (a hypervisor may drop
 *   the write). Families 0Fh and 11h have no DE_CFG: lfence is dispatch-serialising there.
 *   Intel: lfence is architecturally dispatch-serialising (SDM vol. 2 LFENCE).
 * - Intel: where IA32_PERF_CAPABILITIES[12] offers it, IA32_DEBUGCTL.FREEZE_WHILE_SMM stops the
 *   counters while an SMI handler runs, so its instructions and cycles stay out of a sample.
 * Every access goes through the fault-safe ops: a refusal is recorded, never fatal. */
#include "arch/pmu.h"

#include "arch/x86_64/cpu.h"
#include "arch/x86_64/msr.h"
#include "arch/x86_64/pmu_internal.h"
#include "arch/x86_64/pmu_regs.h"

/* Set `bit` in `msr` unless already set; "already", "set", "refused" or "unknown". */
static const char *set_bit_checked(const struct pmu_ops *o, uint32_t msr, uint64_t bit)
{
	uint64_t v = 0;

	if (o->rdmsr(o->ctx, msr, &v) != MSR_OK)
		return "unknown";
	if (v & bit)
		return "already";
	if (o->wrmsr(o->ctx, msr, v | bit) != MSR_OK)
		return "refused";
	if (o->rdmsr(o->ctx, msr, &v) != MSR_OK || !(v & bit))
		return "refused";
	return "set";
}

static const char *lfence_state(const struct pmu_info *pi, const struct cpu_info *ci)
{
	const char *s;

	if (pi->ops->unavailable)
		return "unknown";
	if (ci->is_intel)
		return "yes";
	if (!ci->is_amd)
		return "unknown";
	if (ci->family == AMD_FAMILY_K8 || ci->family == AMD_FAMILY_11H)
		return "yes";
	s = set_bit_checked(pi->ops, MSR_AMD_DE_CFG, DE_CFG_LFENCE_SERIALIZE);
	if (pmu_str_same(s, "already"))
		return "yes";
	if (pmu_str_same(s, "refused"))
		return "no";
	return s; /* "set" or "unknown" */
}

static const char *freeze_state(const struct pmu_info *pi, const struct cpu_info *ci, const struct pmu_cpuid *id)
{
	uint64_t caps = 0;

	if (pi->ops->unavailable)
		return "unknown";
	if (!ci->is_intel || !(id->leaf1_ecx & CPUID1_ECX_PDCM))
		return "not_offered";
	if (pi->ops->rdmsr(pi->ops->ctx, MSR_IA32_PERF_CAPABILITIES, &caps) != MSR_OK ||
	    !(caps & PERF_CAP_FREEZE_WHILE_SMM))
		return "not_offered";
	return set_bit_checked(pi->ops, MSR_IA32_DEBUGCTL, DEBUGCTL_FREEZE_WHILE_SMM);
}

void pmu_discover_quirks(struct pmu_info *pi, const struct cpu_info *ci, const struct pmu_cpuid *id)
{
	pi->lfence_serializing = lfence_state(pi, ci);
	pi->freeze_while_smm = freeze_state(pi, ci, id);
}

const char *pmu_core_type(const struct pmu_info *pi)
{
	return pi ? pmu_core_type_name(pi->core_type) : 0;
}

/* Read only on a hybrid part (the description has a core type): leaf 1AH of the calling CPU. */
const char *pmu_cpu_core_type(const struct pmu_info *pi)
{
	uint32_t r[4];

	if (!pi || pi->core_type == PMU_CORE_NONE)
		return 0;
	if (pi->ops && pi->ops->cpuid)
		pi->ops->cpuid(pi->ops->ctx, PMU_LEAF_HYBRID, 0, r);
	else
		cpu_cpuid(PMU_LEAF_HYBRID, 0, &r[0], &r[1], &r[2], &r[3]);
	return pmu_core_type_name(pmu_hybrid_core_type(r[0]));
}

void pmu_cpu_prepare(const struct pmu_info *pi)
{
	if (!pi || !pi->ops || pi->ops->unavailable)
		return;
	/* Only what discovery set on the boot CPU: the other CPUs get the same state. */
	if (pi->lfence_serializing && pmu_str_same(pi->lfence_serializing, "set"))
		(void)set_bit_checked(pi->ops, MSR_AMD_DE_CFG, DE_CFG_LFENCE_SERIALIZE);
	if (pi->freeze_while_smm && (pmu_str_same(pi->freeze_while_smm, "set") || pmu_str_same(pi->freeze_while_smm, "already")))
		(void)set_bit_checked(pi->ops, MSR_IA32_DEBUGCTL, DEBUGCTL_FREEZE_WHILE_SMM);
}
