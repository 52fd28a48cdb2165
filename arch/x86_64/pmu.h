/* The performance-monitoring unit, programmed directly: discovery (Intel architectural PMU v1..v5,
 * AMD legacy / core-extension / PerfMonV2 counters, APERF/MPERF, RAPL energy), counter allocation
 * of a list of named events into passes that fit the counters, programming in kernel mode (CPL 0
 * only), start/stop through the global control where there is one, fenced reads and width-masked
 * deltas.
 *
 * Every MSR access and rdpmc goes through a struct pmu_ops, so the host unit tests plug in a
 * register model and check the exact sequence of writes; the firmware uses pmu_hw_ops (rdmsr_safe,
 * wrmsr_safe, lfence;rdpmc). The hosted build's pmu_hw_ops says the PMU is unavailable and why. */
#ifndef ARCH_X86_64_PMU_H
#define ARCH_X86_64_PMU_H

#include <stdbool.h>
#include <stdint.h>

#include "arch/cpu_info.h"
#include "arch/x86_64/pmu_events.h"

#define PMU_MAX_GP 8
#define PMU_MAX_FIXED 3     /* instructions, core cycles, reference cycles */
#define PMU_MAX_EVENTS 16   /* events in one counter set */
#define PMU_MAX_PASSES 8    /* repetitions of a measurement when the events outnumber the counters */

struct pmu_ops {
	int (*rdmsr)(void *ctx, uint32_t msr, uint64_t *value); /* 0 = ok (msr.h's MSR_OK) */
	int (*wrmsr)(void *ctx, uint32_t msr, uint64_t value);
	uint64_t (*rdpmc)(void *ctx, uint32_t index);          /* fenced */
	void *ctx;
	const char *unavailable; /* non-NULL: this build cannot use the PMU at all, and why */
};

/* The machine's operations (pmu_hw.c; pmu_hosted.c in the Linux build). */
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
};

struct pmu_info {
	bool present;
	const char *reason;
	enum pmu_kind kind;
	unsigned version;       /* Intel architectural version; AMD 1 legacy, 2 core-ext, 3 PerfMonV2 */
	unsigned num_gp, gp_width;
	unsigned num_fixed, fixed_width;
	uint32_t fixed_avail;   /* bit j: fixed counter j usable */
	uint32_t arch_events;   /* Intel: bit i = architectural event i available */
	unsigned arch_events_len;
	bool full_width;        /* Intel: counters written through IA32_A_PMCx */
	bool global_ctrl;       /* Intel v2+, AMD PerfMonV2 */
	bool status_reset;      /* Intel v4+: GLOBAL_STATUS_RESET / _SET */
	uint32_t ctl_base, ctr_base, msr_stride; /* AMD event-select / counter MSRs */
	const struct pmu_event_table *base, *family;
	bool aperf_mperf;
	bool rapl;
	unsigned rapl_esu;      /* energy unit = 1 / 2^esu J */
	uint32_t rapl_pkg_msr, rapl_dram_msr, rapl_core_msr; /* 0 = domain absent */
	const struct pmu_ops *ops;
};

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

struct pmu_group {
	unsigned n;
	struct pmu_counter c[PMU_MAX_EVENTS];
};

struct pmu_plan {
	unsigned npasses;
	struct pmu_group pass[PMU_MAX_PASSES];
	unsigned nrefused;
	const char *refused[PMU_MAX_EVENTS];
	const char *refused_why[PMU_MAX_EVENTS];
};

void pmu_read_cpuid(const struct cpu_info *ci, struct pmu_cpuid *id);
/* Decide presence and geometry; on a machine that claims a PMU, check that a counter really counts
 * (an emulator may accept the MSRs and never count). */
void pmu_discover(struct pmu_info *pi, const struct cpu_info *ci, const struct pmu_cpuid *id,
		  const struct pmu_ops *ops);

/* Event-select values (without the enable bit): CPL 0 only, per the vendor's bit layout. */
uint64_t pmu_intel_evtsel(const struct pmu_event *ev);
uint64_t pmu_amd_evtsel(const struct pmu_event *ev);

/* Allocate `names` into passes. Names this CPU cannot count go to refused[] with a reason;
 * free-running MSR events (aperf, mperf, energy_*) ride in pass 0. Returns the passes used. */
unsigned pmu_plan_events(const struct pmu_info *pi, const char *const *names, unsigned n,
			 struct pmu_plan *plan);

/* Program a group stopped and zeroed; start/stop counting; read every counter (raw values). */
void pmu_program(const struct pmu_info *pi, const struct pmu_group *g);
void pmu_start(const struct pmu_info *pi, const struct pmu_group *g);
/* Returns the overflow bits the global status showed (0 without a global status), and clears them. */
uint64_t pmu_stop(const struct pmu_info *pi, const struct pmu_group *g);
void pmu_read(const struct pmu_info *pi, const struct pmu_group *g, uint64_t *out);
/* Disable the group's event selects (leave the PMU as found: nothing counting). */
void pmu_release(const struct pmu_info *pi, const struct pmu_group *g);

/* end - start within the counter width: one wrap between the reads is undone. */
static inline uint64_t pmu_delta(uint64_t start, uint64_t end, uint64_t mask)
{
	return (end - start) & mask;
}

const char *pmu_kind_name(enum pmu_kind k);

#endif
