/* The other processors of the x86_64 build, as code outside the environments sees them
 * (arch/smp.h): how many are online, their APIC ids, the start-up report, and work dispatch
 * (arch/smp_jobs.h). Who starts them is the environment's business: on bare metal
 * efi/x86_64/smp.c (INIT-SIPI-SIPI through the local APIC, see efi/x86_64/smp.h), hosted
 * hosted/smp.c (pinned threads). CPU numbers are dense over the CPUs online: 0 is the BSP. */
#ifndef ARCH_X86_64_SMP_H
#define ARCH_X86_64_SMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SMP_IDLE_SPIN_US 1000     /* an idle AP polls this long before it halts */

struct smp_report {
	const char *reason;     /* set when no AP was started at all: why */
	const char *how;        /* how the CPUs were started ("init-sipi", "threads"), NULL if not */
	unsigned cpus_madt;     /* enabled processors in the MADT (BSP included) */
	unsigned cpus_online;   /* BSP included */
	unsigned hotplug;       /* online-capable but not enabled MADT entries: not started */
	unsigned not_started;   /* enabled entries beyond max_cpus */
	unsigned num_failed;
	struct smp_failure failed[SMP_MAX_CPUS];
	uint32_t bsp_hw_id;
	bool x2apic;            /* the APIC is in x2APIC mode (MSR access) */
	const char *lapic_mode_how; /* "firmware" or "switched" (option apic_mode, on the BSP) */
	unsigned aps_switched;  /* online APs that switched themselves to x2APIC mode */
	uint64_t lapic_base;
	uint64_t lowpage;
	bool pml4_copy;         /* the BSP's CR3 was above 4 GiB: the trampoline used a copy */
	uint64_t bringup_cycles;     /* whole bring-up, first INIT to last AP online */
	uint64_t ap_max_cycles;      /* slowest AP, its first STARTUP to online */
	/* Hosted only (NULL / false on bare metal): what smp_cpu_hw_id numbers ("os_cpu": the OS CPU
	 * each thread is pinned to), and the id CPUID gave each thread at its start (isa_id, by CPU
	 * number): under a hypervisor that passes the host's APIC ids through, CPUID's id is the
	 * host core the vCPU runs on at that moment, not a stable name of the CPU. */
	const char *id_source;
	bool isa_ids_known;
	uint32_t isa_id[SMP_MAX_CPUS];
};

#endif
