/* Runs the configured probes in order, each under a recovery point so that a fault inside one
 * becomes a `fault` record and the suite continues with the next; counts what happened and emits
 * the final `end` record. */
#ifndef BENCH_SUITE_H
#define BENCH_SUITE_H

#include <stdint.h>

#include "arch/traps.h"
#include "bench/core/probe.h"

enum run_status { RUN_OK = 0, RUN_FAIL = 1, RUN_FATAL = 2 };

struct suite_counts {
	unsigned probes, skips, failures, faults, unexpected_faults;
};

/* The platform's way out; must not return. */
typedef void (*suite_exit_fn)(enum run_status status) __attribute__((noreturn));

void suite_init(struct probe_env *env, suite_exit_fn exit_fn);
/* Called after every probe, outside any timed window (the firmware flushes the stick copy of the
 * stream there); NULL: nothing. */
void suite_set_between(void (*fn)(void));
/* Trap callbacks for traps_init(). */
void suite_trap_report(const struct trap_info *info);
void suite_trap_fatal(const struct trap_info *info) __attribute__((noreturn));

enum run_status suite_run(void);
/* Emit `end` with the counts; returns the final status. */
enum run_status suite_end(enum run_status status);
const struct suite_counts *suite_counts(void);

#endif
