/* The interrupt probes in the hosted (Linux user-space) build: user space cannot take or mask
 * interrupts, so each one is a skip with that reason. The noise probe (bench/noise.c) is not
 * here: it runs hosted too. */
#include "bench/probe.h"
#include "lib/emit.h"

#define HOSTED_REASON "hosted build: user space cannot take or mask interrupts"

#define HOSTED_SKIP(probe_name, description)                                   \
	static enum probe_status probe_name##_run(struct probe_env *env)      \
	{                                                                      \
		(void)env;                                                     \
		emit_skip(#probe_name, HOSTED_REASON);                         \
		return PROBE_SKIPPED;                                          \
	}                                                                      \
	const struct probe_desc probe_##probe_name = {                         \
		.name = #probe_name, .what = description, .run = probe_name##_run, \
	};

HOSTED_SKIP(irq_latency, "interrupt latency (bare metal only)")
HOSTED_SKIP(irq_exception, "exception round trip (bare metal only)")
HOSTED_SKIP(irq_displace, "handler cost by displacement (bare metal only)")
HOSTED_SKIP(irq_footprint, "cache footprint of an interrupt (bare metal only)")

/* The suite skips fault test probes itself where faults are not caught; the entry must exist. */
static enum probe_status fault_irq_run(struct probe_env *env)
{
	(void)env;
	emit_skip("fault_irq", HOSTED_REASON);
	return PROBE_SKIPPED;
}

const struct probe_desc probe_fault_irq = {
	.name = "fault_irq", .what = "test: fault inside an interrupt probe (bare metal only)",
	.run = fault_irq_run, .expects_fault = true,
};
