/* A common start for all CPUs (smp_run_all), built only on smp_run/smp_wait and the cycle counter,
 * so every implementation of arch/smp.h shares this one copy: the bare-metal processors of each
 * CPU (efi/x86_64/smp.c, efi/aarch64/smp.c) and the hosted threads (hosted/smp.c). Every AP's
 * job first checks in and spins on a shared start flag; once all have checked in, the BSP
 * releases them with one store and runs its own share. */
/* OPT_FAST: -O2 (Makefile): timed window or what runs inside one. */
#include "arch/cycles.h" /* cycles_read, cpu_relax, compiler_barrier */
#include "arch/smp.h"

/* The start-flag spin reads the TSC once per this many polls (a cheaper loop, a tighter start). */
#define BARRIER_POLLS_PER_TSC_READ 64

struct barrier_slot {
	void *arg;
	uint64_t gen;
	uint64_t timeout;
	volatile uint32_t aborted;
} __attribute__((aligned(64))); /* one line each: the APs write `aborted` */

static struct {
	void (*volatile hook_begin)(unsigned cpu), (*volatile hook_end)(unsigned cpu);
	void (*volatile fn)(void *);
	volatile uint64_t go, abort, gen;
	volatile uint32_t ready;
	struct barrier_slot slots[SMP_MAX_CPUS];
} all;

/* The job every AP of smp_run_all runs: check in, spin on the start flag, run. The spin has no
 * `pause` (nor `yield`): its exit latency (about 140 cycles on recent Intel cores) would add to
 * the start skew, and the spin is short (it ends once every AP has checked in). */
static void barrier_job(void *arg)
{
	struct barrier_slot *s = arg;
	uint64_t start = cycles_read();
	unsigned polls = 0;

	__atomic_fetch_add(&all.ready, 1, __ATOMIC_SEQ_CST);
	while (all.go != s->gen) {
		if (++polls == BARRIER_POLLS_PER_TSC_READ) {
			polls = 0;
			if (all.abort == s->gen || cycles_read() - start > s->timeout) {
				s->aborted = 1;
				return;
			}
		}
		compiler_barrier();
	}
	if (all.hook_begin)
		all.hook_begin((unsigned)(s - all.slots));
	all.fn(s->arg);
	if (all.hook_end)
		all.hook_end((unsigned)(s - all.slots));
}

void smp_set_all_hooks(void (*begin)(unsigned cpu), void (*end)(unsigned cpu))
{
	all.hook_begin = begin;
	all.hook_end = end;
}

bool smp_run_all(unsigned n, void (*fn)(void *), void *const args[], uint64_t timeout_cycles)
{
	uint64_t gen = all.gen + 1, start;
	unsigned posted = 1;
	bool ok = true;

	if (n == 0 || n > smp_cpus_online())
		return false;
	all.gen = gen;
	all.fn = fn;
	all.ready = 0;
	for (unsigned i = 1; i < n; i++) {
		all.slots[i] = (struct barrier_slot){ args[i], gen, timeout_cycles, 0 };
		if (!smp_run(i, barrier_job, &all.slots[i]))
			break;
		posted++;
	}
	start = cycles_read();
	while (posted == n && all.ready != n - 1) {
		if (cycles_read() - start > timeout_cycles)
			break;
		cpu_relax();
	}
	if (posted != n || all.ready != n - 1) {
		all.abort = gen; /* the ones waiting give up without running fn */
		for (unsigned i = 1; i < posted; i++)
			(void)smp_wait(i, timeout_cycles);
		return false;
	}
	all.go = gen;
	fn(args[0]);
	for (unsigned i = 1; i < n; i++)
		ok = smp_wait(i, timeout_cycles) && !all.slots[i].aborted && ok;
	return ok;
}
