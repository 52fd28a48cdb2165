/* The TSC-deadline errata table (see tsc_deadline_errata.h). The rows, their steppings and
 * revisions are Linux's deadline_match (arch/x86/kernel/apic/apic.c); the model numbers are those
 * of its asm/intel-family.h. */
#include "arch/x86_64/tsc_deadline_errata.h"

#define INTEL_FAMILY_6 6
#define STEP_ANY_FIRST 0x0
#define STEP_ANY_LAST 0xF /* the stepping is CPUID.1:EAX[3:0] */

#define MODEL_HASWELL 0x3C
#define MODEL_HASWELL_X 0x3F
#define MODEL_HASWELL_L 0x45
#define MODEL_HASWELL_G 0x46
#define MODEL_BROADWELL 0x3D
#define MODEL_BROADWELL_G 0x47
#define MODEL_BROADWELL_X 0x4F
#define MODEL_BROADWELL_D 0x56
#define MODEL_SKYLAKE_L 0x4E
#define MODEL_SKYLAKE 0x5E
#define MODEL_SKYLAKE_X 0x55
#define MODEL_KABYLAKE_L 0x8E
#define MODEL_KABYLAKE 0x9E

#define ANY_STEP STEP_ANY_FIRST, STEP_ANY_LAST
#define STEP(s) (s), (s)

static const struct tsc_deadline_erratum errata[] = {
	{ "HASWELL_X (EP)", MODEL_HASWELL_X, STEP(0x2), 0x3a },
	{ "HASWELL_X (EX)", MODEL_HASWELL_X, STEP(0x4), 0x0f },
	{ "BROADWELL_X", MODEL_BROADWELL_X, ANY_STEP, 0x0b000020 },
	{ "BROADWELL_D", MODEL_BROADWELL_D, STEP(0x2), 0x00000011 },
	{ "BROADWELL_D", MODEL_BROADWELL_D, STEP(0x3), 0x0700000e },
	{ "BROADWELL_D", MODEL_BROADWELL_D, STEP(0x4), 0x0f00000c },
	{ "BROADWELL_D", MODEL_BROADWELL_D, STEP(0x5), 0x0e000003 },
	/* later Skylake-X steppings (Cascade Lake, Cooper Lake) are not affected */
	{ "SKYLAKE_X", MODEL_SKYLAKE_X, STEP(0x3), 0x01000136 },
	{ "SKYLAKE_X", MODEL_SKYLAKE_X, STEP(0x4), 0x02000014 },
	{ "HASWELL", MODEL_HASWELL, ANY_STEP, 0x22 },
	{ "HASWELL_L", MODEL_HASWELL_L, ANY_STEP, 0x20 },
	{ "HASWELL_G", MODEL_HASWELL_G, ANY_STEP, 0x17 },
	{ "BROADWELL", MODEL_BROADWELL, ANY_STEP, 0x25 },
	{ "BROADWELL_G", MODEL_BROADWELL_G, ANY_STEP, 0x17 },
	{ "SKYLAKE_L", MODEL_SKYLAKE_L, ANY_STEP, 0xb2 },
	{ "SKYLAKE", MODEL_SKYLAKE, ANY_STEP, 0xb2 },
	{ "KABYLAKE_L", MODEL_KABYLAKE_L, ANY_STEP, 0x52 },
	{ "KABYLAKE", MODEL_KABYLAKE, ANY_STEP, 0x52 },
};

const struct tsc_deadline_erratum *tsc_deadline_erratum_for(const struct cpu_info *ci)
{
	/* Under a hypervisor the timer is the hypervisor's (and the revision it shows may be made
	 * up): Linux trusts it there. */
	if (!ci->is_intel || ci->hypervisor || ci->family != INTEL_FAMILY_6)
		return 0;
	for (unsigned i = 0; i < sizeof(errata) / sizeof(errata[0]); i++)
		if (errata[i].model == ci->model && ci->stepping >= errata[i].step_first &&
		    ci->stepping <= errata[i].step_last)
			return &errata[i];
	return 0;
}

bool tsc_deadline_erratum_applies(const struct cpu_info *ci, const struct tsc_deadline_erratum *e)
{
	return e && (!ci->ucode_valid || ci->ucode < e->min_ucode);
}
