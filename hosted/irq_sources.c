/* The interrupt sources of bench/core/irq_platform.h in the hosted (Linux user-space) build (see
 * hosted/irq_hosted.h). What stands in for what, and the names the records carry:
 *
 * - IRQ_SRC_ONESHOT_TIMER `posix_timer_oneshot`: a POSIX timer (timer_create on CLOCK_MONOTONIC,
 *   SIGEV_THREAD_ID to the main thread, one per vector slot, each sending that vector's signal)
 *   armed one-shot at an absolute CLOCK_MONOTONIC instant. Arming reads the TSC, then
 *   CLOCK_MONOTONIC (vDSO), then the TSC, and sets the expiry to that clock reading plus the delay
 *   in ns (rounded up); the kernel's hrtimer fires when its CLOCK_MONOTONIC reaches it, never
 *   before. The deadline is the first TSC read plus the delay in ns converted back at the
 *   calibrated TSC rate: the clock was read after it, so the expiry is no earlier (up to the
 *   CLOCK_MONOTONIC/TSC rate difference over the delay: NTP slews at most 500 ppm). *arm_cycles
 *   is the bracket (the deadline's uncertainty), not the timer_settime call after it.
 * - IRQ_SRC_PERIODIC_TIMER `posix_timer_periodic`: the same timer with an interval. The kernel
 *   keeps its expiries on the grid start + k * period of CLOCK_MONOTONIC (re-armed when the
 *   signal is delivered, missed expiries counted as overruns); irq_periodic_expiry reads
 *   CLOCK_MONOTONIC between two TSC reads, finds the last grid point and converts the distance to
 *   it at the TSC rate from the bracket's midpoint, +- half the bracket, like the APIC count read.
 * - IRQ_SRC_SELF_IPI `tgkill_self`: tgkill of the main thread with the IPI vector's signal; the
 *   deadline is the TSC read before the system call.
 * - IRQ_SRC_DEADLINE_TIMER and IRQ_SRC_PLATFORM_TIMER: unavailable (the kernel owns the local APIC timer and
 *   the HPET). The guard of a hlt wait on the one-shot is a second POSIX one-shot timer on the
 *   guard vector (p->oneshot_per_vector): independent of the measured one.
 *
 * Pending = the signal is in the thread's pending set (sigpending); in service = one of our
 * handlers is running; nothing is ever EOI'd (the kernel restores the mask at sigreturn). Unlike
 * an APIC IRR bit, a timer's signal still pending when the timer is disarmed or re-armed is
 * dropped by the kernel at delivery (seen on Linux 6.18): a drain then takes nothing. */
#define _GNU_SOURCE
#include "hosted/irq_hosted.h"

#include <signal.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "arch/cycles.h"
#include "lib/record.h"

#ifndef sigev_notify_thread_id
#define sigev_notify_thread_id _sigev_un._tid
#endif

#define NS_PER_S 1000000000ull
#define MIN_PERIOD_NS 10000ull /* a shorter period would be a signal storm, not a measurement */

const char *const irq_source_names[IRQ_NUM_SOURCES] = {
	"posix_timer_oneshot", "tsc_deadline", "posix_timer_periodic", "tgkill_self", "hpet",
};

static struct {
	timer_t timer[HOSTED_IRQ_SLOTS];
	bool have[HOSTED_IRQ_SLOTS];
	uint64_t counter_hz, res_ns;
	uint64_t period_ns, start_ns; /* the periodic grid in CLOCK_MONOTONIC ns (0: not running) */
} hz;

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NS_PER_S + (uint64_t)ts.tv_nsec;
}

static struct timespec ns_ts(uint64_t ns)
{
	return (struct timespec){ .tv_sec = (time_t)(ns / NS_PER_S), .tv_nsec = (long)(ns % NS_PER_S) };
}

static uint64_t cycles_to_ns_up(uint64_t c)
{
	return (uint64_t)(((unsigned __int128)c * NS_PER_S + hz.counter_hz - 1) / hz.counter_hz);
}

static uint64_t ns_to_cycles(uint64_t ns)
{
	return (uint64_t)((unsigned __int128)ns * hz.counter_hz / NS_PER_S);
}

uint64_t hosted_irq_clock_res_ns(void)
{
	return hz.res_ns;
}

bool hosted_irq_sources_init(struct irq_platform *p, uint64_t counter_hz)
{
	struct timespec res;

	memset(p, 0, sizeof(*p));
	p->counter_hz = counter_hz;
	hz.counter_hz = counter_hz;
	if (!irq_available()) {
		p->reason = "hosted build: the interrupt signals could not be set up";
		return false;
	}
	if (!counter_hz) {
		p->reason = "TSC frequency unknown: deadlines cannot be converted";
		return false;
	}
	if (clock_getres(CLOCK_MONOTONIC, &res) == 0)
		hz.res_ns = (uint64_t)res.tv_sec * NS_PER_S + (uint64_t)res.tv_nsec;
	for (unsigned i = 0; i < HOSTED_IRQ_SLOTS; i++) {
		struct sigevent sev;

		memset(&sev, 0, sizeof(sev));
		sev.sigev_notify = SIGEV_THREAD_ID;
		sev.sigev_signo = hosted_irq_signal(hosted_irq_slot_vector(i));
		sev.sigev_notify_thread_id = hosted_irq_tid();
		hz.have[i] = timer_create(CLOCK_MONOTONIC, &sev, &hz.timer[i]) == 0;
		if (!hz.have[i]) {
			p->reason = "timer_create(CLOCK_MONOTONIC, SIGEV_THREAD_ID) failed";
			return false;
		}
	}
	p->timer_hz = NS_PER_S; /* the POSIX timers are programmed in ns */
	p->timer_ratio_q32 = (counter_hz << 32) / NS_PER_S;
	p->oneshot_per_vector = true;
	p->ready = true;
	return true;
}

/* monotonic_abs_ratio: TSC before the CLOCK_MONOTONIC read + the delay in ns at the TSC rate;
 * monotonic_grid: the periodic timer's last grid point, converted the same way. */
const char *const irq_deadline_names[IRQ_NUM_SOURCES] = {
	"monotonic_abs_ratio", "none", "monotonic_grid", "send_tsc", "none",
};

const char *irq_source_unavailable(const struct irq_platform *p, enum irq_source s)
{
	if (!p || !p->ready)
		return p && p->reason ? p->reason : "interrupt platform not initialised";
	switch (s) {
	case IRQ_SRC_DEADLINE_TIMER:
		return "hosted build: the TSC-deadline timer is the kernel's (no TSC-deadline source in user space)";
	case IRQ_SRC_PLATFORM_TIMER:
		return "hosted build: the HPET is the kernel's (no HPET interrupt reaches user space)";
	default:
		return s < IRQ_NUM_SOURCES ? 0 : "unknown source";
	}
}

static timer_t *timer_for(enum irq_source s, uint8_t vector)
{
	int slot = hosted_irq_slot(vector);

	if ((s != IRQ_SRC_ONESHOT_TIMER && s != IRQ_SRC_PERIODIC_TIMER) || slot < 0 || !hz.have[slot])
		return 0;
	return &hz.timer[slot];
}

static void timer_stop(timer_t *t)
{
	struct itimerspec off;

	memset(&off, 0, sizeof(off));
	if (t)
		timer_settime(*t, 0, &off, 0);
}

void irq_source_prepare(struct irq_platform *p, enum irq_source s, uint8_t vector)
{
	(void)p;
	timer_stop(timer_for(s, vector)); /* idle until armed */
}

uint64_t irq_source_arm(struct irq_platform *p, enum irq_source s, uint8_t vector, uint64_t delay_cycles,
			uint64_t *arm_cycles)
{
	uint64_t t0 = 0, t1 = 0, deadline = 0, ns, now;
	timer_t *t = timer_for(s, vector);
	struct itimerspec its;

	(void)p;
	if (s == IRQ_SRC_ONESHOT_TIMER && t) {
		ns = cycles_to_ns_up(delay_cycles);
		if (ns < 1)
			ns = 1;
		t0 = cycles_read();
		now = mono_ns();
		t1 = cycles_read();
		memset(&its, 0, sizeof(its));
		its.it_value = ns_ts(now + ns);
		timer_settime(*t, TIMER_ABSTIME, &its, 0);
		deadline = t0 + ns_to_cycles(ns);
	} else if (s == IRQ_SRC_SELF_IPI && hosted_irq_signal(vector)) {
		t0 = cycles_read();
		tgkill(getpid(), hosted_irq_tid(), hosted_irq_signal(vector));
		t1 = cycles_read();
		deadline = t0;
	}
	if (arm_cycles)
		*arm_cycles = t1 - t0;
	return deadline;
}

void irq_source_disarm(struct irq_platform *p, enum irq_source s, uint8_t vector)
{
	(void)p;
	timer_stop(timer_for(s, vector));
}

void irq_source_release(struct irq_platform *p, enum irq_source s, uint8_t vector)
{
	(void)p;
	timer_stop(timer_for(s, vector));
	if (s == IRQ_SRC_PERIODIC_TIMER || s == IRQ_SRC_ONESHOT_TIMER)
		hz.period_ns = 0; /* one timer per vector: releasing either stops both uses */
}

uint64_t irq_periodic_start(struct irq_platform *p, uint8_t vector, uint64_t period_cycles)
{
	timer_t *t = timer_for(IRQ_SRC_PERIODIC_TIMER, vector);
	/* the period in whole ns, nearest; returned converted back to TSC cycles */
	uint64_t ns = (uint64_t)(((unsigned __int128)period_cycles * NS_PER_S + p->counter_hz / 2) / p->counter_hz);
	struct itimerspec its;

	if (!t || ns < MIN_PERIOD_NS)
		return 0;
	hz.start_ns = mono_ns() + ns;
	hz.period_ns = ns;
	its.it_value = ns_ts(hz.start_ns);
	its.it_interval = ns_ts(ns);
	timer_settime(*t, TIMER_ABSTIME, &its, 0);
	return ns_to_cycles(ns);
}

uint64_t irq_periodic_expiry(const struct irq_platform *p, uint64_t *uncertainty)
{
	uint64_t ta = cycles_read(), now = mono_ns(), tb = cycles_read(), mid = ta + (tb - ta) / 2, last;

	(void)p;
	/* CLOCK_MONOTONIC was read somewhere in [ta, tb]: the midpoint, +- half the bracket and 1 ns. */
	if (uncertainty)
		*uncertainty = (tb - ta + 1) / 2 + ns_to_cycles(1);
	if (!hz.period_ns || now < hz.start_ns)
		return mid;
	last = hz.start_ns + (now - hz.start_ns) / hz.period_ns * hz.period_ns;
	return mid - ns_to_cycles(now - last);
}

static unsigned pending_ours(void)
{
	sigset_t set;
	unsigned n = 0;

	if (sigpending(&set) != 0)
		return 0;
	for (unsigned i = 0; i < HOSTED_IRQ_SLOTS; i++) {
		int sig = hosted_irq_signal(hosted_irq_slot_vector(i));

		n += sig && sigismember(&set, sig) == 1;
	}
	return n;
}

bool irq_vector_pending(const struct irq_platform *p, uint8_t vector)
{
	sigset_t set;
	int sig = hosted_irq_signal(vector);

	(void)p;
	return sig && sigpending(&set) == 0 && sigismember(&set, sig) == 1;
}

unsigned irq_platform_stale(const struct irq_platform *p, bool in_service)
{
	(void)p;
	return in_service ? hosted_irq_in_handler() : pending_ours();
}

unsigned irq_platform_eoi_in_service(struct irq_platform *p)
{
	(void)p;
	return 0; /* nothing to acknowledge: sigreturn restores the mask */
}

bool irq_platform_quiet(const struct irq_platform *p)
{
	(void)p;
	for (unsigned i = 0; i < HOSTED_IRQ_SLOTS; i++) {
		struct itimerspec cur;

		if (hz.have[i] && timer_gettime(hz.timer[i], &cur) == 0 &&
		    (cur.it_value.tv_sec || cur.it_value.tv_nsec))
			return false;
	}
	return !pending_ours() && !hosted_irq_in_handler();
}

void irq_platform_eoi(void *ctx)
{
	(void)ctx;
}
