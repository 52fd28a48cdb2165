/* Other processors as code outside the environments sees them: how many are online, their
 * hardware ids, the start-up report, and work dispatch (arch/smp_jobs.h), declared here once.
 * Who starts them is the environment's business: on bare metal efi/<cpu>/smp.c (x86_64:
 * INIT-SIPI-SIPI through the local APIC; AArch64: PSCI CPU_ON; see efi/<cpu>/smp.h), hosted
 * hosted/smp.c (pinned threads). CPU numbers are dense over the CPUs online: 0 is the BSP. The
 * CPU's part, arch/<cpu>/smp.h, included at the end, gives struct smp_report (what the bring-up
 * found: the fields differ). */
#ifndef ARCH_SMP_H
#define ARCH_SMP_H

#include <stdbool.h>
#include <stdint.h>

#include "arch/smp_jobs.h" /* smp_run, smp_wait, smp_cpu_status, smp_cpu_fault, smp_run_all */

#define SMP_MAX_CPUS 64 /* CPUs we drive, BSP included */

/* An AP that did not come up. */
struct smp_failure {
	uint32_t hw_id;     /* its hardware id (smp_cpu_hw_id) */
	unsigned stage;     /* AP_STAGE_* its start-up code reached (0: never seen) */
	const char *reason; /* x86_64: "timeout", "ipi_timeout", "ipi_error", "unreachable",
			     * "id_mismatch", "x2apic_switch" (the AP could not follow the BSP into x2APIC
			     * mode); AArch64: a PSCI error ("denied", "already_on", "invalid_parameters",
			     * ...), "timeout" or "id_mismatch"; hosted: why its thread did not start */
};

struct smp_report;

const struct smp_report *smp_report(void);

unsigned smp_cpus_online(void);
/* The hardware id of CPU `cpu` / of the CPU calling it (BSP or AP): x86_64 the APIC id, AArch64
 * the MPIDR's affinity packed into 32 bits (Aff3 in 31:24, Aff2..Aff0 in 23:0). */
uint32_t smp_cpu_hw_id(unsigned cpu);
uint32_t smp_self_hw_id(void);

#if defined(__x86_64__)
#include "arch/x86_64/smp.h"
#elif defined(__aarch64__)
#include "arch/aarch64/smp.h"
#else
#error "no SMP support for this architecture yet"
#endif

#endif
