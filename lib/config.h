/* Run options: their defaults, and parsing from the config file on the boot volume
 * ("key = value" lines, '#' comments) and from load options ("key=value" words). A bad key or value
 * never stops the run: the warning callback gets a clear message and the default stays. */
#ifndef LIB_CONFIG_H
#define LIB_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/record.h"

#define CONFIG_PROBES_MAX 256
#define CONFIG_LIST_MAX 8 /* values in a numeric list option */
#define CONFIG_FILE_NAME "baremetric.cfg"
#define CONFIG_FILE_NAME_W L"baremetric.cfg"

enum shutdown_mode {
	SHUTDOWN_AUTO,       /* debug-exit when under a hypervisor, then ACPI S5, then reset */
	SHUTDOWN_DEBUG_EXIT, /* QEMU isa-debug-exit, falling back like auto */
	SHUTDOWN_ACPI,
	SHUTDOWN_RESET,
	SHUTDOWN_HALT,
};

enum serial_kind {
	SERIAL_AUTO, /* ACPI SPCR when present, else I/O port 0x3F8 */
	SERIAL_IO,
	SERIAL_MMIO,
	SERIAL_NONE,
};

enum apic_mode {
	APIC_MODE_AUTO,   /* the local APIC's mode as the firmware handed over */
	APIC_MODE_XAPIC,
	APIC_MODE_X2APIC, /* switch to x2APIC where CPUID offers it */
};

/* Where the profiler's samples come from (bench/profile/sampler.h's enum prof_source). */
enum profile_source_opt {
	PROFILE_SOURCE_AUTO,  /* counter overflow where a PMU counts, else time */
	PROFILE_SOURCE_PMU,   /* counter overflow only (else the probe runs unprofiled, with a skip) */
	PROFILE_SOURCE_TIMER, /* time-based sampling even where a PMU exists */
};

/* A numeric list option ("0,10000,100000"): n values in the order given. */
struct config_u64_list {
	unsigned n;
	uint64_t v[CONFIG_LIST_MAX];
};

struct config {
	char probes[CONFIG_PROBES_MAX]; /* comma-separated probe names, run in this order */
	uint64_t samples;               /* repetitions per runner probe */
	uint64_t timer_samples;         /* back-to-back samples per cycle-counter read method */
	uint64_t target_ns;             /* minimum duration of one runner sample; 0 = auto */
	uint64_t tsc_cal_ms;            /* one TSC calibration window */
	uint64_t tsc_cal_windows;
	enum serial_kind serial_kind;
	uint64_t serial_base;
	uint64_t serial_baud;
	enum shutdown_mode shutdown;
	uint64_t debug_exit_port;
	uint64_t hold_s;   /* keep the on-screen summary this long (a key ends it early) */
	bool wait_key;     /* keep the summary until a key, bounded by CONFIG_WAIT_KEY_MAX_S */
	uint64_t arena_mb; /* memory reserved for samples before ExitBootServices */
	uint64_t mem_min_kb;  /* smallest buffer of the memory sweeps */
	uint64_t mem_max_mb;  /* largest buffer; 0 = auto (>= 4x the last-level cache, >= 256 MiB) */
	char mem_kernels[CONFIG_PROBES_MAX]; /* bandwidth kernels to run, or "all" */
	uint64_t seed;        /* seed of the pointer-chain shuffles */
	bool smp;             /* start the application processors (bare metal) */
	enum apic_mode apic_mode; /* local APIC mode on every processor (bare metal) */
	char pmu_events[CONFIG_PROBES_MAX]; /* counters per runner sample: auto, none or event names */
	/* interrupt probes */
	uint64_t irq_samples;        /* latency / exception samples per set */
	uint64_t irq_set_ms;         /* time bound of one latency set */
	uint64_t irq_delay_us;       /* distance of a one-shot deadline */
	uint64_t irq_timeout_ms;     /* an armed interrupt not taken this long after its deadline is lost */
	uint64_t irq_disp_samples;   /* displacement windows per handler */
	uint64_t irq_disp_ms;        /* length of one displacement window */
	uint64_t irq_disp_period_us; /* interrupt period during a displacement window */
	uint64_t irq_fp_samples;     /* footprint samples per set */
	uint64_t irq_fp_ms;          /* time bound of one footprint repetition series */
	struct config_u64_list irq_fp_k; /* held-out footprints, K each; none = auto */
	bool irq_fp_inst;            /* footprint: also the L1 instruction cache (code chains) */
	struct config_u64_list irq_disp_work; /* displacement handlers' work, cycles each (distinct) */
	uint64_t noise_ms;           /* platform-noise window */
	uint64_t noise_threshold_ns; /* gap threshold; 0 = 10x the median loop time */
	/* sampling profiler (bench/profile/profile.c) */
	char profile[CONFIG_PROBES_MAX]; /* probes run with sampling on: "" none, "all", or names */
	char profile_event[32];          /* counter event sampled by overflow (PMU source) */
	uint64_t profile_period;         /* events or ns per sample; 0 = the source's default */
	enum profile_source_opt profile_source;
};

/* Bandwidth kernel names (the membw probe's `kernel` parameter). */
extern const char *const config_kernel_names[];
/* Counter event names pmu_events= accepts (the generic names of the arch event tables). */
extern const char *const config_pmu_event_names[];

#define CONFIG_WAIT_KEY_MAX_S 3600

typedef void (*config_warn_fn)(const char *message, void *ctx);

struct config_parser {
	struct config *cfg;
	const char *const *known_probes; /* NULL-terminated; probe names outside it are refused */
	config_warn_fn warn;
	void *warn_ctx;
	unsigned warnings;
};

void config_defaults(struct config *cfg);
/* Apply one option; returns true if it took effect. `origin` names where it came from ("file line 3"). */
bool config_set(struct config_parser *p, const char *key, const char *value, const char *origin);
/* Parse a config file's text (need not be NUL-terminated). */
void config_parse_file(struct config_parser *p, const char *text, size_t len);
/* Parse load options: whitespace-separated words; words without '=' (the program name) are skipped. */
void config_parse_args(struct config_parser *p, const char *text, size_t len);
/* Put the effective options into a `cfg` record. */
void config_to_record(const struct config *cfg, struct record *r);
/* Is `name` in the comma-separated list `list`? */
bool config_list_has(const char *list, const char *name);
#define CONFIG_FP_K_MAX 262144 /* largest held-out footprint K (irq_fp_k) */

#endif
