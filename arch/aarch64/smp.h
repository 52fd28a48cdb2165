/* The other cores of the AArch64 build, as code outside the environments sees them (arch/smp.h):
 * how many are online, their ids, the start-up report, and work dispatch (arch/smp_jobs.h). The
 * bare-metal environment starts them (efi/aarch64/smp.c: PSCI CPU_ON, see efi/aarch64/smp.h).
 *
 * The "APIC id" of this interface is, on AArch64, the MPIDR's affinity packed into 32 bits (Aff3
 * in 31:24, Aff2..Aff0 in 23:0), so the probes (smp_hello) need no #ifdef. CPU numbers are dense
 * over the cores online: 0 is the BSP. */
#ifndef ARCH_AARCH64_SMP_H
#define ARCH_AARCH64_SMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arch/smp_jobs.h"

#define SMP_MAX_CPUS 64 /* CPUs we drive, BSP included */

struct smp_failure {
	uint32_t apic_id;   /* packed MPIDR affinity */
	unsigned stage;     /* AP_STAGE_* its stub reached (0: never seen) */
	const char *reason; /* a PSCI error ("denied", "already_on", "invalid_parameters", ...),
			     * "timeout" or "id_mismatch" */
};

struct smp_report {
	const char *reason;     /* set when no core was started at all: why */
	const char *how;        /* "psci", NULL if nothing was tried */
	const char *conduit;    /* "hvc" or "smc" */
	uint32_t psci_version;  /* PSCI_VERSION: major << 16 | minor */
	unsigned cpus_madt;     /* enabled GICC entries (BSP included) */
	unsigned cpus_online;   /* BSP included */
	unsigned hotplug;       /* online-capable but not enabled entries: not started */
	unsigned not_started;   /* enabled entries beyond max_cpus */
	unsigned num_failed;
	struct smp_failure failed[SMP_MAX_CPUS];
	uint32_t bsp_apic_id;   /* packed MPIDR affinity of the BSP */
	uint64_t bringup_cycles; /* first CPU_ON to the last core online (generic-timer ticks) */
	uint64_t ap_max_cycles;  /* slowest core, its CPU_ON to online */
};

const struct smp_report *smp_report(void);

unsigned smp_cpus_online(void);
/* Packed MPIDR affinity of CPU `cpu` / of the CPU calling it. */
uint32_t smp_cpu_apic_id(unsigned cpu);
uint32_t smp_self_apic_id(void);

/* smp_run, smp_wait, smp_cpu_status, smp_cpu_fault, smp_run_all: arch/smp_jobs.h. */

#endif
