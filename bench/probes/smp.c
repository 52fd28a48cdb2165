/* Probe `smp_hello`: every online CPU runs one function at a common start (smp_run_all: all check
 * in, then the BSP releases them together) that records its APIC id and a TSC stamp. The sample
 * set holds, per CPU, its start skew: its stamp minus the earliest one, in cycles. This shows the
 * processors are up and taking work, and what "starting at once" means on this machine (the
 * release is one cache-line write every AP is spinning on; the TSCs are assumed synchronised, as
 * the firmware leaves them). One warm-up round first. Skipped when only one CPU is online.
 *
 * Test probe `fault_ap_ud2` (not in the default suite): CPU 1 executes ud2 inside a job. Its
 * recovery point ends the job; the BSP, waiting bounded, reads the exception and turns it into a
 * `fault` record (expected), then checks that the AP takes a job again. */
/* OPT_SMALL: -Os (Makefile): smp_hello's stamp is one counter read; the rest is set-up and records. */
#include "arch/cycles.h"
#include "arch/smp.h"
#include "arch/traps.h"
#include "bench/core/probe.h"
#include "bench/core/summary.h"
#include "lib/emit.h"
#include "lib/fmt.h"

#define HELLO_ROUNDS 2          /* a warm-up, then the round that is kept */
#define HELLO_TIMEOUT_MS 1000   /* for the check-in and for each CPU's job */
#define FALLBACK_COUNTER_HZ 5000000000ull
#define IDS_MAX 512

struct hello {
	uint64_t tsc;
	uint32_t apic_id;
	uint32_t ran;
} __attribute__((aligned(64))); /* one line each: no CPU writes into another's */

static void hello(void *arg)
{
	struct hello *h = arg;

	h->tsc = cycles_read();
	h->apic_id = smp_self_hw_id();
	h->ran = 1;
}

/* What went wrong on AP `cpu`, as a message; an exception it took also becomes a `fault` record
 * (emitted here, on the BSP: APs never emit). */
static void report_ap_problem(struct probe_env *env, const char *probe, unsigned cpu)
{
	struct trap_info t;
	char line[160];
	struct sbuf sb;

	sb_init(&sb, line, sizeof(line));
	sb_puts(&sb, probe);
	sb_puts(&sb, ": CPU ");
	sb_u64(&sb, cpu);
	sb_puts(&sb, " (APIC id ");
	sb_u64(&sb, smp_cpu_hw_id(cpu));
	sb_puts(&sb, ") ");
	if (smp_cpu_fault(cpu, &t)) {
		env->report_fault(&t);
		sb_puts(&sb, "took ");
		sb_puts(&sb, t.name);
		sb_puts(&sb, " at rip ");
		sb_hex(&sb, t.rip);
	} else if (smp_cpu_status(cpu) == SMP_CPU_BUSY) {
		sb_puts(&sb, "is still busy: a job did not finish in time");
	} else {
		sb_puts(&sb, "did not take the job");
	}
	emit_msg(MSG_ERROR, line);
}

/* CPU `cpu` ran the job but named itself `seen`: the job ran elsewhere than asked, or the ids are
 * not stable names (the hosted build uses the OS's CPU numbers for that reason, hosted/smp.c). */
static void report_wrong_id(unsigned cpu, uint32_t seen)
{
	char line[160];
	struct sbuf sb;

	sb_init(&sb, line, sizeof(line));
	sb_puts(&sb, "smp_hello: CPU ");
	sb_u64(&sb, cpu);
	sb_puts(&sb, " reported hardware id ");
	sb_u64(&sb, seen);
	sb_puts(&sb, ", another than the one it was started as (");
	sb_u64(&sb, smp_cpu_hw_id(cpu));
	sb_puts(&sb, ")");
	emit_msg(MSG_ERROR, line);
}

/* Skip `probe`: one CPU, and why (smp_report says, when it knows). */
static enum probe_status skip_one_cpu(const char *probe)
{
	const char *why = smp_report()->reason;
	char line[200];
	struct sbuf sb;

	sb_init(&sb, line, sizeof(line));
	sb_puts(&sb, "only one CPU online: ");
	sb_puts(&sb, why ? why : "see plat kind=smp");
	emit_skip(probe, line);
	return PROBE_SKIPPED;
}

static enum probe_status smp_hello_run(struct probe_env *env)
{
	unsigned n = smp_cpus_online();
	uint64_t hz = env->counter_hz ? env->counter_hz : FALLBACK_COUNTER_HZ;
	uint64_t timeout = hz / 1000 * HELLO_TIMEOUT_MS, first = ~0ull, max = 0;
	struct hello *h;
	void **args;
	uint64_t *v;
	char ids[IDS_MAX];
	struct sbuf sb;
	struct record *r;
	uint32_t set;

	if (n < 2)
		return skip_one_cpu("smp_hello");
	h = arena_alloc(env->arena, n * sizeof(*h), 64);
	args = arena_alloc(env->arena, n * sizeof(*args), 8);
	v = probe_sample_buffer(env, n);
	if (!h || !args || !v) {
		emit_skip("smp_hello", "buffers do not fit in the arena (raise arena_mb)");
		return PROBE_SKIPPED;
	}
	for (unsigned i = 0; i < n; i++)
		args[i] = &h[i];
	for (unsigned round = 0; round < HELLO_ROUNDS; round++) {
		for (unsigned i = 0; i < n; i++)
			h[i] = (struct hello){ 0 };
		if (!smp_run_all(n, hello, args, timeout)) {
			for (unsigned i = 1; i < n; i++)
				if (!h[i].ran || smp_cpu_status(i) != SMP_CPU_IDLE)
					report_ap_problem(env, "smp_hello", i);
			return PROBE_FAILED;
		}
	}
	sb_init(&sb, ids, sizeof(ids));
	for (unsigned i = 0; i < n; i++) {
		if (h[i].apic_id != smp_cpu_hw_id(i)) {
			report_wrong_id(i, h[i].apic_id);
			return PROBE_FAILED;
		}
		if (h[i].tsc < first)
			first = h[i].tsc;
		if (i)
			sb_putc(&sb, ',');
		sb_u64(&sb, h[i].apic_id);
	}
	for (unsigned i = 0; i < n; i++) {
		v[i] = h[i].tsc - first;
		if (v[i] > max)
			max = v[i];
	}
	set = probe_declare_set(env, &r, "smp_hello", n, 1, 0);
	rec_u64(r, "cpus", n);
	rec_str(r, "apic_ids", ids);
	rec_str(r, "what", "start_skew");
	emit_finish();
	emit_samples(set, v, n);

	sb_init(&sb, ids, sizeof(ids));
	sb_puts(&sb, "smp_hello: ");
	sb_u64(&sb, n);
	sb_puts(&sb, " CPUs, largest start skew ");
	sb_u64(&sb, max);
	sb_puts(&sb, " cycles");
	summary_line(ids);
	return PROBE_OK;
}

const struct probe_desc probe_smp_hello = {
	.name = "smp_hello",
	.what = "every CPU records its APIC id and TSC at a common start: start skew per CPU",
	.run = smp_hello_run,
};

static void ap_ud2(void *arg)
{
	(void)arg;
	arch_provoke_undefined();
}

static void ap_mark(void *arg)
{
	*(volatile uint32_t *)arg = 1;
}

static enum probe_status fault_ap_ud2_run(struct probe_env *env)
{
	uint64_t timeout = (env->counter_hz ? env->counter_hz : FALLBACK_COUNTER_HZ) / 1000 * HELLO_TIMEOUT_MS;
	volatile uint32_t marked = 0;
	struct trap_info t;
	char line[96];
	struct sbuf sb;

	if (smp_cpus_online() < 2)
		return skip_one_cpu("fault_ap_ud2");
	if (!smp_run(1, ap_ud2, 0)) {
		report_ap_problem(env, "fault_ap_ud2", 1);
		return PROBE_FAILED;
	}
	if (smp_wait(1, timeout) || !smp_cpu_fault(1, &t)) {
		emit_msg(MSG_ERROR, "fault_ap_ud2: the job on CPU 1 ended without the #UD it provokes");
		return PROBE_FAILED;
	}
	env->report_fault(&t);
	sb_init(&sb, line, sizeof(line));
	sb_puts(&sb, "fault_ap_ud2: the fault above was taken on CPU 1, APIC id ");
	sb_u64(&sb, smp_cpu_hw_id(1));
	emit_msg(MSG_INFO, line);
	if (!smp_run(1, ap_mark, (void *)&marked) || !smp_wait(1, timeout) || !marked) {
		emit_msg(MSG_ERROR, "fault_ap_ud2: CPU 1 took no job after its fault");
		return PROBE_FAILED;
	}
	return PROBE_OK;
}

const struct probe_desc probe_fault_ap_ud2 = {
	.name = "fault_ap_ud2",
	.what = "an AP executes ud2 in a job: expects #UD reported by the BSP, the AP still working",
	.run = fault_ap_ud2_run,
	.expects_fault = true,
};
