/* The performance-monitoring unit, programmed directly: discovery (Intel architectural PMU v1..v5,
 * AMD legacy / core-extension / PerfMonV2 counters, APERF/MPERF, RAPL energy), counter allocation
 * of a list of named events into passes that fit the counters, programming in kernel mode (CPL 0
 * only), start/stop through the global control where there is one, fenced reads and width-masked
 * deltas.
 *
 * Every MSR access and rdpmc goes through a struct pmu_ops, so the host unit tests plug in a
 * register model and check the exact sequence of writes; the firmware uses pmu_hw_ops (rdmsr_safe,
 * wrmsr_safe, lfence;rdpmc_safe). The hosted build's pmu_hw_ops says the PMU is unavailable and why.
 *
 * Faults are results, not crashes: a refused write or a faulting read (a hypervisor may intercept
 * wrmsr or rdpmc) makes the counters it concerns refused events with the reason (pmu_program,
 * pmu_start and pmu_read return which), never counters with made-up deltas.
 * APERF/MPERF and RAPL are MSRs of their own (pmu_freerun.c): discovered whether or not a core PMU
 * exists. */
/* The x86_64 part of arch/pmu.h (included there, before the shared declarations): pmu_info,
 * pmu_counter, discovery and the x86-only extras. */
#ifndef ARCH_X86_64_PMU_H
#define ARCH_X86_64_PMU_H

#include <stdbool.h>
#include <stdint.h>

#include "arch/cpu_info.h"
#include "arch/x86_64/pmu_constraints.h"
#include "arch/x86_64/pmu_events.h"

#define PMU_MAX_GP 8
#define PMU_MAX_FIXED 3     /* instructions, core cycles, reference cycles */

struct pmu_ops {
	int (*rdmsr)(void *ctx, uint32_t msr, uint64_t *value); /* 0 = ok (msr.h's MSR_OK) */
	int (*wrmsr)(void *ctx, uint32_t msr, uint64_t value);
	int (*rdpmc)(void *ctx, uint32_t index, uint64_t *value); /* fenced; 0 = ok, else it faulted */
	void *ctx;
	const char *unavailable; /* non-NULL: this build cannot use the PMU at all, and why */
	/* CPUID of the calling CPU (NULL: the instruction itself; the unit tests model a hybrid part). */
	void (*cpuid)(void *ctx, uint32_t leaf, uint32_t sub, uint32_t out[4]);
};

/* The machine's operations (pmu_hw.c; hosted/x86_64/pmu_ops.c in the Linux build). */
extern const struct pmu_ops pmu_hw_ops;

enum pmu_kind { PMU_NONE, PMU_INTEL, PMU_AMD_LEGACY, PMU_AMD_CORE_EXT, PMU_AMD_V2 };

/* CPUID words discovery needs (pmu_read_cpuid fills it; tests fill it by hand). 0 = leaf absent. */
struct pmu_cpuid {
	uint32_t leaf1_ecx;
	uint32_t leaf6_ecx;
	uint32_t leaf_a[4];   /* eax, ebx, ecx, edx */
	uint32_t ext1_ecx;
	uint32_t ext7_edx;
	uint32_t ext22[2];    /* eax, ebx */
	/* Intel hybrid parts only (0 elsewhere): leaf 7 EDX, leaf 1AH EAX, and leaf 23H subleaf 0
	 * EAX, subleaf 1 EAX and EBX, read on the CPU that discovers. */
	uint32_t leaf7_edx;
	uint32_t leaf1a_eax;
	uint32_t leaf23[3];
};

/* struct pmu_info's CPU tail (arch/pmu_info.h, included right after: this part is complete on its
 * own, as the host's unit tests include it by path). */
#define PMU_INFO_CPU_FIELDS \
	enum pmu_kind kind; \
	unsigned version;       /* Intel architectural version; AMD 1 legacy, 2 core-ext, 3 PerfMonV2 */ \
	unsigned num_gp, gp_width; \
	unsigned num_fixed, fixed_width; \
	uint32_t fixed_avail;   /* bit j: fixed counter j usable */ \
	uint32_t arch_events;   /* Intel: bit i = architectural event i available */ \
	unsigned arch_events_len; \
	bool full_width;        /* Intel: counters written through IA32_A_PMCx */ \
	bool global_ctrl;       /* Intel v2+, AMD PerfMonV2 */ \
	bool status_reset;      /* Intel v4+: GLOBAL_STATUS_RESET / _SET */ \
	uint32_t ctl_base, ctr_base, msr_stride; /* AMD event-select / counter MSRs */ \
	/* General-purpose counters kept for overflow sampling (bit i = counter i; the caller sets \
	 * 1u << pmu_pmi.counter after pmu_pmi_setup, clears it after pmu_pmi_stop): counter sets \
	 * are planned on the other counters, and the global-control writes of \
	 * pmu_program/start/stop/release keep their enable bits. */ \
	uint32_t gp_reserved; \
	const struct pmu_event_table *base, *family; \
	/* Intel hybrid parts: the type of the core that discovered (and runs the counter sets with) \
	 * this description; its counters and family table are that core type's. PMU_CORE_NONE \
	 * elsewhere. */ \
	enum pmu_core_type core_type; \
	/* Which general-purpose counters an event may use on this model (pmu_constraints.h); NULL: \
	 * every event may use every counter. */ \
	const struct pmu_constraint_table *constraints; \
	uint32_t fixed_dead;    /* fixed counters CPUID offers that did not count (dropped) */ \
	bool aperf_mperf; \
	const char *aperf_why;  /* why not, when absent */ \
	bool rapl; \
	unsigned rapl_esu;      /* energy unit = 1 / 2^esu J (MSR_RAPL_POWER_UNIT) */ \
	unsigned rapl_dram_esu; /* the DRAM domain's unit: 16 on the server parts Linux lists, else rapl_esu */ \
	uint32_t rapl_pkg_msr, rapl_dram_msr, rapl_core_msr; /* 0 = domain absent */ \
	const char *rapl_pkg_why, *rapl_dram_why, *rapl_core_why; /* why a domain is absent */ \
	/* Per-CPU settings made at discovery (pmu_quirks.c) and repeated by pmu_cpu_prepare: \
	 * lfence_serializing: "yes" (architectural / already on), "set" (we set DE_CFG[1]), \
	 * "no" (the write was refused or did not stick), "unknown" (DE_CFG unreadable); \
	 * freeze_while_smm: "set", "already", "not_offered" (PERF_CAPABILITIES[12] clear or no \
	 * PDCM, or not Intel), "refused" (the DEBUGCTL write faulted or did not stick), "unknown". */ \
	const char *lfence_serializing; \
	/* One rdpmc of counter 0 at discovery, whatever the PMU: "ok", "faults" (#GP/#UD caught: an \
	 * emulator or a hypervisor intercepting it) or "unknown" (not attempted). */ \
	const char *rdpmc; \
	const struct pmu_ops *ops;

#include "arch/pmu_info.h"

enum pmu_ctr_kind { PMU_CTR_GP, PMU_CTR_FIXED, PMU_CTR_MSR };

struct pmu_counter {
	const char *name;
	const struct pmu_event *ev; /* NULL for free-running MSR events */
	enum pmu_ctr_kind kind;
	unsigned idx;               /* GP or fixed counter index */
	uint32_t msr;               /* PMU_CTR_MSR: the register read */
	uint64_t mask;              /* counter width */
	uint64_t config;            /* GP: event-select value without the enable bit */
};

#include "arch/pmu_sets.h" /* struct pmu_group, pmu_plan, pmu_faults over this pmu_counter */

void pmu_read_cpuid(const struct cpu_info *ci, struct pmu_cpuid *id);
/* Decide presence and geometry; on a machine that claims a PMU, check that a counter really counts
 * (an emulator may accept the MSRs and never count). */
void pmu_discover(struct pmu_info *pi, const struct cpu_info *ci, const struct pmu_cpuid *id,
		  const struct pmu_ops *ops);

/* Parts of discovery (pmu_freerun.c, pmu_quirks.c; pmu_discover calls them): the free-running
 * MSR counters, and the per-CPU settings. */
void pmu_discover_freerun(struct pmu_info *pi, const struct cpu_info *ci, const struct pmu_cpuid *id);
void pmu_discover_quirks(struct pmu_info *pi, const struct cpu_info *ci, const struct pmu_cpuid *id);
/* True on the models whose DRAM energy counts in fixed 2^-16 J units (Linux's HSW quirk list). */
bool pmu_rapl_dram_fixed_unit(unsigned family, unsigned model);

/* Event-select values (without the enable bit): CPL 0 only, per the vendor's bit layout. */
uint64_t pmu_intel_evtsel(const struct pmu_event *ev);
uint64_t pmu_amd_evtsel(const struct pmu_event *ev);

const char *pmu_kind_name(enum pmu_kind k);

/* The vendor's name of the event a counter counts (pmu_events.c), or NULL (a free-running MSR
 * counter): the `vendor_event` field of records; AArch64 gives its Arm ARM event name. */
static inline const char *pmu_counter_vendor_name(const struct pmu_counter *c)
{
	return c->ev ? c->ev->vendor_name : 0;
}

#endif
