/* Readable event tables, per vendor and micro-architecture family: an event is a generic name
 * (the counter-set vocabulary, bench/core/options.c: config_pmu_event_names) and the vendor's encoding —
 * event select, unit mask, counter mask, invert and edge bits — with the vendor's own name beside
 * it. Architectural events first; per-family tables add the cache and TLB miss events. pmu.c turns
 * an entry into an event-select value.
 *
 * The tables and the models they apply to live in one data file, data/pmu_events_x86.json, with
 * their sources; scripts/gen_pmu_events.py makes C of it at build time, which only pmu_events.c
 * includes (and the unit tests: build/gen/pmu_events_tables.h declares each table as
 * pmu_<name>_events). */
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

/* A table: n events, events[rows[i]] (the generated tables: rows several tables share are
 * stored once, in one array), or events[i] when rows is NULL (a test's own table). */
struct pmu_event_table {
	const char *name; /* the data file's table name: "intel_arch", "amd_zen4", ... */
	const struct pmu_event *events;
	const uint8_t *rows;
	unsigned n;
};

/* The core type of an Intel hybrid part's core (CPUID 1AH EAX[31:24]), as a table's match names
 * it: PMU_CORE_ANY in a match row applies to every core; on a CPU, PMU_CORE_NONE is a part that
 * is not hybrid (CPUID 7 EDX[15] clear) and PMU_CORE_UNKNOWN a hybrid core of another type. */
enum pmu_core_type { PMU_CORE_NONE = 0, PMU_CORE_ANY = 0, PMU_CORE_E, PMU_CORE_P, PMU_CORE_UNKNOWN };

enum pmu_vendor { PMU_VENDOR_INTEL = 1, PMU_VENDOR_AMD };

/* A generated model-match row: the family table for these models (and core type). */
struct pmu_event_match {
	uint8_t vendor, family, model_lo, model_hi, core_type, table;
};

/* The family table for this CPU and core type (NULL when none is known). */
const struct pmu_event_table *pmu_family_events(bool intel, bool amd, unsigned family, unsigned model,
						enum pmu_core_type core);
/* The vendor's base table (architectural events), or NULL. */
const struct pmu_event_table *pmu_base_events(bool intel, bool amd);
const struct pmu_event *pmu_table_find(const struct pmu_event_table *t, const char *name);
/* Event i (< t->n) of a table. */
const struct pmu_event *pmu_table_event(const struct pmu_event_table *t, unsigned i);
/* "p", "e", "unknown" or NULL (not a hybrid part): the core_type field of records. */
const char *pmu_core_type_name(enum pmu_core_type core);
/* The core type of CPUID leaf 1AH's EAX, on a hybrid part. */
enum pmu_core_type pmu_hybrid_core_type(uint32_t leaf1a_eax);

#endif
