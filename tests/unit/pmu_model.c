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

/* Advance a running counter by `n` events, wrapping at its width. A wrap past the top is an
 * overflow: it sets the counter's bit in the global status where the PMU has one (Intel v2+,
 * AMD PerfMonV2; AMD legacy/core-ext and Intel v1 only leave the counter small), and with the
 * interrupt enabled (INT / the fixed field's PMI bit) raises a PMI. */
static void tick(struct pmu_model *m, uint32_t ctr, unsigned width, unsigned status_bit, uint64_t n, bool pmi)
{
	uint64_t v = get(m, ctr), mask = mask_of(width);

	if (n > mask - v) {
		if (find(m, status_msr(m)) >= 0)
			model_set(m, status_msr(m), get(m, status_msr(m)) | (1ull << status_bit));
		if (pmi)
			m->pmis++;
	}
	model_set(m, ctr, (v + n) & mask);
}

/* Intel events the model knows (SDM vol. 3B architectural events; Skylake event list). */
static const struct { uint8_t event, umask; } intel_known[] = {
	{ 0x3C, 0x00 }, /* CPU_CLK_UNHALTED.THREAD_P */
	{ 0xC0, 0x00 }, /* INST_RETIRED.ANY_P */
	{ 0x2E, 0x4F }, /* LONGEST_LAT_CACHE.REFERENCE */
	{ 0x2E, 0x41 }, /* LONGEST_LAT_CACHE.MISS */
	{ 0xC4, 0x00 }, /* BR_INST_RETIRED.ALL_BRANCHES */
	{ 0xC5, 0x00 }, /* BR_MISP_RETIRED.ALL_BRANCHES */
	{ 0x51, 0x01 }, /* L1D.REPLACEMENT */
	{ 0x24, 0x3F }, /* L2_RQSTS.MISS */
	{ 0x08, 0x01 }, /* DTLB_LOAD_MISSES.MISS_CAUSES_A_WALK */
	{ 0x85, 0x01 }, /* ITLB_MISSES.MISS_CAUSES_A_WALK */
	{ 0x83, 0x02 }, /* ICACHE_64B.IFTAG_MISS */
	{ 0xA3, 0x04 }, /* CYCLE_ACTIVITY.STALLS_TOTAL */
	{ 0xD1, 0x08 }, /* MEM_LOAD_RETIRED.L1_MISS */
	{ 0x24, 0x21 }, /* L2_RQSTS.DEMAND_DATA_RD_MISS */
};

#define INTEL_REF_XCLK_EVENT 0x3C
#define INTEL_REF_XCLK_UMASK 0x01
#define AMD_ITLB_WALK_EVENT 0x085
#define AMD_DMND_FILLS_EVENT 0x043

/* What a general-purpose counter with this event select gains when the modelled code causes `n`
 * of every event. */
static uint64_t gp_rate(const struct pmu_model *m, uint64_t sel, uint64_t n)
{
	unsigned event = (unsigned)(sel & 0xFF), umask = (unsigned)((sel >> 8) & 0xFF);

	if (!(sel & EVTSEL_OS))
		return 0; /* the probes run at CPL 0 */
	if (m->intel) {
		if (event == INTEL_REF_XCLK_EVENT && umask == INTEL_REF_XCLK_UMASK)
			return n / MODEL_XCLK_DIV;
		for (unsigned i = 0; i < sizeof(intel_known) / sizeof(intel_known[0]); i++)
			if (intel_known[i].event == event && intel_known[i].umask == umask)
				return n;
		return 0;
	}
	event |= (unsigned)((sel >> 32) & 0xF) << 8;
	switch (event) {
	case 0x076: case 0x0C0: case 0x0C2: case 0x0C3: /* cycles, retired instr., branches, mispredicts */
		return n;
	case 0x060: case 0x064: case 0x045: /* L2 requests, L2 status, L1 DTLB misses: any unit-mask bit */
		return umask ? n : 0;
	case AMD_ITLB_WALK_EVENT: /* page-table walks of the page sizes selected */
		return (umask & m->itlb_walk_sizes) ? n : 0;
	case AMD_DMND_FILLS_EVENT: /* demand data cache fills from the sources selected */
		return (umask & m->dmnd_fill_sources) ? n : 0;
	default:
		return 0;
	}
}

static void tick_rapl(struct pmu_model *m)
{
	if (!m->rapl)
		return;
	m->pkg_q32 += m->pkg_q32_per_tick;
	m->dram_q32 += m->dram_q32_per_tick;
	model_set(m, m->rapl_pkg_msr, (m->pkg_q32 >> (32 - m->rapl_pkg_esu)) & 0xFFFFFFFFull);
	model_set(m, m->rapl_dram_msr, (m->dram_q32 >> (32 - m->rapl_dram_esu)) & 0xFFFFFFFFull);
}

/* Every running counter sees `n` occurrences of each event the model knows. */
static void tick_counters(struct pmu_model *m, uint64_t n)
{
	for (unsigned i = 0; i < m->num_gp; i++) {
		uint64_t sel = get(m, gp_ctl(m, i));

		if ((sel & EVTSEL_EN) && global_on(m, i))
			tick(m, gp_ctr(m, i), m->gp_width, i, gp_rate(m, sel, n), sel & EVTSEL_INT);
	}
	/* fixed 0 instructions, 1 core cycles, 2 reference cycles at the TSC rate: OS field bit */
	for (unsigned j = 0; m->intel && j < m->num_fixed; j++) {
		uint64_t field = get(m, MSR_IA32_FIXED_CTR_CTRL) >> (FIXED_CTRL_FIELD_BITS * j);

		if ((field & FIXED_CTRL_EN_OS) && global_on(m, GLOBAL_FIXED_SHIFT + j) && !(m->fixed_stuck & (1u << j)))
			tick(m, MSR_IA32_FIXED_CTR0 + j, m->fixed_width, GLOBAL_FIXED_SHIFT + j, n, field & FIXED_CTRL_PMI);
	}
}

static void tick_all(struct pmu_model *m)
{
	if (m->dead)
		return;
	tick_counters(m, m->step);
	tick_rapl(m);
}

void model_events(struct pmu_model *m, uint64_t n)
{
	if (!m->dead)
		tick_counters(m, n);
}

/* The counters' bits in the global control / status layout: GP counter i at bit i, Intel fixed
 * counter j at bit 32 + j. */
static uint64_t counter_bits(const struct pmu_model *m)
{
	uint64_t b = mask_of(m->num_gp);

	if (m->intel)
		b |= mask_of(m->num_fixed) << GLOBAL_FIXED_SHIFT;
	return b;
}

/* Intel (SDM vol. 4, "Architectural MSRs" 38FH..391H): 390H clears the counters' bits, Trace
 * ToPA, Ovf_Uncore, OvfBuf and CondChgd (v2, v3: IA32_PERF_GLOBAL_OVF_CTRL), plus LBR_Frz,
 * CTR_Frz and ASCI from v4 on (IA32_PERF_GLOBAL_STATUS_RESET); 391H (v4+) sets all but
 * CondChgd. AMD PerfCntrGlobalStatusClr: the counters' bits, and bit 58 (LBRs frozen, which
 * Linux clears on Zen 4); the manual calls the rest reserved, and the model faults on them. */
static uint64_t clearable_bits(const struct pmu_model *m)
{
	uint64_t b = counter_bits(m);

	if (!m->intel)
		return b | GLOBAL_STATUS_LBR_FRZ;
	b |= GLOBAL_STATUS_TRACE_TOPA_PMI | GLOBAL_STATUS_OVF_UNCORE | GLOBAL_STATUS_OVF_BUF | GLOBAL_STATUS_COND_CHGD;
	if (m->version >= 4)
		b |= GLOBAL_STATUS_LBR_FRZ | GLOBAL_STATUS_CTR_FRZ | GLOBAL_STATUS_ASCI;
	return b;
}

static uint64_t settable_bits(const struct pmu_model *m)
{
	return clearable_bits(m) & ~GLOBAL_STATUS_COND_CHGD;
}

/* Writes to the global registers: 1 = handled (result in *st), 0 = an ordinary register. A bit
 * outside what the register defines faults (SDM: setting the enable bit of a counter that does
 * not exist in IA32_PERF_GLOBAL_CTRL raises #GP); the status registers are read-only. */
static int global_write(struct pmu_model *m, uint32_t msr, uint64_t value, int *st)
{
	uint32_t ctrl = m->intel ? MSR_IA32_PERF_GLOBAL_CTRL : MSR_AMD_PERF_CNTR_GLOBAL_CTL;
	uint32_t clear = m->intel ? MSR_IA32_PERF_GLOBAL_OVF_CTRL : MSR_AMD_PERF_CNTR_GLOBAL_STATUS_CLR;

	*st = -1;
	if (msr == status_msr(m))
		return 1;
	if (msr == ctrl) {
		if (value & ~counter_bits(m))
			return 1;
		model_set(m, msr, value);
	} else if (msr == clear) { /* write 1 to clear */
		if (value & ~clearable_bits(m))
			return 1;
		model_set(m, status_msr(m), get(m, status_msr(m)) & ~value);
	} else if (m->intel && msr == MSR_IA32_PERF_GLOBAL_STATUS_SET) { /* write 1 to set */
		if (value & ~settable_bits(m))
			return 1;
		model_set(m, status_msr(m), get(m, status_msr(m)) | value);
	} else {
		return 0;
	}
	*st = 0;
	return 1;
}

static bool refused_write(const struct pmu_model *m, uint32_t msr)
{
	for (unsigned i = 0; i < m->nrefused; i++)
		if (m->refused[i] == msr)
			return true;
	return false;
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
	int st;

	if (m->nwrites < MODEL_MAX_LOG)
		m->writes[m->nwrites++] = (struct model_write){ msr, value };
	if (m->dead)
		return 0;
	tick_all(m); /* time passes between accesses: running counters move */
	if (refused_write(m, msr))
		return -1;
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
	if (global_write(m, msr, value, &st))
		return st;
	model_set(m, msr, value);
	return 0;
}

static int m_rdpmc(void *ctx, uint32_t index, uint64_t *value)
{
	struct pmu_model *m = ctx;
	uint32_t i = index & ~RDPMC_FIXED;

	*value = 0;
	if (m->nrdpmc < MODEL_MAX_LOG)
		m->rdpmc_idx[m->nrdpmc++] = index;
	if (m->dead || m->rdpmc_faults)
		return -1; /* #UD under QEMU TCG, #GP or #UD from an intercepting hypervisor */
	if ((index & RDPMC_FIXED) ? !m->intel || i >= m->num_fixed : i >= m->num_gp)
		return -1; /* #GP: no such counter */
	tick_all(m);
	*value = get(m, (index & RDPMC_FIXED) ? MSR_IA32_FIXED_CTR0 + i : gp_ctr(m, i));
	return 0;
}

static void m_cpuid(void *ctx, uint32_t leaf, uint32_t sub, uint32_t out[4])
{
	struct pmu_model *m = ctx;

	out[0] = out[1] = out[2] = out[3] = 0;
	if (leaf == 0x1)
		out[2] = m->full_width ? 1u << 15 : 0;
	else if (leaf == 0xA && m->intel)
		out[0] = m->version | m->num_gp << 8 | m->gp_width << 16 | 7u << 24,
		out[3] = m->num_fixed | m->fixed_width << 5;
	else if (leaf == 0x7)
		out[3] = m->leaf7_edx;
	else if (leaf == 0x1A)
		out[0] = m->leaf1a_eax;
	else if (leaf == 0x23 && sub == 0)
		out[0] = m->leaf23[0];
	else if (leaf == 0x23 && sub == 1)
		out[0] = m->leaf23[1], out[1] = m->leaf23[2];
}

static void init(struct pmu_model *m)
{
	memset(m, 0, sizeof(*m));
	m->step = 1000;
	m->itlb_walk_sizes = 0xF;
	m->ops = (struct pmu_ops){ m_rdmsr, m_wrmsr, m_rdpmc, m, 0, m_cpuid };
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

void model_refuse_write(struct pmu_model *m, uint32_t msr)
{
	if (m->nrefused < MODEL_MAX_REFUSED)
		m->refused[m->nrefused++] = msr;
}

void model_rapl_intel(struct pmu_model *m, unsigned unit_esu, unsigned dram_esu, uint64_t pkg_q32,
		      uint64_t dram_q32)
{
	/* MSR_RAPL_POWER_UNIT: power unit 3:0 = 3, ESU 12:8, time unit 19:16 = 0xA */
	model_add(m, MSR_RAPL_POWER_UNIT, 0xA0003ull | ((uint64_t)unit_esu << 8));
	m->rapl = true;
	m->rapl_pkg_msr = MSR_PKG_ENERGY_STATUS;
	m->rapl_dram_msr = MSR_DRAM_ENERGY_STATUS;
	m->rapl_pkg_esu = unit_esu;
	m->rapl_dram_esu = dram_esu;
	m->pkg_q32_per_tick = pkg_q32;
	m->dram_q32_per_tick = dram_q32;
	m->pkg_q32 = m->dram_q32 = 0;
	model_add(m, MSR_PKG_ENERGY_STATUS, 0);
	model_add(m, MSR_DRAM_ENERGY_STATUS, 0);
	tick_rapl(m); /* a part that has run a while: the counters are not at 0 */
}

struct cpu_info model_cpu(bool intel, unsigned family, unsigned model)
{
	struct cpu_info ci = { 0 };

	ci.is_intel = intel;
	ci.is_amd = !intel;
	ci.family = family;
	ci.model = model;
	ci.max_leaf = 0x16;
	ci.max_ext_leaf = 0x80000022u;
	return ci;
}
