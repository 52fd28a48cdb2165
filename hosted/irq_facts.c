/* The `plat kind=irq_hosted` record: what stands in for each interrupt source in the hosted build
 * (signals, clocks, system calls), and the kernel state that shapes those numbers: the thread's
 * timer slack and scheduling policy, page-table isolation (a kernel entry then switches page
 * tables: TLB entries of user space are flushed or retagged on every signal delivery, which a
 * footprint measurement must carry in its K = 0 baseline), the clock source behind
 * CLOCK_MONOTONIC, and the timers' resolution. */
#define _GNU_SOURCE
#include "hosted/irq_hosted.h"

#include <sched.h>
#include <string.h>
#include <sys/prctl.h>

#include "hosted/hosted.h"
#include "hosted/text_file.h"
#include "lib/emit.h"
#include "lib/fmt.h"

#define TEXT_MAX 128

static const char *policy_name(int policy)
{
	switch (policy) {
	case SCHED_OTHER:
		return "SCHED_OTHER";
	case SCHED_FIFO:
		return "SCHED_FIFO";
	case SCHED_RR:
		return "SCHED_RR";
	case SCHED_BATCH:
		return "SCHED_BATCH";
	case SCHED_IDLE:
		return "SCHED_IDLE";
	default:
		return "other";
	}
}

void hosted_irq_emit_facts(const struct irq_platform *p, const struct irq_drain_stats *drained)
{
	struct record *r = emit_start("plat");
	char text[TEXT_MAX];
	struct sched_param sp;
	int slack, policy;

	rec_str(r, "kind", "irq_hosted");
	rec_bool(r, "ready", p->ready);
	if (!p->ready && p->reason)
		rec_str(r, "reason", p->reason);
	rec_u64(r, "sig_measure", (uint64_t)hosted_irq_signal(IRQ_VEC_MEASURE));
	rec_u64(r, "sig_guard", (uint64_t)hosted_irq_signal(IRQ_VEC_GUARD));
	rec_u64(r, "sig_ipi", (uint64_t)hosted_irq_signal(IRQ_VEC_IPI));
	rec_str(r, "oneshot", "timer_create(CLOCK_MONOTONIC,SIGEV_THREAD_ID)+timer_settime(TIMER_ABSTIME)");
	rec_str(r, "periodic", "the same timer with it_interval (kernel grid start+k*period)");
	rec_str(r, "self_ipi", "tgkill(own thread)");
	rec_str(r, "guard", "a second posix one-shot timer on the guard vector's signal");
	rec_str(r, "hlt", "sigsuspend");
	rec_str(r, "mask", "pthread_sigmask");
	rec_str(r, "exceptions", "int3:SIGTRAP,ud2:SIGILL (resumed from the signal frame)");
	rec_str(r, "timer_clock", "CLOCK_MONOTONIC");
	rec_u64(r, "clock_res_ns", hosted_irq_clock_res_ns());
	facts_clocksource(text, sizeof(text));
	rec_str(r, "clocksource", text);
	slack = prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);
	if (slack >= 0)
		rec_u64(r, "timer_slack_ns", (uint64_t)slack);
	policy = sched_getscheduler(0);
	rec_str(r, "sched_policy", policy_name(policy));
	if (sched_getparam(0, &sp) == 0)
		rec_u64(r, "sched_priority", (uint64_t)sp.sched_priority);
	if (read_line("/sys/devices/system/cpu/vulnerabilities/meltdown", text, sizeof(text))) {
		rec_str(r, "meltdown", text);
		rec_bool(r, "pti", strstr(text, "PTI") != 0);
	}
	if (p->ready) {
		rec_u64(r, "stale_in_service", drained->in_service);
		rec_u64(r, "stale_pending_taken", drained->delivered);
		rec_u64(r, "stale_left", drained->left);
	}
	emit_finish();
}
