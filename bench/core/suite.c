/* The suite runner (see suite.h). */
#include "bench/core/suite.h"

#include "bench/core/progress.h"
#include "bench/core/registry.h"
#include "bench/core/runner.h"
#include "bench/core/summary.h"
#include "bench/profile/profile.h"
#include "lib/emit.h"
#include "lib/fmt.h"

static struct {
	struct probe_env *env;
	suite_exit_fn exit_fn;
	void (*between)(void);
	const struct probe_desc *current;
	struct suite_counts counts;
} suite;

void suite_init(struct probe_env *env, suite_exit_fn exit_fn)
{
	suite.env = env;
	suite.exit_fn = exit_fn;
	env->report_fault = suite_trap_report;
}

void suite_set_between(void (*fn)(void))
{
	suite.between = fn;
}

const struct suite_counts *suite_counts(void)
{
	return &suite.counts;
}

void suite_trap_report(const struct trap_info *info)
{
	bool expected = suite.current && suite.current->expects_fault;
	struct record *r = emit_start("fault");

	suite.counts.faults++;
	if (!expected)
		suite.counts.unexpected_faults++;
	rec_u64(r, "vector", info->vector);
	rec_str(r, "name", info->name);
	rec_hex(r, "err", info->error);
	rec_hex(r, "rip", info->rip);
	rec_hex(r, "cr2", info->cr2);
	rec_str(r, "probe", suite.current ? suite.current->name : "none");
	rec_bool(r, "expected", expected);
	rec_str(r, "action", info->recoverable ? "continue" : "stop");
	emit_finish();
	summary_fault(info->name, suite.current ? suite.current->name : "none", expected);
}

void suite_trap_fatal(const struct trap_info *info)
{
	(void)info;
	suite.exit_fn(suite_end(RUN_FATAL));
}

/* Kept out of line so the recovery point's frame is this function's alone: after a fault,
 * fault_try() returns here a second time and only volatile state is trusted. */
static __attribute__((noinline)) enum probe_status run_protected(const struct probe_desc *p)
{
	struct fault_jmp jmp;
	volatile enum probe_status status = PROBE_FAILED;
	int fault;

	if (!suite.env->traps)
		return p->run(suite.env);
	fault = fault_try(&jmp);
	if (fault == 0) {
		fault_arm(&jmp);
		status = p->run(suite.env);
		fault_disarm();
		return status;
	}
	runner_region_leave(); /* a fault inside a measured region ends it here */
	return p->expects_fault ? PROBE_OK : PROBE_FAILED;
}

/* With the profiler's automatic period, run the probe again, its records muted, until the profile
 * has enough samples (bench/profile/extend.h): the first run's records stand for the probe, the
 * later runs only add samples. A later run that does not end well ends the extension. */
static void extend_profile(const struct probe_desc *p, enum probe_status st, uint32_t faults_before,
			   size_t mark)
{
	uint32_t next_set = suite.env->next_set;
	uint32_t runs = 0;

	while (profile_run_again(st == PROBE_OK && suite.counts.faults == faults_before)) {
		if (p->cleanup)
			p->cleanup(suite.env);
		arena_release(suite.env->arena, mark);
		emit_mute(true);
		st = run_protected(p);
		emit_mute(false);
		runs++;
	}
	if (runs && (st != PROBE_OK || suite.counts.faults != faults_before))
		emit_msg(MSG_WARN, "profile: a repeated run of the probe did not end well; its profile keeps the runs before");
	suite.env->next_set = next_set; /* muted runs declared sets nobody saw */
}

/* One name of the probe list: run it under its recovery point, count how it ended. */
static void run_one(const char *name)
{
	const struct probe_desc *p;
	enum probe_status st;
	uint32_t faults_before = suite.counts.faults;
	size_t mark, again;
	bool profiled = false;

	progress_probe(name);
	p = probe_find(name);
	if (!p || (p->expects_fault && !suite.env->traps)) {
		emit_skip(name, p ? "faults are not caught in this build" : "unknown probe");
		suite.counts.skips++;
		summary_probe(name, PROBE_SKIPPED);
		return;
	}
	suite.current = p;
	suite.env->current = p->name;
	mark = arena_mark(suite.env->arena);
	if (profile_wanted(suite.env->cfg, p->name))
		profiled = profile_start(suite.env, p);
	again = arena_mark(suite.env->arena);
	st = run_protected(p);
	if (profiled)
		extend_profile(p, st, faults_before, again);
	profile_finish(suite.env, p);
	if (p->cleanup)
		p->cleanup(suite.env);
	arena_release(suite.env->arena, mark);
	suite.current = 0;
	suite.env->current = 0;
	if (p->expects_fault && suite.counts.faults == faults_before) {
		emit_msg(MSG_ERROR, "a fault test probe ended without the fault it provokes");
		st = PROBE_FAILED;
	}
	suite.counts.probes++;
	if (st == PROBE_SKIPPED)
		suite.counts.skips++;
	if (st == PROBE_FAILED)
		suite.counts.failures++;
	summary_probe(p->name, st);
	if (suite.between)
		suite.between();
}

/* The `msg` that opens pass k of a repeated run (repeat=N above 1): a reader splits the stream
 * there; the sets of the pass carry pass=k (probe.c). */
static void announce_pass(uint32_t k, uint64_t passes)
{
	char text[64];
	struct sbuf sb;

	sb_init(&sb, text, sizeof(text));
	sb_puts(&sb, "pass ");
	sb_u64(&sb, k);
	sb_puts(&sb, " of ");
	sb_u64(&sb, passes);
	emit_msg(MSG_INFO, text);
}

enum run_status suite_run(void)
{
	uint64_t passes = suite.env->cfg->repeat ? suite.env->cfg->repeat : 1;
	char name[64];

	summary_begin(suite.env);
	progress_begin(suite.env->cfg->probes, passes, suite.env->counter_hz);
	for (uint32_t k = 1; k <= passes; k++) {
		const char *list = suite.env->cfg->probes;

		if (passes > 1) {
			suite.env->pass = k;
			announce_pass(k, passes);
		}
		while (*list) {
			size_t n = 0;

			while (list[n] && list[n] != ',')
				n++;
			str_copy(name, list, n + 1 < sizeof(name) ? n + 1 : sizeof(name));
			list += n + (list[n] == ',');
			run_one(name);
		}
	}
	return suite.counts.failures || suite.counts.unexpected_faults ? RUN_FAIL : RUN_OK;
}

enum run_status suite_end(enum run_status status)
{
	static const char *const names[] = { "ok", "fail", "fatal" };
	struct record *r;

	emit_mute(false); /* a fatal fault can end the run inside a muted profile run */
	if (status == RUN_OK && (suite.counts.failures || suite.counts.unexpected_faults))
		status = RUN_FAIL;
	r = emit_start("end");
	rec_u64(r, "records", emit_count());
	rec_str(r, "status", names[status]);
	rec_u64(r, "faults", suite.counts.faults);
	rec_u64(r, "unexpected_faults", suite.counts.unexpected_faults);
	rec_u64(r, "probes_run", suite.counts.probes);
	rec_u64(r, "skips", emit_skip_count()); /* every skip record the stream carries */
	rec_u64(r, "probes_skipped", suite.counts.skips);
	emit_finish();
	summary_status(names[status], emit_count());
	return status;
}
