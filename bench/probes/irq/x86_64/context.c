/* Conditions of a latency set: SMIs and effective frequency (see bench/probes/irq/context.h). */
/* OPT_FAST: -O2 (Makefile): interrupt path (delivery, handlers, EOI) timed by the irq probes and the profiler. */
#include "bench/probes/irq/context.h"

#include "arch/cpu_info.h"
#include "arch/pmu.h"
#include "bench/core/arena.h"
#include "lib/fmt.h"

#define CTX_NAMES 2 /* aperf, mperf */
/* Emulators read unknown MSRs as 0 (QEMU TCG): a zero count there proves nothing. */
#define SMI_ZERO_NOTE "reads 0 under a hypervisor, which may not implement MSR_SMI_COUNT"

static const char *const freq_names[CTX_NAMES] = { "aperf", "mperf" };
static void read_freq(const struct probe_env *env, const struct pmu_plan *plan, uint64_t *aperf, uint64_t *mperf)
{
	uint64_t v[PMU_MAX_EVENTS] = { 0 };

	pmu_read(env->pmu, &plan->pass[0], v);
	/* by name: the plan's order is its own */
	for (unsigned i = 0; i < plan->pass[0].n; i++) {
		if (str_eq(plan->pass[0].c[i].name, freq_names[0]))
			*aperf = v[i];
		else if (str_eq(plan->pass[0].c[i].name, freq_names[1]))
			*mperf = v[i];
	}
}

void irq_context_begin(struct probe_env *env, struct irq_context *c)
{
	*c = (struct irq_context){ 0 };
	c->smi_ok = arch_smi_count(env->cpu, &c->smi0);
	if (!env->pmu || !env->pmu->ops) {
		c->freq_why = "PMU not discovered";
	} else if (env->pmu->ops->unavailable) {
		c->freq_why = env->pmu->ops->unavailable;
	} else if (!(c->plan = arena_alloc(env->arena, sizeof(*c->plan), 8))) {
		c->freq_why = "no memory for the counter plan";
	} else {
		pmu_plan_events(env->pmu, freq_names, CTX_NAMES, c->plan);
		if (c->plan->nrefused || c->plan->pass[0].n != CTX_NAMES)
			c->freq_why = c->plan->nrefused ? c->plan->refused_why[0] : "APERF/MPERF not planned";
		else
			c->freq_ok = true;
	}
	if (c->freq_ok)
		read_freq(env, c->plan, &c->aperf0, &c->mperf0);
}

void irq_context_end(struct probe_env *env, struct irq_context *c)
{
	if (c->freq_ok)
		read_freq(env, c->plan, &c->aperf1, &c->mperf1);
	c->smi_ok = c->smi_ok && arch_smi_count(env->cpu, &c->smi1);
}

void irq_context_fields(const struct probe_env *env, struct record *r, const struct irq_context *c)
{
	if (c->smi_ok) {
		rec_u64(r, "smi_before", c->smi0);
		rec_u64(r, "smi_after", c->smi1);
		rec_u64(r, "smi_count", arch_smi_delta(c->smi0, c->smi1)); /* 32 bits: may wrap */
		if (env->cpu->hypervisor && !c->smi1)
			rec_str(r, "smi_note", SMI_ZERO_NOTE);
	} else {
		rec_str(r, "smi", env->cpu->is_intel ? "unavailable: MSR_SMI_COUNT unreadable"
			: "unavailable: MSR_SMI_COUNT is Intel-only");
	}
	if (c->freq_ok) {
		uint64_t da = c->aperf1 - c->aperf0, dm = c->mperf1 - c->mperf0;
		uint64_t ppm = irq_context_ppm(da, dm);

		rec_u64(r, "aperf_delta", da);
		rec_u64(r, "mperf_delta", dm);
		rec_u64(r, "aperf_mperf_ppm", ppm);
		rec_u64(r, "eff_hz", irq_context_eff_hz(env->counter_hz, ppm)); /* C0 time only */
	} else {
		rec_str(r, "eff_freq", c->freq_why ? c->freq_why : "unreadable");
	}
}
