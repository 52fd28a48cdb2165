/* Readable event tables, per vendor and micro-architecture family: an event is a generic name
 * (the counter-set vocabulary, bench/core/options.c: config_pmu_event_names) and the vendor's encoding —
 * event select, unit mask, counter mask, invert and edge bits — with the vendor's own name beside
 * it. Architectural events first; per-family tables add the cache and TLB miss events. pmu.c turns
 * an entry into an event-select value. */
#ifndef ARCH_X86_64_PMU_EVENTS_H
#define ARCH_X86_64_PMU_EVENTS_H

#include <stdbool.h>
#include <stdint.h>

#define PMU_EV_INV (1u << 0)  /* invert the counter-mask comparison */
#define PMU_EV_EDGE (1u << 1) /* count rising edges */
/* Only its fixed counter counts what the name says: never placed on a general-purpose counter. */
#define PMU_EV_FIXED_ONLY (1u << 2)
#define PMU_NO_FIXED (-1)
#define PMU_NO_ARCH_BIT (-1)

struct pmu_event {
	const char *name;   /* generic name used in counter sets and records */
	uint16_t event;     /* event select (AMD: 12 bits) */
	uint8_t umask;
	uint8_t cmask;      /* counter mask / threshold, 0 = count every occurrence */
	uint8_t flags;      /* PMU_EV_INV, PMU_EV_EDGE, PMU_EV_FIXED_ONLY */
	int8_t fixed;       /* Intel fixed counter counting the same, or PMU_NO_FIXED */
	int8_t arch_bit;    /* Intel CPUID 0xA EBX bit announcing it, or PMU_NO_ARCH_BIT */
	const char *vendor_name;
};

struct pmu_event_table {
	const char *name; /* "intel_arch", "intel_skylake", "amd_core", "amd_zen", "amd_zen4" */
	const struct pmu_event *events;
	unsigned n;
};

extern const struct pmu_event_table pmu_intel_arch_events, pmu_intel_skylake_events,
	pmu_amd_core_events, pmu_amd_zen_events, pmu_amd_zen4_events;

/* The family table for this CPU (NULL when none is known). */
const struct pmu_event_table *pmu_family_events(bool intel, bool amd, unsigned family, unsigned model);
/* The vendor's base table (architectural events), or NULL. */
const struct pmu_event_table *pmu_base_events(bool intel, bool amd);
const struct pmu_event *pmu_table_find(const struct pmu_event_table *t, const char *name);

#endif
