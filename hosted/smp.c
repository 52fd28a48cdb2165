/* The SMP interface in the hosted build: one worker thread per other allowed CPU, each pinned to
 * its CPU, so the multi-processor probes (smp_hello, membw_mc) run under Linux as they do on bare
 * metal and the two can be compared on one machine. CPU 0 is the calling (main) thread, already
 * pinned by the hosted setup. An idle worker spins for SMP_IDLE_SPIN_US and then sleeps on a
 * futex, so idle workers cost the measured CPU nothing. Workers are never cancelled: the process
 * exit ends them. The hardware id of each CPU (smp_cpu_hw_id, smp_self_hw_id) is the OS's CPU
 * number, the one the thread is pinned to: the id the instruction set reports to user space
 * (arch_cpu_hw_id: x86_64 CPUID's APIC id) is not a stable name of a CPU under every hypervisor
 * (bhyve passes the host core's APIC id through: a vCPU's changes as the host moves it), and a
 * container or a CPU set with holes (taskset -c 0,3) is described by the OS's numbers only.
 * CPUID's id at each thread's start is kept for the record (isa_ids). CPU-neutral: the cycle
 * counter and cpu_relax come from arch/cycles.h. */
#define _GNU_SOURCE
#include "hosted/smp.h"

#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "arch/cpu_info.h"
#include "arch/cycles.h"

#define US_PER_S 1000000ull
#define START_TIMEOUT_US 2000000ull /* a worker must be pinned and waiting within 2 s */
#define FALLBACK_COUNTER_HZ 5000000000ull

struct worker {
	pthread_t thread;
	int os_cpu;
	uint32_t isa_id;           /* arch_cpu_hw_id() when the thread started (for the record) */
	volatile uint32_t ready;   /* running on its CPU and waiting for work */
	volatile uint32_t posted;  /* jobs posted (the futex word) */
	volatile uint32_t done;    /* jobs finished */
	void (*volatile fn)(void *);
	void *volatile arg;
} __attribute__((aligned(128)));

static struct {
	struct smp_report rep;
	struct worker w[SMP_MAX_CPUS]; /* [0] is the main thread */
	unsigned n_online;
	uint64_t idle_cycles;
} g = { .rep = { .reason = "hosted: multi-processor threads not started" }, .n_online = 1 };

static long futex(volatile uint32_t *word, int op, uint32_t val)
{
	return syscall(SYS_futex, (uint32_t *)word, op, val, 0, 0, 0);
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;

	w->isa_id = arch_cpu_hw_id();
	__atomic_store_n(&w->ready, 1, __ATOMIC_RELEASE);
	for (;;) {
		uint32_t seen = w->done;
		uint64_t start = cycles_read();

		while (__atomic_load_n(&w->posted, __ATOMIC_ACQUIRE) == seen) {
			if (cycles_read() - start > g.idle_cycles) {
				futex(&w->posted, FUTEX_WAIT_PRIVATE, seen);
				start = cycles_read();
			}
			cpu_relax();
		}
		w->fn(w->arg);
		__atomic_store_n(&w->done, seen + 1, __ATOMIC_RELEASE);
	}
	return 0;
}

/* The worker is created on its own CPU, not moved there once it runs: under SCHED_FIFO (the
 * hosted interrupt and profile tests use chrt) a new thread inherits the main thread's priority,
 * and on the main thread's CPU it would never run while the main thread spins waiting for it.
 * Returns 0, or why it did not start ("thread_create" includes a CPU the kernel refused: glibc
 * pins the thread before it runs and fails the creation if it cannot). */
static const char *start_worker(struct worker *w)
{
	pthread_attr_t attr;
	cpu_set_t one;
	const char *why = 0;

	CPU_ZERO(&one);
	CPU_SET(w->os_cpu, &one);
	if (pthread_attr_init(&attr) != 0)
		return "thread_create";
	if (pthread_attr_setaffinity_np(&attr, sizeof(one), &one) != 0)
		why = "affinity";
	else if (pthread_create(&w->thread, &attr, worker_main, w) != 0)
		why = "thread_create";
	pthread_attr_destroy(&attr);
	return why;
}

unsigned smp_hosted_start(int main_cpu, const cpu_set_t *allowed, unsigned max_cpus, uint64_t counter_hz)
{
	uint64_t hz = counter_hz ? counter_hz : FALLBACK_COUNTER_HZ, t0 = cycles_read();
	unsigned n = 1, candidates = 0;
	const char *why;

	g.rep = (struct smp_report){ 0 };
	g.w[0].os_cpu = main_cpu;
	g.w[0].isa_id = arch_cpu_hw_id();
	g.rep.bsp_hw_id = (uint32_t)main_cpu;
	g.idle_cycles = SMP_IDLE_SPIN_US * (hz / US_PER_S);
	if (max_cpus > SMP_MAX_CPUS)
		max_cpus = SMP_MAX_CPUS;
	for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		struct worker *w;

		if (!CPU_ISSET(cpu, allowed) || cpu == main_cpu)
			continue;
		candidates++;
		if (n >= max_cpus) {
			g.rep.not_started++;
			continue;
		}
		w = &g.w[n];
		*w = (struct worker){ .os_cpu = cpu };
		why = start_worker(w);
		if (why) {
			g.rep.failed[g.rep.num_failed++] = (struct smp_failure){ (uint32_t)cpu, 0, why };
			continue;
		}
		while (!w->ready && cycles_read() - t0 < START_TIMEOUT_US * (hz / US_PER_S))
			cpu_relax();
		if (!w->ready) {
			/* too slow: leave it out (a late one waits on a job never posted) */
			g.rep.failed[g.rep.num_failed++] = (struct smp_failure){ (uint32_t)cpu, 0, "timeout" };
			continue;
		}
		n++;
	}
	g.n_online = n;
	g.rep.cpus_madt = candidates + 1; /* the CPUs this process may run on */
	g.rep.cpus_online = n;
	g.rep.bringup_cycles = cycles_read() - t0;
	g.rep.how = "threads";
	g.rep.id_source = "os_cpu";
	g.rep.isa_ids_known = true;
	for (unsigned i = 0; i < n; i++)
		g.rep.isa_id[i] = g.w[i].isa_id;
	if (n == 1)
		g.rep.reason = candidates ? "no worker thread could be pinned to another CPU"
					  : "the process may run on one CPU only";
	return n;
}

void smp_start_none(const char *reason)
{
	int cpu = sched_getcpu(); /* the main thread may not be pinned: where it runs now */

	g.rep = (struct smp_report){ .reason = reason, .cpus_online = 1, .id_source = "os_cpu", .isa_ids_known = true };
	g.w[0].os_cpu = cpu;
	g.rep.bsp_hw_id = cpu < 0 ? 0 : (uint32_t)cpu;
	g.rep.isa_id[0] = g.w[0].isa_id = arch_cpu_hw_id();
	g.n_online = 1;
}

const struct smp_report *smp_report(void)
{
	return &g.rep;
}

unsigned smp_cpus_online(void)
{
	return g.n_online;
}

uint32_t smp_cpu_hw_id(unsigned cpu)
{
	return cpu < g.n_online && g.w[cpu].os_cpu >= 0 ? (uint32_t)g.w[cpu].os_cpu : 0;
}

/* Where the calling thread runs now: for a pinned thread, its pin (UINT32_MAX if the kernel
 * cannot say, which no CPU number equals). */
uint32_t smp_self_hw_id(void)
{
	int cpu = sched_getcpu();

	return cpu < 0 ? UINT32_MAX : (uint32_t)cpu;
}

static struct worker *worker(unsigned cpu)
{
	return cpu > 0 && cpu < g.n_online ? &g.w[cpu] : 0;
}

bool smp_run(unsigned cpu, void (*fn)(void *), void *arg)
{
	struct worker *w = worker(cpu);

	if (cpu == 0) {
		fn(arg);
		return true;
	}
	if (!w || w->posted != w->done)
		return false;
	w->fn = fn;
	w->arg = arg;
	__atomic_store_n(&w->posted, w->posted + 1, __ATOMIC_RELEASE);
	futex(&w->posted, FUTEX_WAKE_PRIVATE, 1);
	return true;
}

bool smp_wait(unsigned cpu, uint64_t timeout_cycles)
{
	struct worker *w = worker(cpu);
	uint64_t start = cycles_read();

	if (cpu == 0)
		return true;
	if (!w)
		return false;
	while (__atomic_load_n(&w->done, __ATOMIC_ACQUIRE) != w->posted) {
		if (cycles_read() - start > timeout_cycles)
			return false;
		cpu_relax();
	}
	return true;
}

enum smp_cpu_status smp_cpu_status(unsigned cpu)
{
	struct worker *w = worker(cpu);

	if (cpu == 0)
		return SMP_CPU_IDLE;
	if (!w)
		return SMP_CPU_NONE;
	return w->done != w->posted ? SMP_CPU_BUSY : SMP_CPU_IDLE;
}

/* A fault in a worker is a signal that ends the process (hosted faults are fatal): none to read. */
bool smp_cpu_fault(unsigned cpu, struct trap_info *out)
{
	(void)cpu;
	(void)out;
	return false;
}
