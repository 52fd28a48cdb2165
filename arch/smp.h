/* Other processors as code outside the environments sees them: how many are online, their
 * hardware ids, the start-up report, and work dispatch (arch/smp_jobs.h), declared here once.
 * Who starts them is the environment's business: on bare metal efi/<cpu>/smp.c (x86_64:
 * INIT-SIPI-SIPI through the local APIC; AArch64: PSCI CPU_ON; see efi/<cpu>/smp.h), hosted
 * hosted/smp.c (pinned threads); on bare metal efi/smp_table.c keeps the table and the report.
 * CPU numbers are dense over the CPUs online: 0 is the BSP. The CPU's part, <cpu/smp.h>
 * (arch/<cpu>/include/cpu/smp.h), gives the tail of struct smp_report: the fields only its
 * bring-up has. */
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

#define SMP_IDLE_SPIN_US 1000 /* an idle AP polls this long before it halts (sleeps, hosted) */

/* What the bring-up found. The CPU's part (<cpu/smp.h>) gives the fields only its bring-up has. */
#include <cpu/smp.h>

struct smp_report {
	const char *reason;     /* set when no AP was started at all: why */
	const char *how;        /* how the CPUs were started ("init-sipi", "psci", "threads"), NULL if not */
	unsigned cpus_madt;     /* enabled processors in the MADT (BSP included; AArch64: GICC entries) */
	unsigned cpus_online;   /* BSP included */
	unsigned hotplug;       /* online-capable but not enabled MADT entries: not started */
	unsigned not_started;   /* enabled entries beyond max_cpus */
	unsigned num_failed;
	struct smp_failure failed[SMP_MAX_CPUS];
	uint32_t bsp_hw_id;     /* smp_cpu_hw_id's form */
	uint64_t bringup_cycles; /* whole bring-up, first start request to the last AP online */
	uint64_t ap_max_cycles;  /* slowest AP, its start request to online */
	/* Hosted only (NULL / false on bare metal): what smp_cpu_hw_id numbers ("os_cpu": the OS CPU
	 * each thread is pinned to), and the id the instruction set gave each thread at its start
	 * (isa_id, by CPU number): under a hypervisor that passes the host's APIC ids through,
	 * CPUID's id is the host core the vCPU runs on at that moment, not a stable name of the CPU. */
	const char *id_source;
	bool isa_ids_known;
	uint32_t isa_id[SMP_MAX_CPUS];
	/* The CPU's tail: its own fields. */
	struct {
		SMP_REPORT_CPU_FIELDS
	};
};

const struct smp_report *smp_report(void);

unsigned smp_cpus_online(void);
/* The hardware id of CPU `cpu` / of the CPU calling it (BSP or AP): x86_64 the APIC id, AArch64
 * the MPIDR's affinity packed into 32 bits (Aff3 in 31:24, Aff2..Aff0 in 23:0). */
uint32_t smp_cpu_hw_id(unsigned cpu);
uint32_t smp_self_hw_id(void);

#endif
