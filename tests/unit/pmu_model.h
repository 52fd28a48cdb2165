/* A register model of an x86 PMU for the unit tests: the MSRs a given Intel (v1..v5) or AMD
 * (legacy, core-extension, PerfMonV2) PMU has, with their effect — counters advance while enabled
 * (event select enable bit with the OS bit, since the probes run at CPL 0, and, where there is one,
 * the global enable), wrap at their width and set the overflow status — and a log of every MSR
 * write and rdpmc in order. What it encodes is what the vendors document, not our tables:
 * - a general-purpose counter advances only for an event the model knows (the SDM's architectural
 *   events and Skylake event list; the AMD PPR's PMCx0NN events); any other select counts nothing;
 *   0x3C/0x01 counts REF_XCLK (a 100 MHz-class clock, MODEL_XCLK_DIV times slower than the core),
 *   while fixed counter 2 counts at the TSC rate; AMD PMCx085 counts only the walks whose page-size
 *   bit (0 4K, 1 2M, 2 1G, 3 coalesced 4K on Zen 3/4) is in the unit mask; PMCx043 counts only
 *   the demand fills whose source bit (dmnd_fill_sources) is in the unit mask;
 * - counter overflow (SDM vol. 3B "Architectural Performance Monitoring Version 2" and
 *   "Generating an Interrupt on Overflow"; AMD APM vol. 2 13.2): a counter wrapping past its
 *   width sets its bit in the global status where there is one (Intel v2+, AMD PerfMonV2) and
 *   otherwise just restarts from its low values (AMD legacy/core-ext, Intel v1); with its INT
 *   bit (fixed counters: the PMI bit of their field) it raises a PMI (`pmis` counts them);
 *   IA32_PERF_GLOBAL_OVF_CTRL / _STATUS_RESET and PerfCntrGlobalStatusClr clear status bits,
 *   IA32_PERF_GLOBAL_STATUS_SET (v4+) sets them; model_events advances every running counter by
 *   a given number of events, apart from the `step` each access adds;
 * - counter writes: IA32_PMCx keeps bits 31:0 sign-extended from bit 31; IA32_A_PMCx writes the
 *   full width when PERF_CAPABILITIES offers it, else faults;
 * - faults where hardware faults: an MSR the modelled CPU does not have, a write a hypervisor
 *   refuses (model_refuse_write), rdpmc of a counter that does not exist or that is intercepted
 *   (rdpmc_faults; QEMU TCG raises #UD), a write to a global status register (read-only), a
 *   global control bit of a counter that does not exist, a status clear / set bit the register
 *   does not define;
 * - RAPL (model_rapl): the energy counters advance with time in the unit the part really uses,
 *   MSR_RAPL_POWER_UNIT reporting its ESU (14 on the Skylake/Ice Lake servers) while their DRAM
 *   domain counts in fixed 2^-16 J; a domain that is not implemented reads 0;
 * - `dead` models QEMU TCG: every MSR accepts writes and reads 0, nothing counts, rdpmc faults. */
#ifndef TESTS_UNIT_PMU_MODEL_H
#define TESTS_UNIT_PMU_MODEL_H

#include <stdbool.h>
#include <stdint.h>

#include "arch/cpu_info.h"
#include "arch/pmu.h"
#include "tests/unit/test.h"

#define MODEL_MAX_MSRS 96
#define MODEL_MAX_LOG 256
#define MODEL_MAX_REFUSED 8
#define MODEL_XCLK_DIV 25 /* core clocks per REF_XCLK tick */

struct model_write {
	uint32_t msr;
	uint64_t value;
};

struct pmu_model {
	bool intel;
	enum pmu_kind kind;
	unsigned version, num_gp, gp_width, num_fixed, fixed_width;
	bool full_width, dead;
	bool rdpmc_faults;    /* a hypervisor intercepts rdpmc */
	uint32_t fixed_stuck; /* fixed counters that exist but never count (an unbacked virtual PMU) */
	uint64_t step; /* events a running counter gains per access */
	unsigned pmis; /* PMIs raised: overflows of counters with their interrupt enabled */
	uint32_t itlb_walk_sizes; /* AMD PMCx085 unit-mask bits the modelled code's walks hit */
	/* AMD PMCx043 (demand data cache fills by source) unit-mask bits the modelled code's demand
	 * fills come from: 0x01 the local L2, 0x02 the L3 or another L2 of the CCX, 0x08 DRAM, ... */
	uint32_t dmnd_fill_sources;
	unsigned nrefused;
	uint32_t refused[MODEL_MAX_REFUSED]; /* MSRs whose writes fault */
	/* CPUID of the CPU the code runs on, as ops.cpuid answers it: leaf 1 ECX PDCM (full_width),
	 * leaf 0xA from the model's counters (an Intel model), leaf 7 EDX, leaf 1AH EAX (a hybrid
	 * part's core type, bits 31:24), leaf 23H subleaf 0 EAX and subleaf 1 EAX/EBX; 0 otherwise. */
	uint32_t leaf7_edx;
	uint32_t leaf1a_eax;
	uint32_t leaf23[3];
	/* RAPL: energy in 2^-32 J, gained per access; the counters show it in their real units */
	bool rapl;
	uint32_t rapl_pkg_msr, rapl_dram_msr;
	unsigned rapl_pkg_esu, rapl_dram_esu;
	uint64_t pkg_q32_per_tick, dram_q32_per_tick, pkg_q32, dram_q32;
	unsigned n;
	uint32_t msr[MODEL_MAX_MSRS];
	uint64_t val[MODEL_MAX_MSRS];
	unsigned nwrites;
	struct model_write writes[MODEL_MAX_LOG];
	unsigned nrdpmc;
	uint32_t rdpmc_idx[MODEL_MAX_LOG];
	struct pmu_ops ops;
};

/* Intel: version, GP counters and width, fixed counters and width, full-width writes. */
void model_intel(struct pmu_model *m, unsigned version, unsigned num_gp, unsigned gp_width,
		 unsigned num_fixed, unsigned fixed_width, bool full_width);
/* AMD: kind PMU_AMD_LEGACY, PMU_AMD_CORE_EXT or PMU_AMD_V2 (num_gp for V2). */
void model_amd(struct pmu_model *m, enum pmu_kind kind, unsigned num_gp);
void model_dead(struct pmu_model *m);
/* The modelled code causes `n` occurrences of every event the model knows: each running counter
 * advances by what its event select counts of them (overflow and PMI as documented above). */
void model_events(struct pmu_model *m, uint64_t n);
/* Writes to `msr` fault from now on (a hypervisor filtering the PMU). */
void model_refuse_write(struct pmu_model *m, uint32_t msr);
/* Intel RAPL: MSR_RAPL_POWER_UNIT reports `unit_esu`; the package counts in it, DRAM in
 * `dram_esu` (16 on the fixed-unit servers, unit_esu elsewhere); per-access energies in 2^-32 J,
 * dram 0 = the DRAM domain is not implemented (its counter reads 0). */
void model_rapl_intel(struct pmu_model *m, unsigned unit_esu, unsigned dram_esu, uint64_t pkg_q32,
		      uint64_t dram_q32);
/* Add an MSR with a value (APERF, RAPL, ...). */
void model_add(struct pmu_model *m, uint32_t msr, uint64_t value);
bool model_get(const struct pmu_model *m, uint32_t msr, uint64_t *value);
void model_set(struct pmu_model *m, uint32_t msr, uint64_t value);
void model_clear_log(struct pmu_model *m);
/* The cpu_info of a modelled part: its vendor, family and model, with CPUID leaves high enough for
 * every leaf the PMU code reads. */
struct cpu_info model_cpu(bool intel, unsigned family, unsigned model);
/* Write k of the model's log went to MSR msr_ with value v. */
#define CHECK_MODEL_WRITE(m, k, msr_, v)                                   \
	do {                                                                \
		CHECK((k) < (m)->nwrites);                                  \
		CHECK_EQ_U64((m)->writes[k].msr, (msr_));                   \
		CHECK_EQ_U64((m)->writes[k].value, (v));                    \
	} while (0)

#endif
