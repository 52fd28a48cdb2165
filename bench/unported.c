/* The probes the AArch64 build does not have yet. Each keeps its name (so probes= lists and the
 * harness work unchanged) and, when run, emits a `skip` saying what it still needs — never a
 * number. The build links this file instead of the probes' own sources, which use x86 interfaces
 * (AVX kernels, the APIC, INIT-SIPI start-up). The unported fault test probes stay marked
 * expects_fault: the suite ends them without the fault they provoke if they run, so they are only
 * ever run to report their skip. */
#include "bench/probe.h"
#include "lib/emit.h"

/* No probe is unported today: irq_displace counts its handler work on the PMU cycle counter
 * (arch/work_clock.h) and irq_footprint plans its miss counters on PMUv3 (bench/fp_pmu.c), so
 * both are built from their own sources. The macro below stays for the next probe that needs an
 * x86 interface: UNPORTED(ident, "name", "not ported to aarch64 yet: why", expects_fault). */

/* One probe_desc and its run function per unported probe. */
#define UNPORTED(ident, probe_name, why, faults)                                       \
	static enum probe_status run_##ident(struct probe_env *env)                   \
	{                                                                              \
		(void)env;                                                     \
		emit_skip(probe_name, why);                                    \
		return PROBE_SKIPPED;                                          \
	}                                                                              \
	const struct probe_desc probe_##ident = {                                      \
		.name = probe_name, .what = why, .run = run_##ident, .expects_fault = faults, .unprofiled = why, \
	};
