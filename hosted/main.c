/* Hosted entry: the same calibration, runner and probes as the firmware, run as a Linux program.
 * Options are `key=value` arguments (the firmware's option names); the record stream goes to
 * stdout (protocol v1, `begin env=hosted`, lines ending in "\n"), diagnostics and the run summary
 * to stderr. The process pins itself to one CPU (BAREMETRIC_CPU, else the last allowed one), maps
 * and pre-faults its sample arena (2M hugetlb pages, else THP-advised 4K), locks its memory where
 * permitted, finds the cycle counter's rate (hosted/<cpu>/platform.c: the TSC calibrated against
 * CLOCK_MONOTONIC_RAW, the generic timer's CNTFRQ_EL0) and runs the suite. Exit status: 0 ok,
 * 1 a probe failed, 2 fatal. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arch/cpu_info.h"
#include "arch/cycles.h"
#include "arch/traps.h"
#include "bench/core/calibrate.h"
#include "bench/core/runner.h"
#include "bench/facts/smp.h"
#include "bench/core/registry.h"
#include "bench/core/suite.h"
#include "bench/core/summary.h"
#include "hosted/hosted.h"
#include "hosted/irq_hosted.h"
#include "hosted/platform.h"
#include "bench/core/options.h"
#include "lib/emit.h"
#include "lib/fmt.h"

#ifndef BUILD_ID
#define BUILD_ID "unknown"
#endif

#define ARGS_MAX 4096
#define STDOUT_BUFFER (1 << 20)

static struct {
	struct config cfg;
	struct hosted_msgs msgs;
	struct hosted_pin pin;
	struct hosted_arena harena;
	struct cpu_info cpu;
	struct pmu_info pmu;
	struct arena arena, exec_arena;
	struct probe_env env;
	struct irq_platform irq;
	const char *irq_why;
	bool mlocked;
	char mlock_err[32];
} m;

static void stdout_sink(const char *line, unsigned len)
{
	fwrite(line, 1, len, stdout);
	fputc('\n', stdout);
}

/* The suite's way out (also reached from the fatal-fault path of traps_init's signal handlers). */
static __attribute__((noreturn)) void hosted_exit(enum run_status status)
{
	int rc = (int)status;

	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "baremetric: writing the record stream to stdout failed\n");
		rc = RUN_FATAL;
	}
	fputs(summary_text(), stderr);
	fflush(stderr);
	_exit(rc);
}

static void warn_cb(const char *text, void *ctx)
{
	msgs_add(ctx, MSG_WARN, text, 0, 0);
}

/* --help: the options with their defaults, taken from the options' own `cfg` record (bench/core/options.def). */
static void usage(const char *prog)
{
	struct config def;
	struct record r;
	const char *p;

	config_defaults(&def);
	rec_start(&r, 0, "cfg");
	config_to_record(&def, &r);
	rec_finish(&r);
	printf("usage: %s [key=value ...]\n\n"
	       "Runs the baremetric probes on this Linux machine and writes the record stream\n"
	       "(docs/protocol.md) to stdout; diagnostics and a summary go to stderr.\n"
	       "Exit status: 0 ok, 1 a probe failed, 2 fatal.\n\n"
	       "Environment: BAREMETRIC_CPU=N pins to CPU N (default: the last CPU allowed).\n\n"
	       "Options (default shown; %%XX is an escaped byte; serial, shutdown, hold_s and wait_key\n"
	       "matter only to the firmware):\n",
	       prog);
	p = strstr(r.buf, " cfg ");
	p = p ? p + 5 : "";
	while (*p && *p != '|') {
		size_t n = strcspn(p, " ");

		printf("  %.*s\n", (int)n, p);
		p += n;
		while (*p == ' ')
			p++;
	}
	printf("\nProbes:");
	for (const char *const *n = probe_names; *n; n++)
		printf(" %s", *n);
	printf("\n");
}

/* Options: every argument is one key=value word, parsed by bench/core/options like the firmware's load
 * options (word N is argv[N]). */
static void parse_args(int argc, char **argv)
{
	struct config_parser p = { .cfg = &m.cfg, .known_probes = probe_names, .warn = warn_cb, .warn_ctx = &m.msgs };
	char text[ARGS_MAX];
	struct sbuf sb;

	config_defaults(&m.cfg);
	sb_init(&sb, text, sizeof(text));
	sb_puts(&sb, argv[0]);
	for (int i = 1; i < argc; i++) {
		if (!strchr(argv[i], '='))
			msgs_add(&m.msgs, MSG_WARN, "config argument '", argv[i],
				 "' is not of the form key=value; ignored");
		sb_putc(&sb, ' ');
		sb_puts(&sb, argv[i]);
	}
	if (sb.overflow)
		msgs_add(&m.msgs, MSG_WARN, "config arguments too long: the tail was ignored", 0, 0);
	config_parse_args(&p, text, sb.len);
	if (argc > 1)
		msgs_add(&m.msgs, MSG_INFO, "options from the command line", 0, 0);
}

static void emit_begin(void)
{
	struct record *r = emit_start("begin");

	rec_u64(r, "proto", REC_PROTO_VERSION);
	rec_str(r, "build", BUILD_ID);
	rec_str(r, "arch", ARCH_NAME);
	rec_str(r, "env", "hosted");
	emit_finish();
}

static void emit_config(void)
{
	struct record *r;

	msgs_emit(&m.msgs);
	r = emit_start("cfg");
	config_to_record(&m.cfg, r);
	emit_finish();
}

/* The interrupt sources (signals and POSIX timers, hosted/irq_sources.c), drained once like the
 * firmware's after its set-up, and their facts. */
static void setup_irq(void)
{
	struct irq_drain_stats drained = { 0 };

	if (hosted_irq_sources_init(&m.irq, m.env.counter_hz))
		(void)irq_drain(&m.irq, m.env.counter_hz, &drained);
	hosted_irq_emit_facts(&m.irq, &drained);
	m.env.irq = &m.irq;
}

int main(int argc, char **argv)
{
	unsigned caches;

	for (int i = 1; i < argc; i++) {
		if (str_eq(argv[i], "--help") || str_eq(argv[i], "-h")) {
			usage(argv[0]);
			return 0;
		}
	}
	static char summary_buf[SUMMARY_MAX];

	setvbuf(stdout, 0, _IOFBF, STDOUT_BUFFER);
	summary_init(summary_buf, sizeof(summary_buf));
	parse_args(argc, argv);
	hosted_pin(&m.pin, &m.msgs);
	facts_snapshot_hugepages();
	hosted_arena_map(&m.harena, m.cfg.arena_mb, &m.msgs);
	m.mlocked = hosted_lock_memory(&m.msgs, m.mlock_err, sizeof(m.mlock_err));

	emit_init(stdout_sink);
	suite_init(&m.env, hosted_exit);
	traps_init(suite_trap_report, suite_trap_fatal); /* fatal-fault reporting only: no recovery */
	/* The interrupt signals: blocked here, before any other thread exists (hosted/irq_signal.c). */
	if (!hosted_irq_signals_init(&m.irq_why))
		msgs_add(&m.msgs, MSG_WARN, "interrupt stand-ins: ", m.irq_why, 0);
	emit_begin();
	emit_config();

	hosted_platform_cpu(&m.cpu, &m.pmu); /* hosted/<cpu>/platform.c */
	facts_emit_os(&m.pin, m.mlocked, m.mlock_err);
	facts_emit_dmi();
	caches = facts_emit_cache_sysfs(m.pin.cpu);
	if (!caches)
		emit_msg(MSG_INFO, "no cache description in sysfs (/sys/devices/system/cpu/cpuN/cache)");
	arena_init(&m.arena, m.harena.base, m.harena.size);
	arena_init(&m.exec_arena, m.harena.exec_base, m.harena.exec_size);
	facts_emit_alloc(&m.harena);
	m.env.counter_hz = hosted_platform_clock(&m.cpu, &m.cfg);
	hosted_smp_start(&m.pin, m.cfg.smp, m.env.counter_hz);
	smp_facts_emit();
	setup_irq();

	m.env.cfg = &m.cfg;
	m.env.cpu = &m.cpu;
	m.env.pmu = &m.pmu;
	m.env.arena = &m.arena;
	m.env.traps = false;
	m.env.page_size = hosted_arena_page(&m.harena);
	m.env.exec_arena = m.exec_arena.base ? &m.exec_arena : 0;
	m.env.simd_enabled = false; /* the kernel manages the vector state (XSAVE, SVE), not us */
	m.env.timer_overhead = runner_measure_overhead();
	m.env.target_cycles = calibrate_target_cycles(m.cfg.target_ns, m.env.counter_hz, m.env.timer_overhead);
	summary_value(hosted_overhead_label, m.env.timer_overhead, 0, "");
	hosted_exit(suite_end(suite_run()));
}
