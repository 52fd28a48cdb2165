/* PMUv3 on the machine (see pmu.h): discovery under a recovery point, programming, start/stop and
 * reads. Register writes that change what counts are followed by an isb before the code they
 * concern ("Synchronization of changes to the Performance Monitors registers": a write takes
 * effect for later instructions only after a context synchronization event); a group read starts
 * with an isb so the measured instructions have completed before the counters are sampled.
 * Counters are read through the direct PMEVCNTR<n>_EL0 registers (no PMSELR_EL0 indirection: one
 * mrs per counter, no select-then-isb pair). */
/* OPT_FAST: -O2 (Makefile): the profiler's sampling path and the counters it reads. */
#include "arch/pmu.h"

#include "arch/aarch64/cpu.h"
#include "arch/aarch64/pmu_regs.h"
#include "arch/aarch64/sysreg_safe.h"
#include "arch/traps.h"
#include "arch/probe_ops.h"

#define EL1 1
#define SELFTEST_SPINS 4096u /* instructions enough for a cycle counter to move */

#define sysreg_write(name, v) __asm__ volatile("msr " #name ", %0" : : "r"((uint64_t)(v)) : "memory")

/* n is a runtime value; the direct registers are named by n at assembly time: one case each. */
#define CASES_0_30(X)                                                                              \
	X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11) X(12) X(13) X(14) X(15) X(16) \
	X(17) X(18) X(19) X(20) X(21) X(22) X(23) X(24) X(25) X(26) X(27) X(28) X(29) X(30)

static uint64_t read_evcntr(unsigned n)
{
	switch (n) {
#define RD(i)   \
	case i: \
		return sysreg_read(pmevcntr##i##_el0);
		CASES_0_30(RD)
#undef RD
	default:
		return sysreg_read(pmccntr_el0);
	}
}

static void write_evcntr(unsigned n, uint64_t v)
{
	switch (n) {
#define WR(i)                                  \
	case i:                                \
		sysreg_write(pmevcntr##i##_el0, v); \
		break;
		CASES_0_30(WR)
#undef WR
	default:
		sysreg_write(pmccntr_el0, v);
	}
}

static void write_evtyper(unsigned n, uint32_t v)
{
	switch (n) {
#define WT(i)                                   \
	case i:                                 \
		sysreg_write(pmevtyper##i##_el0, v); \
		break;
		CASES_0_30(WT)
#undef WT
	default:
		sysreg_write(pmccfiltr_el0, v);
	}
}

static struct {
	const struct pmu_info *pi; /* the boot CPU's discovery, for the timer probe's methods */
	uint32_t cycles_prev;      /* PMCNTENSET_EL0.C before a64_pmu_cycles_on */
	uint64_t pmcr_prev;
} st;

/* Everything discovery reads or writes, run under the recovery point. Leaves nothing counting. */
static void probe_registers(struct pmu_info *pi)
{
	uint32_t cyc = 1u << A64_PMU_CYCLE_IDX;
	uint64_t pmcr, c0, c1;

	pi->pmcr_found = sysreg_read(pmcr_el0);
	pi->num_counters = a64_pmu_pmcr_n(pi->pmcr_found);
	pi->pmceid0 = sysreg_read(pmceid0_el0);
	pi->pmceid1 = sysreg_read(pmceid1_el0);

	/* Nothing counts or interrupts until a group is programmed. */
	sysreg_write(pmcntenclr_el0, A64_PMU_ALL_COUNTERS);
	sysreg_write(pmintenclr_el1, A64_PMU_ALL_COUNTERS);
	sysreg_write(pmovsclr_el0, A64_PMU_ALL_COUNTERS);
	/* The enable value: keep LC / LP only where they stuck (LP is RES0 before PMUv3p5). */
	sysreg_write(pmcr_el0, pi->pmcr);
	cpu_isb();
	pmcr = sysreg_read(pmcr_el0);
	if (!(pmcr & A64_PMCR_LP))
		pi->pmcr &= ~A64_PMCR_LP;
	if (!(pmcr & A64_PMCR_LC))
		pi->pmcr &= ~A64_PMCR_LC;
	pi->counter_width = (pi->pmcr & A64_PMCR_LP) ? 64 : 32;
	pi->cycle_width = (pi->pmcr & A64_PMCR_LC) ? 64 : 32;

	/* Self-test: the cycle counter, filtered to EL1, must move over a short spin. */
	sysreg_write(pmccfiltr_el0, pi->filter);
	sysreg_write(pmccntr_el0, 0);
	sysreg_write(pmcntenset_el0, cyc);
	cpu_isb();
	c0 = sysreg_read(pmccntr_el0);
	arch_spin(SELFTEST_SPINS);
	cpu_isb();
	c1 = sysreg_read(pmccntr_el0);
	sysreg_write(pmcntenclr_el0, cyc);
	sysreg_write(pmovsclr_el0, cyc);
	cpu_isb();
	pi->cycle_counter = c1 != c0;
}

/* Out of line: fault_try's second return resumes in this frame only. */
static __attribute__((noinline)) unsigned guarded_probe(struct pmu_info *pi)
{
	struct fault_jmp j;
	volatile int fault = fault_try(&j);

	if (fault)
		return (unsigned)fault;
	fault_arm(&j);
	probe_registers(pi);
	fault_disarm();
	return 0;
}

void pmu_discover(struct pmu_info *pi)
{
	uint64_t dfr0 = sysreg_read(id_aa64dfr0_el1), pfr0 = sysreg_read(id_aa64pfr0_el1);
	struct sysreg_result pmcr;

	*pi = (struct pmu_info){ 0 };
	pi->pmuver = (unsigned)(dfr0 >> A64_DFR0_PMUVER_SHIFT) & A64_ID_FIELD_MASK;
	pi->el2 = ((pfr0 >> A64_PFR0_EL2_SHIFT) & A64_ID_FIELD_MASK) != 0;
	pi->el3 = ((pfr0 >> A64_PFR0_EL3_SHIFT) & A64_ID_FIELD_MASK) != 0;
	pi->filter = a64_pmu_filter_el1(pi->el3);
	pi->evt_mask = a64_pmu_evt_mask(pi->pmuver);
	pi->pmcr = a64_pmu_pmcr_enable(pi->pmuver);
	if (cpu_current_el() == A64_EL0) {
		pi->reason = "EL0 (a Linux process): the PMU registers are the kernel's (PMUSERENR_EL0); "
			     "perf_event serves only pmu_check";
		return;
	}
	if (pi->pmuver == A64_PMUVER_NONE) {
		pi->reason = "ID_AA64DFR0_EL1.PMUVer = 0: no PMU (or a hypervisor hides it)";
		return;
	}
	if (pi->pmuver == A64_PMUVER_IMPDEF) {
		pi->reason = "ID_AA64DFR0_EL1.PMUVer = 0xF: an IMPLEMENTATION DEFINED PMU, not PMUv3";
		return;
	}
	if (cpu_current_el() != EL1 || !traps_installed()) {
		pi->reason = "not at EL1 with our vectors: PMU access cannot be fault-guarded (EL2 not supported)";
		return;
	}
	/* A trapped PMCR_EL0 (a hypervisor's MDCR_EL2.TPM/TPMCR makes it an UNDEF here) is learnt
	 * through the guarded access, without a fault record; the probe below covers the rest. */
	pmcr = sysreg_try_read(A64_SR_PMCR_EL0);
	if (pmcr.outcome == SYSREG_FAULT) {
		pi->fault_vector = a64_esr_ec(pmcr.esr) + 1;
		pi->reason = "PMCR_EL0 read trapped (a hypervisor's MDCR_EL2.TPM/TPMCR?): see plat kind=sysreg";
		return;
	}
	pi->fault_vector = guarded_probe(pi);
	if (pi->fault_vector) {
		pi->reason = "a PMU register access trapped (a hypervisor's MDCR_EL2.TPM/TPMCR?): see the fault record";
		return;
	}
	if (!pi->cycle_counter) {
		pi->reason = "PMCCNTR_EL0 did not count over a spin (PMU present but not counting at EL1)";
		return;
	}
	pi->present = true;
	pi->reason = "PMUv3 counting at EL1";
	st.pi = pi;
}

unsigned pmu_plan_events(const struct pmu_info *pi, const char *const *names, unsigned n,
			 struct pmu_plan *plan)
{
	return a64_pmu_plan_events(pi, names, n, plan);
}

bool pmu_has_event(const struct pmu_info *pi, const char *name)
{
	return a64_pmu_has_event(pi, name);
}

uint32_t pmu_program(const struct pmu_info *pi, const struct pmu_group *g, struct pmu_faults *f)
{
	uint32_t mask = a64_pmu_group_mask(g);

	(void)f;
	sysreg_write(pmcntenclr_el0, mask);
	sysreg_write(pmintenclr_el1, mask);
	for (unsigned k = 0; k < g->n; k++) {
		write_evtyper(g->c[k].idx, g->c[k].typer);
		write_evcntr(g->c[k].idx, 0);
	}
	sysreg_write(pmovsclr_el0, mask);
	/* E is global; counters outside the group stay as their own enable bits say. */
	sysreg_write(pmcr_el0, pi->pmcr);
	cpu_isb();
	return 0;
}

uint32_t pmu_start(const struct pmu_info *pi, const struct pmu_group *g, struct pmu_faults *f)
{
	(void)pi;
	(void)f;
	sysreg_write(pmcntenset_el0, a64_pmu_group_mask(g));
	cpu_isb();
	return 0;
}

uint64_t pmu_stop(const struct pmu_info *pi, const struct pmu_group *g)
{
	uint32_t mask = a64_pmu_group_mask(g);
	uint64_t ovf;

	(void)pi;
	sysreg_write(pmcntenclr_el0, mask);
	cpu_isb();
	ovf = sysreg_read(pmovsclr_el0) & mask;
	sysreg_write(pmovsclr_el0, ovf);
	return ovf;
}

uint32_t pmu_read(const struct pmu_info *pi, const struct pmu_group *g, uint64_t *out)
{
	(void)pi;
	cpu_isb();
	for (unsigned k = 0; k < g->n; k++)
		out[k] = read_evcntr(g->c[k].idx);
	return 0;
}

const char *pmu_read_fault_why(const struct pmu_counter *c)
{
	(void)c;
	return "PMU counter read faulted";
}

bool pmu_usable(const struct pmu_info *pi)
{
	return pi && pi->present;
}

/* No core types here yet (a big.LITTLE part's would be its MIDR): no counter set is refused for it. */
const char *pmu_core_type(const struct pmu_info *pi)
{
	(void)pi;
	return 0;
}

const char *pmu_cpu_core_type(const struct pmu_info *pi)
{
	(void)pi;
	return 0;
}

void pmu_discover_this_cpu(struct pmu_info *pi, const struct cpu_info *ci, const struct pmu_info *boot)
{
	(void)ci;
	*pi = *boot;
}

void pmu_cpu_prepare(const struct pmu_info *pi)
{
	if (!pmu_usable(pi))
		return;
	sysreg_write(pmcr_el0, pi->pmcr);
	cpu_isb();
}

void pmu_release(const struct pmu_info *pi, const struct pmu_group *g)
{
	uint32_t mask = a64_pmu_group_mask(g);

	(void)pi;
	sysreg_write(pmcntenclr_el0, mask);
	sysreg_write(pmovsclr_el0, mask);
	cpu_isb();
}

bool a64_pmu_cycles_on(void)
{
	uint32_t cyc = 1u << A64_PMU_CYCLE_IDX;

	if (!pmu_usable(st.pi))
		return false;
	st.cycles_prev = (uint32_t)sysreg_read(pmcntenset_el0) & cyc;
	st.pmcr_prev = sysreg_read(pmcr_el0);
	sysreg_write(pmccfiltr_el0, st.pi->filter);
	sysreg_write(pmcr_el0, st.pi->pmcr);
	sysreg_write(pmcntenset_el0, cyc);
	cpu_isb();
	return true;
}

void a64_pmu_cycles_restore(void)
{
	if (!pmu_usable(st.pi))
		return;
	if (!st.cycles_prev)
		sysreg_write(pmcntenclr_el0, 1u << A64_PMU_CYCLE_IDX);
	sysreg_write(pmcr_el0, st.pmcr_prev);
	cpu_isb();
}
