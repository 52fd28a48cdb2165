/* The run options (bench/core/options.def): their values in struct config, their defaults, and
 * how a "key = value" setting changes them. A bad key or value never stops the run: the warning
 * callback gets a clear message saying what is kept (the default, or an earlier setting's value).
 * The reading of the text itself (file lines, load-option words, comma lists) is lib/config's. */
#ifndef BENCH_OPTIONS_H
#define BENCH_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/config.h"
#include "lib/record.h"

#define CONFIG_PROBES_MAX CONFIG_VALUE_MAX /* a name-list option's text, NUL included */
#define CONFIG_WAIT_KEY_MAX_S 3600
#define CONFIG_FP_K_MAX 262144 /* largest held-out footprint K (irq_fp_k) */

enum shutdown_mode {
	SHUTDOWN_AUTO,       /* debug-exit when under a hypervisor, then ACPI S5, then reset */
	SHUTDOWN_DEBUG_EXIT, /* QEMU isa-debug-exit, falling back like auto */
	SHUTDOWN_ACPI,
	SHUTDOWN_RESET,
	SHUTDOWN_HALT,
};

/* What the machine does once the run is over (efi/after_run.h). */
enum after_mode {
	AFTER_POWEROFF, /* as shutdown= says */
	AFTER_REBOOT,   /* a reset: the firmware boots as its BootOrder says */
	AFTER_BOOT_OS,  /* BootNext = the first other boot option (set before ExitBootServices), a reset */
	AFTER_HOLD,     /* halt: a fleet reader has the done line, the screen keeps the summary */
};

enum serial_kind {
	SERIAL_AUTO, /* ACPI SPCR when present, else I/O port 0x3F8 */
	SERIAL_IO,
	SERIAL_MMIO,
	SERIAL_NONE,
};

enum save_mode {
	SAVE_AUTO, /* when the image came from a USB mass-storage device */
	SAVE_USB,  /* the boot device must be one: else a message says why nothing is saved */
	SAVE_OFF,
};

enum apic_mode {
	APIC_MODE_AUTO,   /* the local APIC's mode as the firmware handed over */
	APIC_MODE_XAPIC,
	APIC_MODE_X2APIC, /* switch to x2APIC where CPUID offers it */
};

/* What AArch64 does when the firmware starts it at EL2 (arch/aarch64/el2.h). */
enum el2_mode {
	EL2_MODE_LEAVE, /* configure EL2 for EL1 and continue at EL1 */
	EL2_MODE_STAY,  /* run at EL2: exceptions only, no PMU, interrupts or other cores */
};

/* Where the profiler's samples come from (bench/profile/sampler.h's enum prof_source). */
enum profile_source_opt {
	PROFILE_SOURCE_AUTO,  /* counter overflow where a PMU counts, else time */
	PROFILE_SOURCE_PMU,   /* counter overflow only (else the probe runs unprofiled, with a skip) */
	PROFILE_SOURCE_TIMER, /* time-based sampling even where a PMU exists */
};

/* The fields' meanings, ranges and defaults: bench/core/options.def. */
struct config {
	char probes[CONFIG_PROBES_MAX];
	uint64_t samples;
	uint64_t timer_samples;
	uint64_t target_ns;
	uint64_t tsc_cal_ms;
	uint64_t tsc_cal_windows;
	enum serial_kind serial_kind;
	uint64_t serial_base; /* port or address of serial=io:/mmio: */
	uint64_t serial_baud;
	uint64_t serial_clock_hz; /* 0 = the SPCR's, else the PC UART's */
	enum shutdown_mode shutdown;
	uint64_t debug_exit_port;
	uint64_t hold_s;
	bool wait_key; /* bounded by CONFIG_WAIT_KEY_MAX_S */
	uint64_t repeat; /* passes of the probe list */
	enum after_mode after;
	enum save_mode save;
	uint64_t save_mb; /* 0 = auto */
	uint64_t arena_mb;
	uint64_t mem_min_kb;
	uint64_t mem_max_mb;
	char mem_kernels[CONFIG_PROBES_MAX];
	uint64_t seed;
	bool smp;
	enum apic_mode apic_mode;
	enum el2_mode el2;
	char pmu_events[CONFIG_PROBES_MAX];
	/* interrupt probes */
	uint64_t irq_samples;
	uint64_t irq_set_ms;
	uint64_t irq_delay_us;
	uint64_t irq_timeout_ms;
	uint64_t irq_disp_samples;
	uint64_t irq_disp_ms;
	uint64_t irq_disp_period_us;
	uint64_t irq_fp_samples;
	uint64_t irq_fp_ms;
	struct config_u64_list irq_fp_k; /* empty = auto */
	bool irq_fp_inst;
	bool irq_fp_irq;
	struct config_u64_list irq_disp_work;
	uint64_t noise_ms;
	uint64_t noise_threshold_ns;
	/* sampling profiler (bench/profile/profile.c) */
	char profile[CONFIG_PROBES_MAX]; /* "" none, "all", or names */
	char profile_event[32];
	uint64_t profile_period;
	enum profile_source_opt profile_source;
};

/* Bandwidth kernel names (the membw probe's `kernel` parameter). */
extern const char *const config_kernel_names[];
/* Counter event names pmu_events= accepts (the generic names of the arch event tables). */
extern const char *const config_pmu_event_names[];

#define CONFIG_OPTIONS_MAX 48 /* room for the options of options.def (checked at compile time) */

/* Where an option was given: a source (enum config_source) and its line or word number. */
struct config_mark {
	uint32_t n;
	uint8_t source;
};

struct config_parser {
	struct config *cfg;
	const char *const *known_probes; /* NULL-terminated; probe names outside it are refused */
	config_warn_fn warn;
	void *warn_ctx;
	unsigned warnings;
	/* Per option, in options.def order (zero-initialised: never given): where it was first given
	 * in the current source (a repeat there is reported) and where its value last took effect
	 * (what a later bad value keeps). */
	struct config_mark given[CONFIG_OPTIONS_MAX];
	struct config_mark took[CONFIG_OPTIONS_MAX];
};

/* Every option at its default (options.def; the probe list: the registry's default probes). */
void config_defaults(struct config *cfg);
/* Apply one option; returns true if it took effect. `origin` names where it came from ("test").
 * A bad value leaves the option as it was and the message says what it keeps: "keeping the
 * default", or the value of the last setting that took effect, "keeping the value of file line 3". */
bool config_set(struct config_parser *p, const char *key, const char *value, const char *origin);
/* The same with a numbered origin (a file line, a load-option word): a key given again in the
 * same source is reported with both numbers; the later value counts. */
bool config_set_at(struct config_parser *p, const char *key, const char *value, const struct config_origin *at);
/* Parse a config file's text (need not be NUL-terminated). */
void config_parse_file(struct config_parser *p, const char *text, size_t len);
/* Parse load options: whitespace-separated words; words without '=' (the program name) are skipped. */
void config_parse_args(struct config_parser *p, const char *text, size_t len);
/* Put the effective options into a `cfg` record. */
void config_to_record(const struct config *cfg, struct record *r);

/* The options table, for tests and listings: the number of options, the i-th one's key and
 * default, and whether `key` is an option. */
unsigned config_option_count(void);
const char *config_option_key(unsigned i);
const char *config_option_default(unsigned i);
bool config_option_exists(const char *key);

#endif
