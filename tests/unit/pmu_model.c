/* The PMU register model (see pmu_model.h). */
#include "tests/unit/pmu_model.h"

#include <string.h>

#include "arch/x86_64/pmu_regs.h"

static int find(const struct pmu_model *m, uint32_t msr)
{
	for (unsigned i = 0; i < m->n; i++)
		if (m->msr[i] == msr)
			return (int)i;
	return -1;
}

void model_add(struct pmu_model *m, uint32_t msr, uint64_t value)
{
	int i = find(m, msr);

	if (i < 0 && m->n < MODEL_MAX_MSRS) {
		i = (int)m->n++;
		m->msr[i] = msr;
	}
	if (i >= 0)
		m->val[i] = value;
}

bool model_get(const struct pmu_model *m, uint32_t msr, uint64_t *value)
{
	int i = find(m, msr);

	if (i < 0)
		return false;
	*value = m->val[i];
	return true;
}

void model_set(struct pmu_model *m, uint32_t msr, uint64_t value)
{
	int i = find(m, msr);

	if (i >= 0)
		m->val[i] = value;
}

static uint64_t get(const struct pmu_model *m, uint32_t msr)
{
	uint64_t v = 0;

	model_get(m, msr, &v);
	return v;
}

static uint64_t mask_of(unsigned width)
{
	return width >= 64 ? ~0ull : (1ull << width) - 1;
}

static uint32_t gp_ctl(const struct pmu_model *m, unsigned i)
{
	if (m->intel)
		return MSR_IA32_PERFEVTSEL0 + i;
	return m->kind == PMU_AMD_LEGACY ? MSR_AMD_PERF_CTL0 + i : MSR_AMD_CORE_PERF_CTL0 + 2 * i;
}

static uint32_t gp_ctr(const struct pmu_model *m, unsigned i)
{
	if (m->intel)
		return MSR_IA32_PMC0 + i;
	return m->kind == PMU_AMD_LEGACY ? MSR_AMD_PERF_CTR0 + i : MSR_AMD_CORE_PERF_CTR0 + 2 * i;
}

static bool global_on(const struct pmu_model *m, unsigned bit)
{
	if (m->intel && m->version >= 2)
		return get(m, MSR_IA32_PERF_GLOBAL_CTRL) & (1ull << bit);
	if (!m->intel && m->kind == PMU_AMD_V2)
		return get(m, MSR_AMD_PERF_CNTR_GLOBAL_CTL) & (1ull << bit);
	return true;
}

static uint32_t status_msr(const struct pmu_model *m)
{
	return m->intel ? MSR_IA32_PERF_GLOBAL_STATUS : MSR_AMD_PERF_CNTR_GLOBAL_STATUS;
}

/* Advance a running counter by `step`, wrapping at its width and flagging the overflow. */
static void tick(struct pmu_model *m, uint32_t ctr, unsigned width, unsigned status_bit)
{
	uint64_t v = get(m, ctr), nv = (v + m->step) & mask_of(width);

	if (nv < v && find(m, status_msr(m)) >= 0)
		model_set(m, status_msr(m), get(m, status_msr(m)) | (1ull << status_bit));
	model_set(m, ctr, nv);
}

static void tick_all(struct pmu_model *m)
{
	if (m->dead)
		return;
	for (unsigned i = 0; i < m->num_gp; i++)
		if ((get(m, gp_ctl(m, i)) & EVTSEL_EN) && global_on(m, i))
			tick(m, gp_ctr(m, i), m->gp_width, i);
	for (unsigned j = 0; m->intel && j < m->num_fixed; j++)
		if (((get(m, MSR_IA32_FIXED_CTR_CTRL) >> (4 * j)) & 3) && global_on(m, 32 + j))
			tick(m, MSR_IA32_FIXED_CTR0 + j, m->fixed_width, 32 + j);
}

static int m_rdmsr(void *ctx, uint32_t msr, uint64_t *value)
{
	struct pmu_model *m = ctx;

	if (m->dead) {
		*value = 0;
		return 0;
	}
	if (find(m, msr) < 0)
		return -1;
	tick_all(m);
	*value = get(m, msr);
	return 0;
}

static int m_wrmsr(void *ctx, uint32_t msr, uint64_t value)
{
	struct pmu_model *m = ctx;

	if (m->nwrites < MODEL_MAX_LOG)
		m->writes[m->nwrites++] = (struct model_write){ msr, value };
	if (m->dead)
		return 0;
	tick_all(m); /* time passes between accesses: running counters move */
	/* Full-width aliases write the counter they stand for. */
	if (m->intel && msr >= MSR_IA32_A_PMC0 && msr < MSR_IA32_A_PMC0 + m->num_gp) {
		if (!m->full_width)
			return -1;
		msr = MSR_IA32_PMC0 + (msr - MSR_IA32_A_PMC0);
	} else if (m->intel && msr >= MSR_IA32_PMC0 && msr < MSR_IA32_PMC0 + m->num_gp) {
		value = (uint64_t)(int64_t)(int32_t)value & mask_of(m->gp_width); /* 32 bits, sign-extended */
	}
	if (find(m, msr) < 0)
		return -1;
	/* Write-1-to-clear status registers. */
	if (m->intel && msr == MSR_IA32_PERF_GLOBAL_OVF_CTRL) {
		model_set(m, MSR_IA32_PERF_GLOBAL_STATUS, get(m, MSR_IA32_PERF_GLOBAL_STATUS) & ~value);
		return 0;
	}
	if (!m->intel && msr == MSR_AMD_PERF_CNTR_GLOBAL_STATUS_CLR) {
		model_set(m, MSR_AMD_PERF_CNTR_GLOBAL_STATUS, get(m, MSR_AMD_PERF_CNTR_GLOBAL_STATUS) & ~value);
		return 0;
	}
	model_set(m, msr, value);
	return 0;
}

static uint64_t m_rdpmc(void *ctx, uint32_t index)
{
	struct pmu_model *m = ctx;

	if (m->nrdpmc < MODEL_MAX_LOG)
		m->rdpmc_idx[m->nrdpmc++] = index;
	if (m->dead)
		return 0;
	tick_all(m);
	if (m->intel && (index & RDPMC_FIXED))
		return get(m, MSR_IA32_FIXED_CTR0 + (index & ~RDPMC_FIXED));
	return get(m, gp_ctr(m, index));
}

static void init(struct pmu_model *m)
{
	memset(m, 0, sizeof(*m));
	m->step = 1000;
	m->ops = (struct pmu_ops){ m_rdmsr, m_wrmsr, m_rdpmc, m, 0 };
}

void model_intel(struct pmu_model *m, unsigned version, unsigned num_gp, unsigned gp_width,
		 unsigned num_fixed, unsigned fixed_width, bool full_width)
{
	init(m);
	m->intel = true;
	m->kind = PMU_INTEL;
	m->version = version;
	m->num_gp = num_gp;
	m->gp_width = gp_width;
	m->num_fixed = version >= 2 ? num_fixed : 0;
	m->fixed_width = fixed_width;
	m->full_width = full_width;
	for (unsigned i = 0; i < num_gp; i++) {
		model_add(m, MSR_IA32_PERFEVTSEL0 + i, 0);
		model_add(m, MSR_IA32_PMC0 + i, 0);
	}
	model_add(m, MSR_IA32_PERF_CAPABILITIES, full_width ? PERF_CAP_FW_WRITE : 0);
	if (version >= 2) {
		for (unsigned j = 0; j < m->num_fixed; j++)
			model_add(m, MSR_IA32_FIXED_CTR0 + j, 0);
		model_add(m, MSR_IA32_FIXED_CTR_CTRL, 0);
		model_add(m, MSR_IA32_PERF_GLOBAL_STATUS, 0);
		model_add(m, MSR_IA32_PERF_GLOBAL_CTRL, 0);
		model_add(m, MSR_IA32_PERF_GLOBAL_OVF_CTRL, 0);
	}
	if (version >= 4) {
		model_add(m, MSR_IA32_PERF_GLOBAL_STATUS_SET, 0);
		model_add(m, MSR_IA32_PERF_GLOBAL_INUSE, 0);
	}
}

void model_amd(struct pmu_model *m, enum pmu_kind kind, unsigned num_gp)
{
	init(m);
	m->kind = kind;
	m->gp_width = AMD_COUNTER_WIDTH;
	m->num_gp = kind == PMU_AMD_LEGACY ? AMD_LEGACY_COUNTERS : kind == PMU_AMD_CORE_EXT ? AMD_CORE_EXT_COUNTERS : num_gp;
	/* The legacy MSRs exist on every AMD CPU (aliases of the first four core counters). */
	for (unsigned i = 0; i < AMD_LEGACY_COUNTERS; i++) {
		model_add(m, MSR_AMD_PERF_CTL0 + i, 0);
		model_add(m, MSR_AMD_PERF_CTR0 + i, 0);
	}
	if (kind != PMU_AMD_LEGACY)
		for (unsigned i = 0; i < m->num_gp; i++) {
			model_add(m, MSR_AMD_CORE_PERF_CTL0 + 2 * i, 0);
			model_add(m, MSR_AMD_CORE_PERF_CTR0 + 2 * i, 0);
		}
	if (kind == PMU_AMD_V2) {
		model_add(m, MSR_AMD_PERF_CNTR_GLOBAL_STATUS, 0);
		model_add(m, MSR_AMD_PERF_CNTR_GLOBAL_CTL, 0);
		model_add(m, MSR_AMD_PERF_CNTR_GLOBAL_STATUS_CLR, 0);
	}
}

void model_dead(struct pmu_model *m)
{
	m->dead = true;
}

void model_clear_log(struct pmu_model *m)
{
	m->nwrites = 0;
	m->nrdpmc = 0;
}
