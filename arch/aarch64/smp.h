/* The other cores of the AArch64 build, as code outside the environments sees them (arch/smp.h):
 * how many are online, their ids, the start-up report, and work dispatch (arch/smp_jobs.h). The
 * bare-metal environment starts them (efi/aarch64/smp.c: PSCI CPU_ON, see efi/aarch64/smp.h).
 *
 * The hardware id of this interface (smp_cpu_hw_id) is, on AArch64, the MPIDR's affinity packed
 * into 32 bits (Aff3 in 31:24, Aff2..Aff0 in 23:0), so the probes (smp_hello) need no #ifdef. CPU
 * numbers are dense over the cores online: 0 is the BSP. */
#ifndef ARCH_AARCH64_SMP_H
#define ARCH_AARCH64_SMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SMP_IDLE_SPIN_US 1000     /* an idle worker polls this long before it sleeps (hosted/smp.c) */

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
	uint32_t bsp_hw_id;   /* packed MPIDR affinity of the BSP */
	uint64_t bringup_cycles; /* first CPU_ON to the last core online (generic-timer ticks) */
	uint64_t ap_max_cycles;  /* slowest core, its CPU_ON to online */
	/* Hosted only (as on x86_64, arch/x86_64/smp.h); NULL / false on bare metal. */
	const char *id_source;
	bool isa_ids_known;
	uint32_t isa_id[SMP_MAX_CPUS];
};

#endif
