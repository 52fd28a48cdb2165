/* Test probes that fault on purpose, to prove the exception path: each must end in a `fault`
 * record, and the suite must go on to the next probe. Not part of the default suite.
 * (Unknown MSRs do not fault under QEMU TCG, so they cannot be the provocation.) */
#include "arch/traps.h"
#include "bench/core/probe.h"

static enum probe_status fault_ud2_run(struct probe_env *env)
{
	(void)env;
	arch_provoke_undefined();
	return PROBE_FAILED; /* reached only if no #UD was raised */
}

static enum probe_status fault_gp_run(struct probe_env *env)
{
	(void)env;
	arch_provoke_bad_address();
	return PROBE_FAILED;
}

const struct probe_desc probe_fault_ud2 = {
	.name = "fault_ud2",
	.what = "executes ud2: expects #UD",
	.run = fault_ud2_run,
	.expects_fault = true,
};

const struct probe_desc probe_fault_gp = {
	.name = "fault_gp",
	.what = "loads from a non-canonical address: expects #GP",
	.run = fault_gp_run,
	.expects_fault = true,
};
