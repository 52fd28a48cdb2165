/* Free-running counters read with rdmsr: APERF/MPERF (CPUID 6 ECX[0]) and the RAPL energy status
 * registers (Intel MSR_RAPL_POWER_UNIT; AMD CPUID 0x80000007 EDX[14]). They are not part of the
 * core PMU, so they are discovered on their own, whether or not a core PMU exists (see pmu.h).
 *
 * RAPL follows what Linux's arch/x86/events/rapl.c and probe.c (perf_msr_probe) do:
 * - a domain whose energy counter reads 0 is not implemented (MSR 0x619 on most client parts, and
 *   an emulator that reads every unknown MSR as 0): it is refused, never reported as 0 J;
 * - on the server models Linux gives RAPL_UNIT_QUIRK_INTEL_HSW, the DRAM domain counts in fixed
 *   2^-16 J units whatever the unit register says (real parts report an ESU of 14 there). */
#include "arch/pmu.h"

#include "arch/x86_64/msr.h"
#include "arch/x86_64/pmu_regs.h"

#define INTEL_FAMILY_6 6u

/* Family 6 models with the fixed DRAM unit: Linux rapl.c's model_hsx and model_knl entries. */
static const uint8_t dram_fixed_unit_models[] = {
	0x3F, /* Haswell-X */
	0x4F, /* Broadwell-X */
	0x56, /* Broadwell-D */
	0x55, /* Skylake-X: Skylake-SP, Cascade Lake, Cooper Lake */
	0x6A, /* Ice Lake-X (Ice Lake-SP) */
	0x6C, /* Ice Lake-D */
	0x57, /* Xeon Phi Knights Landing */
	0x85, /* Xeon Phi Knights Mill */
};

bool pmu_rapl_dram_fixed_unit(unsigned family, unsigned model)
{
	if (family != INTEL_FAMILY_6)
		return false;
	for (unsigned i = 0; i < sizeof(dram_fixed_unit_models); i++)
		if (dram_fixed_unit_models[i] == model)
			return true;
	return false;
}

/* The domain's MSR when it reads without a fault and not 0; else 0 with *why set. */
static uint32_t rapl_domain(const struct pmu_info *pi, uint32_t msr, const char *fault_why,
			    const char *zero_why, const char **why)
{
	uint64_t v = 0;

	if (pi->ops->rdmsr(pi->ops->ctx, msr, &v) != MSR_OK) {
		*why = fault_why;
		return 0;
	}
	if (!(v & ((1ull << RAPL_ENERGY_WIDTH) - 1))) {
		*why = zero_why;
		return 0;
	}
	*why = 0;
	return msr;
}

static bool msr_readable(const struct pmu_info *pi, uint32_t msr)
{
	uint64_t v;

	return pi->ops->rdmsr(pi->ops->ctx, msr, &v) == MSR_OK;
}

void pmu_discover_freerun(struct pmu_info *pi, const struct cpu_info *ci, const struct pmu_cpuid *id)
{
	uint64_t unit = 0;
	uint32_t unit_msr = 0;

	pi->aperf_why = "no APERF/MPERF (CPUID 6 ECX[0])";
	if (id->leaf6_ecx & CPUID6_ECX_APERFMPERF) {
		pi->aperf_mperf = msr_readable(pi, MSR_IA32_APERF) && msr_readable(pi, MSR_IA32_MPERF);
		pi->aperf_why = pi->aperf_mperf ? 0 : "CPUID 6 announces APERF/MPERF but reading them faults";
	}
	pi->rapl_pkg_why = pi->rapl_dram_why = pi->rapl_core_why = "no RAPL on this CPU";
	if (ci->is_intel)
		unit_msr = MSR_RAPL_POWER_UNIT;
	else if (ci->is_amd && (id->ext7_edx & EXTPWR_EDX_RAPL))
		unit_msr = MSR_AMD_RAPL_POWER_UNIT;
	/* An all-zero unit register is not a valid value (an emulator's blanket 0): absent. */
	if (!unit_msr || pi->ops->rdmsr(pi->ops->ctx, unit_msr, &unit) != MSR_OK || !unit)
		return;
	pi->rapl = true;
	pi->rapl_esu = (unsigned)((unit >> RAPL_UNIT_ESU_SHIFT) & RAPL_UNIT_ESU_MASK);
	pi->rapl_dram_esu = pi->rapl_esu;
	if (ci->is_intel) {
		pi->rapl_pkg_msr = rapl_domain(pi, MSR_PKG_ENERGY_STATUS, "RAPL package energy MSR faults",
					       "RAPL package energy counter reads 0 (domain not implemented)",
					       &pi->rapl_pkg_why);
		pi->rapl_dram_msr = rapl_domain(pi, MSR_DRAM_ENERGY_STATUS, "no RAPL DRAM energy counter on this CPU",
						"RAPL DRAM energy counter reads 0 (domain not implemented)",
						&pi->rapl_dram_why);
		pi->rapl_core_why = "the core-energy domain is counted on AMD only here";
		if (pmu_rapl_dram_fixed_unit(ci->family, ci->model))
			pi->rapl_dram_esu = RAPL_DRAM_FIXED_ESU;
	} else {
		pi->rapl_pkg_msr = rapl_domain(pi, MSR_AMD_PKG_ENERGY_STATUS, "RAPL package energy MSR faults",
					       "RAPL package energy counter reads 0 (domain not implemented)",
					       &pi->rapl_pkg_why);
		pi->rapl_core_msr = rapl_domain(pi, MSR_AMD_CORE_ENERGY_STATUS, "no RAPL core energy counter on this CPU",
						"RAPL core energy counter reads 0 (domain not implemented)",
						&pi->rapl_core_why);
		pi->rapl_dram_why = "no RAPL DRAM energy counter on this CPU";
	}
}
