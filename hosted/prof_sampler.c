/* The profiler's sampling sources in the hosted (Linux user-space) build (bench/profile/sampler.h).
 * A sample is a real-time signal of its own (HOSTED_PROF_SIGNAL, above hosted/irq_signal.c's) sent
 * to the sampled thread; its handler reads the TSC first (the entry stamp), takes the interrupted
 * PC from the signal frame (hosted_frame_pc), calls the hit function, re-arms the source with the next
 * randomised period (bench/profile/period.h) and reads the TSC last (prof_sampler_last_exit_cycles).
 * Sources, tried in this order (PROF_SRC_AUTO; PROF_SRC_PMU: the first only; PROF_SRC_TIMER: the
 * other two):
 *  - "perf": perf_event_open of a hardware counter (the requested event where perf has a generic
 *    mapping for it) with sample_period. Without a ring buffer the kernel signals an overflow only
 *    when the event's refresh limit runs out (it then disables the event and sends POLL_HUP), so
 *    the handler sets the next period (PERF_EVENT_IOC_PERIOD) and refreshes by one
 *    (PERF_EVENT_IOC_REFRESH). The signal goes to the sampled thread (F_SETOWN_EX F_OWNER_TID,
 *    O_ASYNC, F_SETSIG). Fails where the kernel sees no PMU (this project's VM: ENOENT).
 *  - "task_clock": the same with the software event PERF_COUNT_SW_TASK_CLOCK: the thread's CPU
 *    time in ns, an hrtimer of the kernel, so the period is kept to ~10 us; no PMU needed.
 *  - "cputime_timer": timer_create on the thread's CPU-time clock (CLOCK_THREAD_CPUTIME_ID as
 *    that thread sees it: pthread_getcpuclockid, so one thread can create the timers of all)
 *    signalling the thread (SIGEV_THREAD_ID), one-shot, re-armed with the next period. The kernel checks CPU-time
 *    timers only at its tick, so a period below the tick becomes the tick: said in info->fallback.
 * Kernel mode is sampled where allowed (perf_event_paranoid): a sample in a system call is
 * delivered on the return to user mode and counts at the PC after the syscall, as CPU-time timers
 * do. CPUs: the main thread is CPU 0; each online hosted "application processor" (a pinned
 * worker thread, hosted/smp.c) gets its own event or timer and its own index. Its
 * thread id and CPU clock are learnt once by a short job run on it (bounded wait); a worker that
 * does not answer does not sample. Environment BAREMETRIC_PROF_NO_PERF=1 skips both perf sources
 * (to exercise the timer fallback where perf works). */
#define _GNU_SOURCE
#include "bench/profile/sampler.h"
#include "hosted/signal_frame.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "arch/cycles.h"
#include "arch/smp.h"
#include "bench/core/probe.h"
#include "bench/profile/period.h"
#include "hosted/irq_hosted.h"

/* Ours: the first real-time signal after the interrupt stand-ins' (hosted/irq_signal.c). */
#define HOSTED_PROF_SIGNAL (SIGRTMIN + HOSTED_IRQ_SLOTS)
#define PERF_MIN_PERIOD_NS 10000ull      /* the kernel's floor for hrtimer-driven software events */
#define FALLBACK_COUNTER_HZ 5000000000ull    /* bounds only, when the TSC rate is unknown */
#define WORKER_JOB_TIMEOUT_MS 200        /* a worker answers the tid job within this */
#define STOP_DRAIN_TIMEOUT_MS 1000       /* a worker's handler in progress ends within this */
#define MS_PER_S 1000ull
#define NS_PER_S 1000000000ull
#define SEED_CPU_STRIDE 0x9e3779b97f4a7c15ull /* a different period sequence per CPU */
#define REFRESH_OVERFLOWS 1              /* signal (and disable) at the next overflow */

enum src_kind { SRC_PERF_HW, SRC_TASK_CLOCK, SRC_CPUTIME };

static const char *const src_names[] = { "perf", "task_clock", "cputime_timer" }; /* enum src_kind */

/* Our counter event names with a generic perf mapping (arch/x86_64/pmu_events.c names). */
/* PERF_TYPE_HW_CACHE config: cache id | operation << 8 | result << 16 (perf_event_open(2)). */
#define PERF_HW_CACHE_OP_SHIFT 8
#define PERF_HW_CACHE_RESULT_SHIFT 16
#define HW_CACHE(cache, result) \
	((cache) | ((uint64_t)PERF_COUNT_HW_CACHE_OP_READ << PERF_HW_CACHE_OP_SHIFT) | \
	 ((uint64_t)(result) << PERF_HW_CACHE_RESULT_SHIFT))
static const struct {
	const char *name;
	uint32_t type;
	uint64_t config;
} perf_events[] = {
	{ "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
	{ "branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch_misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES },
	{ "llc_references", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES },
	{ "llc_misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES },
	{ "ref_cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES },
	{ "l1d_misses", PERF_TYPE_HW_CACHE, HW_CACHE(PERF_COUNT_HW_CACHE_L1D, PERF_COUNT_HW_CACHE_RESULT_MISS) },
	{ "l1i_misses", PERF_TYPE_HW_CACHE, HW_CACHE(PERF_COUNT_HW_CACHE_L1I, PERF_COUNT_HW_CACHE_RESULT_MISS) },
	{ "dtlb_misses", PERF_TYPE_HW_CACHE, HW_CACHE(PERF_COUNT_HW_CACHE_DTLB, PERF_COUNT_HW_CACHE_RESULT_MISS) },
	{ "itlb_misses", PERF_TYPE_HW_CACHE, HW_CACHE(PERF_COUNT_HW_CACHE_ITLB, PERF_COUNT_HW_CACHE_RESULT_MISS) },
};

/* One sampled thread; written by its own handler only (no shared writes in the handler). */
struct prof_cpu {
	pid_t tid;                 /* 0: not sampled */
	clockid_t clock;           /* its CPU-time clock (cputime_timer) */
	int fd;                    /* perf event, -1 if none */
	timer_t timer;
	bool has_timer;
	struct prof_period per;
	volatile uint32_t in_handler;
	volatile uint64_t exit_cycles;
	uint64_t samples;
} __attribute__((aligned(128)));

static struct {
	struct prof_cpu cpu[SMP_MAX_CPUS];
	unsigned ncpu;             /* cpu[0..ncpu-1] are considered */
	enum src_kind kind;
	prof_hit_fn hit;
	void *ctx;
	volatile uint32_t stopping;
	bool running, handler_installed;
	struct sigaction old_action;
	volatile uint64_t stray;   /* our signal without a source of ours behind it */
	uint64_t counter_hz;
} ps;

/* Thread ids and CPU clocks of the workers: learnt once (threads never exit). */
static struct {
	volatile pid_t tid;
	volatile clockid_t clock;
	volatile uint32_t done;
} who[SMP_MAX_CPUS];

static char fallback_buf[640];
static char why_buf[640];

static uint64_t ms_cycles(uint64_t ms)
{
	return ms * ((ps.counter_hz ? ps.counter_hz : FALLBACK_COUNTER_HZ) / MS_PER_S);
}

/* --- the handler ---------------------------------------------------------------------------- */

static int cpu_of_signal(const siginfo_t *si)
{
	if (si->si_code == SI_TIMER)
		return ps.kind == SRC_CPUTIME ? si->si_value.sival_int : -1;
	if (si->si_code != POLL_HUP && si->si_code != POLL_IN)
		return -1; /* sent by kill/sigqueue: not a sample */
	for (unsigned i = 0; i < ps.ncpu; i++)
		if (ps.cpu[i].fd == si->si_fd && ps.cpu[i].fd >= 0)
			return (int)i;
	return -1;
}

static void rearm(struct prof_cpu *c)
{
	uint64_t next = prof_period_next(&c->per);

	if (ps.kind == SRC_CPUTIME) {
		struct itimerspec its = { .it_value = { (time_t)(next / NS_PER_S), (long)(next % NS_PER_S) } };

		timer_settime(c->timer, 0, &its, 0);
	} else {
		ioctl(c->fd, PERF_EVENT_IOC_PERIOD, &next);
		ioctl(c->fd, PERF_EVENT_IOC_REFRESH, REFRESH_OVERFLOWS);
	}
}

static void on_prof_signal(int sig, siginfo_t *si, void *ucv)
{
	uint64_t entry = cycles_read();
	int saved_errno = errno, cpu = cpu_of_signal(si);
	struct prof_cpu *c;

	(void)sig;
	if (cpu < 0 || (unsigned)cpu >= ps.ncpu) {
		ps.stray++;
		errno = saved_errno;
		return;
	}
	c = &ps.cpu[cpu];
	/* Paired with prof_sampler_stop: either it sees us in here and waits, or we see it stopping
	 * and leave the source disarmed. */
	__atomic_store_n(&c->in_handler, 1, __ATOMIC_SEQ_CST);
	if (!__atomic_load_n(&ps.stopping, __ATOMIC_SEQ_CST)) {
		c->samples++;
		ps.hit(ps.ctx, (unsigned)cpu, hosted_frame_pc(ucv), entry);
		rearm(c);
	}
	errno = saved_errno;
	c->exit_cycles = cycles_read();
	__atomic_store_n(&c->in_handler, 0, __ATOMIC_RELEASE);
}

static bool install_handler(const char **why)
{
	struct sigaction sa, old;
	static const int faults[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP };

	if (HOSTED_PROF_SIGNAL > SIGRTMAX) {
		*why = "no real-time signal left for the profiler";
		return false;
	}
	if (sigaction(HOSTED_PROF_SIGNAL, 0, &old) != 0 ||
	    (old.sa_handler != SIG_DFL && old.sa_handler != SIG_IGN)) {
		*why = "the profiler's real-time signal already has a handler";
		return false;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_prof_signal;
	/* "Interrupts masked" in the handler: every signal but the synchronous faults (those stay
	 * deliverable so a fault in the hit function is still reported, not a silent kill). */
	sigfillset(&sa.sa_mask);
	for (unsigned i = 0; i < sizeof(faults) / sizeof(faults[0]); i++)
		sigdelset(&sa.sa_mask, faults[i]);
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	if (sigaction(HOSTED_PROF_SIGNAL, &sa, &ps.old_action) != 0) {
		*why = "sigaction refused the profiler's signal handler";
		return false;
	}
	ps.handler_installed = true;
	return true;
}

/* --- the threads ---------------------------------------------------------------------------- */

static void unblock_our_signal(void)
{
	sigset_t s;

	sigemptyset(&s);
	sigaddset(&s, HOSTED_PROF_SIGNAL);
	pthread_sigmask(SIG_UNBLOCK, &s, 0);
}

/* Run on the thread itself: harmless if it runs late, after the asker gave up. */
static void learn_thread(void *arg)
{
	unsigned cpu = (unsigned)(uintptr_t)arg;
	clockid_t clk;

	unblock_our_signal();
	if (pthread_getcpuclockid(pthread_self(), &clk) == 0)
		who[cpu].clock = clk;
	who[cpu].tid = gettid();
	__atomic_store_n(&who[cpu].done, 1, __ATOMIC_RELEASE);
}

/* The threads that sample: the caller (CPU 0) and every worker that answers. */
static unsigned find_threads(void)
{
	unsigned n = smp_cpus_online();

	if (n > SMP_MAX_CPUS)
		n = SMP_MAX_CPUS;
	if (n < 1)
		n = 1;
	learn_thread((void *)(uintptr_t)0);
	for (unsigned cpu = 1; cpu < n; cpu++) {
		if (!__atomic_load_n(&who[cpu].done, __ATOMIC_ACQUIRE) &&
		    smp_cpu_status(cpu) == SMP_CPU_IDLE && smp_run(cpu, learn_thread, (void *)(uintptr_t)cpu))
			smp_wait(cpu, ms_cycles(WORKER_JOB_TIMEOUT_MS));
	}
	for (unsigned cpu = 0; cpu < n; cpu++) {
		ps.cpu[cpu].tid = __atomic_load_n(&who[cpu].done, __ATOMIC_ACQUIRE) ? who[cpu].tid : 0;
		ps.cpu[cpu].clock = who[cpu].clock;
		ps.cpu[cpu].fd = -1;
	}
	return n;
}

/* --- opening the sources -------------------------------------------------------------------- */

static long perf_open(struct perf_event_attr *attr, pid_t tid)
{
	long fd;

	/* Kernel mode too where perf_event_paranoid allows it, else user mode only. */
	attr->exclude_kernel = 0;
	fd = syscall(SYS_perf_event_open, attr, tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0 && (errno == EACCES || errno == EPERM)) {
		attr->exclude_kernel = 1;
		fd = syscall(SYS_perf_event_open, attr, tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
	}
	return fd;
}

/* The event's signal goes to its thread. */
static bool perf_route(int fd, pid_t tid)
{
	struct f_owner_ex owner = { .type = F_OWNER_TID, .pid = tid };

	return fcntl(fd, F_SETOWN_EX, &owner) == 0 && fcntl(fd, F_SETSIG, HOSTED_PROF_SIGNAL) == 0 &&
	       fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_ASYNC) == 0;
}

static bool open_perf(struct prof_cpu *c, uint32_t type, uint64_t config, uint64_t first, char *err, size_t cap,
		      const char *what)
{
	struct perf_event_attr attr;
	long fd;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = type;
	attr.config = config;
	attr.sample_period = first;
	attr.disabled = 1;
	attr.exclude_hv = 1;
	attr.wakeup_events = 1;
	fd = perf_open(&attr, c->tid);
	if (fd < 0) {
		int e = errno;

		snprintf(err, cap, "perf_event_open(%s): %s%s", what, strerror(e),
			 e == ENOENT || e == EOPNOTSUPP || e == ENODEV ? " (no PMU visible to Linux)"
			 : e == EACCES || e == EPERM ? " (see /proc/sys/kernel/perf_event_paranoid)" : "");
		return false;
	}
	if (!perf_route((int)fd, c->tid)) {
		snprintf(err, cap, "fcntl on the %s event: %s (no overflow signal)", what, strerror(errno));
		close((int)fd);
		return false;
	}
	c->fd = (int)fd;
	return true;
}

static bool open_timer(struct prof_cpu *c, unsigned cpu, char *err, size_t cap)
{
	struct sigevent sev;

	memset(&sev, 0, sizeof(sev));
	sev.sigev_notify = SIGEV_THREAD_ID;
	sev.sigev_signo = HOSTED_PROF_SIGNAL;
	sev.sigev_value.sival_int = (int)cpu;
	sev._sigev_un._tid = c->tid;
	if (timer_create(c->clock, &sev, &c->timer) != 0) {
		snprintf(err, cap, "timer_create(thread CPU clock): %s", strerror(errno));
		return false;
	}
	c->has_timer = true;
	return true;
}

static void close_sources(void)
{
	for (unsigned i = 0; i < ps.ncpu; i++) {
		struct prof_cpu *c = &ps.cpu[i];

		if (c->fd >= 0)
			close(c->fd);
		c->fd = -1;
		if (c->has_timer)
			timer_delete(c->timer);
		c->has_timer = false;
	}
}

static int perf_event_index(const char *name)
{
	for (unsigned i = 0; i < sizeof(perf_events) / sizeof(perf_events[0]); i++)
		if (strcmp(perf_events[i].name, name) == 0)
			return (int)i;
	return -1;
}

/* Open `kind` on every thread; CPU 0 must succeed (else *err says why), a worker that fails
 * simply does not sample. Returns the CPUs opened. */
static unsigned open_kind(enum src_kind kind, const char *event, uint64_t first, char *err, size_t cap)
{
	unsigned opened = 0;
	int ev = perf_event_index(event);

	if (kind == SRC_PERF_HW && ev < 0) {
		snprintf(err, cap, "event %s has no generic perf mapping", event);
		return 0;
	}
	for (unsigned i = 0; i < ps.ncpu; i++) {
		struct prof_cpu *c = &ps.cpu[i];
		char ignore[160];
		char *e = i == 0 ? err : ignore;
		size_t ecap = i == 0 ? cap : sizeof(ignore);
		bool ok;

		if (!c->tid)
			continue;
		if (kind == SRC_PERF_HW)
			ok = open_perf(c, perf_events[ev].type, perf_events[ev].config, first, e, ecap, event);
		else if (kind == SRC_TASK_CLOCK)
			ok = open_perf(c, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, first, e, ecap, "task_clock");
		else
			ok = open_timer(c, i, e, ecap);
		if (!ok && i == 0) {
			close_sources();
			return 0;
		}
		opened += ok;
	}
	return opened;
}

/* --- start and stop ------------------------------------------------------------------------- */

/* The kernel's tick in ns: the resolution the coarse clocks state (one jiffy), 0 if not given. */
static uint64_t kernel_tick_ns(void)
{
	struct timespec res;

	if (clock_getres(CLOCK_MONOTONIC_COARSE, &res) != 0)
		return 0;
	return (uint64_t)res.tv_sec * NS_PER_S + (uint64_t)res.tv_nsec;
}

static void add_reason(const char *name, const char *err)
{
	size_t used = strlen(fallback_buf);

	snprintf(fallback_buf + used, sizeof(fallback_buf) - used, "%s%s: %s", used ? "; " : "", name, err);
}

static void fill_info(struct prof_sampler_info *out, const char *event, uint64_t period, unsigned cpus)
{
	*out = (struct prof_sampler_info){
		.source = src_names[ps.kind],
		.event = ps.kind == SRC_PERF_HW ? event : "time",
		.unit = ps.kind == SRC_PERF_HW ? "events" : "ns",
		.period = period,
		.period_min = ps.cpu[0].per.min,
		.period_max = ps.cpu[0].per.max,
		.fallback = fallback_buf[0] ? fallback_buf : 0,
		.cpus = cpus,
	};
	if (ps.kind == SRC_CPUTIME) {
		uint64_t tick = kernel_tick_ns();
		size_t used = strlen(fallback_buf);
		char res[96] = "the kernel's tick (its length unknown)";

		if (tick)
			snprintf(res, sizeof(res), "%llu us (the kernel's tick)", (unsigned long long)(tick / 1000));
		snprintf(fallback_buf + used, sizeof(fallback_buf) - used,
			 "%scputime_timer: CPU-time timers expire at the kernel tick only, effective resolution %s",
			 used ? "; " : "", res);
		out->fallback = fallback_buf;
	}
}

bool prof_sampler_start(struct probe_env *env, const struct prof_sampler_req *req, struct prof_sampler_info *out,
			const char **why)
{
	static const enum src_kind order_auto[] = { SRC_PERF_HW, SRC_TASK_CLOCK, SRC_CPUTIME };
	const enum src_kind *order = order_auto;
	unsigned norder = 3, cpus = 0;
	const char *event = req->event && *req->event ? req->event : "cycles";
	const char *no_perf = getenv("BAREMETRIC_PROF_NO_PERF");
	uint64_t period = 0;

	*why = 0;
	if (ps.running) {
		*why = "the sampler is already running";
		return false;
	}
	if (!req->hit) {
		*why = "no hit function";
		return false;
	}
	memset(&ps, 0, sizeof(ps));
	fallback_buf[0] = 0;
	ps.counter_hz = env ? env->counter_hz : 0;
	ps.hit = req->hit;
	ps.ctx = req->ctx;
	if (req->source == PROF_SRC_PMU)
		norder = 1;
	else if (req->source == PROF_SRC_TIMER)
		order = order_auto + 1, norder = 2;
	if (!install_handler(why))
		return false;
	ps.ncpu = find_threads();
	for (unsigned k = 0; k < norder && !cpus; k++) {
		enum src_kind kind = order[k];
		char err[240];

		period = req->period ? req->period
			 : kind == SRC_PERF_HW ? PROF_DEFAULT_PERIOD_EVENTS : PROF_DEFAULT_PERIOD_NS;
		if (kind == SRC_TASK_CLOCK && period < PERF_MIN_PERIOD_NS)
			period = PERF_MIN_PERIOD_NS;
		for (unsigned i = 0; i < ps.ncpu; i++)
			prof_period_init(&ps.cpu[i].per, period, req->seed + i * SEED_CPU_STRIDE);
		if (kind != SRC_CPUTIME && no_perf && strcmp(no_perf, "1") == 0) {
			add_reason(kind == SRC_PERF_HW ? event : src_names[kind], "skipped (BAREMETRIC_PROF_NO_PERF=1)");
			continue;
		}
		ps.kind = kind;
		/* The first period of each CPU is drawn here, by the thread that starts. */
		cpus = open_kind(kind, event, ps.cpu[0].per.max, err, sizeof(err));
		if (!cpus)
			add_reason(kind == SRC_PERF_HW ? event : src_names[kind], err);
	}
	if (!cpus) {
		snprintf(why_buf, sizeof(why_buf), "no sampling source: %s", fallback_buf);
		*why = why_buf;
		prof_sampler_stop();
		return false;
	}
	fill_info(out, event, period, cpus);
	ps.running = true;
	/* Arm the workers first, the calling thread (the probe's) last. */
	for (unsigned i = ps.ncpu; i-- > 0;)
		if (ps.cpu[i].fd >= 0 || ps.cpu[i].has_timer)
			rearm(&ps.cpu[i]);
	return true;
}

/* Put back what start changed. A worker's handler may be running right now: stopping tells it
 * not to re-arm, and we wait (bounded) until it is out before its source goes away. Pending
 * signals of ours are discarded by ignoring the signal before the old action comes back (an
 * old SIG_DFL would end the process on a late one). */
void prof_sampler_stop(void)
{
	uint64_t t0;
	bool drained = true;

	pid_t self = gettid();

	__atomic_store_n(&ps.stopping, 1, __ATOMIC_SEQ_CST);
	t0 = cycles_read();
	/* (Our own thread's handler cannot be half-way: it would have finished before we resumed.) */
	for (unsigned i = 0; i < ps.ncpu; i++)
		while (ps.cpu[i].tid != self && __atomic_load_n(&ps.cpu[i].in_handler, __ATOMIC_SEQ_CST)) {
			if (cycles_read() - t0 > ms_cycles(STOP_DRAIN_TIMEOUT_MS)) {
				drained = false;
				break;
			}
			cpu_relax();
		}
	for (unsigned i = 0; i < ps.ncpu; i++) {
		struct prof_cpu *c = &ps.cpu[i];
		struct itimerspec off = { 0 };

		if (c->fd >= 0)
			ioctl(c->fd, PERF_EVENT_IOC_DISABLE, 0);
		if (c->has_timer)
			timer_settime(c->timer, 0, &off, 0);
	}
	if (ps.handler_installed) {
		struct sigaction ign;

		memset(&ign, 0, sizeof(ign));
		ign.sa_handler = SIG_IGN;
		sigemptyset(&ign.sa_mask);
		sigaction(HOSTED_PROF_SIGNAL, &ign, 0);
	}
	close_sources();
	/* A handler that did not end in time could still touch its source: leave the signal
	 * ignored rather than put back an action that may kill the process. */
	if (ps.handler_installed && drained)
		sigaction(HOSTED_PROF_SIGNAL, &ps.old_action, 0);
	ps.handler_installed = !drained && ps.handler_installed;
	ps.running = false;
}

uint64_t prof_sampler_last_exit_cycles(unsigned cpu)
{
	return cpu < ps.ncpu ? ps.cpu[cpu].exit_cycles : 0;
}

/* Signals reach the sampled threads whenever the source fires: no window to open. */
void prof_sampler_window_open(void)
{
}

void prof_sampler_window_close(void)
{
}

/* The workers sample from prof_sampler_start on (each has its own event, armed there), so the
 * per-job hooks have nothing to add here. */
bool prof_sampler_cpu_begin(unsigned cpu)
{
	(void)cpu;
	return false;
}

void prof_sampler_cpu_end(unsigned cpu)
{
	(void)cpu;
}
