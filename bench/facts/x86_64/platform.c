/* CPU and TSC platform records (see platform.h). */
#include "bench/facts/x86_64/platform.h"
#include "bench/facts/caches.h"
#include "bench/facts/cpu.h"

#include "arch/cycles.h"
#include "arch/membw.h"
#include "arch/pmu.h"
#include "bench/core/summary.h"
#include "lib/emit.h"
#include "lib/fmt.h"
#include "lib/sort.h"

#define TSC_CAL_MAX_WINDOWS 32

void platform_emit_cpu(const struct cpu_info *ci)
{
	struct record *r = platform_cpu_record_start(ci);

	if (ci->ucode_valid)
		rec_hex(r, "ucode", ci->ucode);
	else
		rec_str(r, "ucode", "unreadable");
	rec_bool(r, "hypervisor", ci->hypervisor);
	rec_str(r, "hv_sig", ci->hv_sig[0] ? ci->hv_sig : "none");
	rec_hex(r, "max_leaf", ci->max_leaf);
	rec_hex(r, "max_ext_leaf", ci->max_ext_leaf);
	rec_u64(r, "logical_cpus", ci->logical_cpus);
	if (ci->logical_cpus_source)
		rec_str(r, "logical_cpus_source", ci->logical_cpus_source);
	emit_finish();

	r = emit_start("plat");
	rec_str(r, "kind", "features");
	rec_bool(r, "tsc", ci->tsc);
	rec_bool(r, "invariant_tsc", ci->invariant_tsc);
	rec_bool(r, "rdtscp", ci->rdtscp);
	rec_bool(r, "tsc_deadline", ci->tsc_deadline);
	rec_bool(r, "x2apic", ci->x2apic);
	rec_bool(r, "apic", ci->apic);
	rec_bool(r, "sse2", ci->sse2);
	rec_bool(r, "avx", ci->avx);
	rec_bool(r, "avx2", ci->avx2);
	rec_bool(r, "avx512f", ci->avx512f);
	rec_bool(r, "erms", ci->erms);
	rec_bool(r, "fsrm", ci->fsrm);
	rec_bool(r, "hypervisor", ci->hypervisor);
	rec_bool(r, "osxsave", ci->osxsave);
	emit_finish();

	platform_emit_caches(ci);
	if (!ci->num_caches)
		emit_msg(MSG_INFO, "CPUID describes no caches (leaf 4, 0x8000001D, 0x80000005/6 absent)");
}

void platform_pmu(const struct cpu_info *ci, struct pmu_info *pi)
{
	struct pmu_cpuid id;
	struct record *r;
	char family[24];
	struct sbuf sb;

	pmu_read_cpuid(ci, &id);
	pmu_discover(pi, ci, &id, &pmu_hw_ops);
	r = emit_start("plat");
	rec_str(r, "kind", "pmu");
	rec_bool(r, "present", pi->present);
	rec_str(r, "reason", pi->reason ? pi->reason : "unknown");
	rec_u64(r, "vendor_version", pi->version);
	rec_str(r, "pmu", pmu_kind_name(pi->kind));
	rec_u64(r, "gp", pi->num_gp);
	rec_u64(r, "gp_width", pi->gp_width);
	rec_u64(r, "fixed", pi->num_fixed);
	rec_u64(r, "fixed_width", pi->fixed_width);
	rec_hex(r, "fixed_mask", pi->fixed_avail);
	rec_hex(r, "arch_events", pi->arch_events);
	rec_bool(r, "full_width", pi->full_width);
	rec_bool(r, "global_ctrl", pi->global_ctrl);
	rec_bool(r, "status_reset", pi->status_reset);
	sb_init(&sb, family, sizeof(family));
	sb_puts(&sb, pi->family ? pi->family->name : "none");
	rec_str(r, "family_events", family);
	if (pmu_core_type_name(pi->core_type)) /* only on hybrid parts: whose counters these are */
		rec_str(r, "core_type", pmu_core_type_name(pi->core_type));
	rec_bool(r, "aperf_mperf", pi->aperf_mperf);
	rec_bool(r, "rapl", pi->rapl);
	rec_u64(r, "rapl_esu", pi->rapl_esu);
	rec_u64(r, "rapl_dram_esu", pi->rapl_dram_esu);
	rec_bool(r, "rapl_pkg", pi->rapl_pkg_msr != 0);
	rec_bool(r, "rapl_dram", pi->rapl_dram_msr != 0);
	rec_bool(r, "rapl_core", pi->rapl_core_msr != 0);
	rec_hex(r, "fixed_dead", pi->fixed_dead);
	rec_str(r, "lfence_serializing", pi->lfence_serializing ? pi->lfence_serializing : "unknown");
	rec_str(r, "freeze_while_smm", pi->freeze_while_smm ? pi->freeze_while_smm : "unknown");
	rec_str(r, "rdpmc", pi->rdpmc ? pi->rdpmc : "unknown");
	emit_finish();
	summary_line(pi->present ? "PMU: counters attached to the probes" : "PMU: absent (see the pmu record)");
}

void platform_emit_simd(void)
{
	struct simd_state s;
	struct record *r = emit_start("plat");

	simd_usable(&s);
	rec_str(r, "kind", "simd");
	rec_hex(r, "xcr0", s.xcr0);
	for (int w = 0; w < SIMD_NUM_WIDTHS; w++) {
		char key[16];
		struct sbuf sb;

		sb_init(&sb, key, sizeof(key));
		sb_puts(&sb, "w");
		sb_u64(&sb, simd_bits((enum simd_width)w));
		rec_bool(r, key, s.usable[w]);
	}
	emit_finish();
}

/* One reference clock's estimates of the TSC rate, one per window where the reference ran, and
 * their median (0: none). */
struct ref_estimates {
	uint64_t hz[TSC_CAL_MAX_WINDOWS];
	unsigned n;
	uint64_t median;
};

/* Window w's `plat kind=tsc_cal` record for one reference clock. */
static void emit_cal_window(const struct ref_clock *ref, const struct tsc_cal_result *res, unsigned w,
			    uint64_t window_ms)
{
	struct record *r = emit_start("plat");

	rec_str(r, "kind", "tsc_cal");
	rec_u64(r, "window", w);
	rec_u64(r, "ms", window_ms);
	rec_str(r, "source", ref->name);
	rec_bool(r, "ok", res->ok);
	rec_u64(r, "ref_ticks", res->ref_ticks);
	rec_u64(r, "ref_hz", ref->hz);
	rec_u64(r, "tsc_ticks", res->tsc_ticks);
	rec_u64(r, "hz", res->hz);
	emit_finish();
}

/* The `plat kind=tsc` record: the rate chosen and its source, each reference's median, CPUID's
 * rates, how far the references disagree; then the summary's lines. */
static void emit_tsc(const struct cpu_info *ci, const struct ref_clock *refs, const struct ref_estimates *est,
		     unsigned nrefs, uint64_t chosen, const char *source, uint64_t worst_ppm)
{
	struct record *r = emit_start("plat");

	rec_str(r, "kind", "tsc");
	rec_u64(r, "hz", chosen);
	rec_str(r, "source", source);
	for (unsigned i = 0; i < nrefs; i++) {
		char key[24];
		struct sbuf sb;

		sb_init(&sb, key, sizeof(key));
		sb_puts(&sb, "hz_");
		sb_puts(&sb, refs[i].name);
		rec_u64(r, key, est[i].median);
	}
	rec_u64(r, "hz_cpuid15", ci->tsc_hz_cpuid15);
	rec_u64(r, "hz_cpuid16", ci->tsc_hz_cpuid16);
	rec_u64(r, "disagree_ppm", worst_ppm);
	rec_bool(r, "invariant", ci->invariant_tsc);
	emit_finish();

	summary_value("TSC MHz", chosen / 1000, 3, source);
	if (!ci->invariant_tsc)
		summary_line("TSC is not invariant per CPUID: its rate may change with power states");
}

uint64_t platform_calibrate_tsc(const struct cpu_info *ci, const struct ref_clock *refs,
				unsigned nrefs, unsigned windows, uint64_t window_ms)
{
	struct ref_estimates est[TSC_CAL_MAX_REFS] = { 0 };
	uint64_t chosen = 0, worst_ppm = 0, lo = 0, hi = 0;
	const char *source = "none";
	unsigned w, i;

	if (windows > TSC_CAL_MAX_WINDOWS)
		windows = TSC_CAL_MAX_WINDOWS;
	if (nrefs > TSC_CAL_MAX_REFS)
		nrefs = TSC_CAL_MAX_REFS;
	for (w = 0; w < windows; w++) {
		struct tsc_cal_result res[TSC_CAL_MAX_REFS];

		tsc_cal_window(refs, nrefs, window_ms, cycles_read, res);
		for (i = 0; i < nrefs; i++) {
			emit_cal_window(&refs[i], &res[i], w, window_ms);
			if (res[i].ok)
				est[i].hz[est[i].n++] = res[i].hz;
		}
	}
	/* Prefer the finest reference (the last given: HPET over the PM timer); its median. */
	for (i = 0; i < nrefs; i++) {
		if (!est[i].n)
			continue;
		est[i].median = median_u64(est[i].hz, est[i].n);
		chosen = est[i].median;
		source = refs[i].name;
		if (!lo || est[i].median < lo)
			lo = est[i].median;
		if (est[i].median > hi)
			hi = est[i].median;
	}
	if (lo)
		worst_ppm = tsc_cal_ppm(lo, hi);
	if (!chosen && ci->tsc_hz_cpuid15) {
		chosen = ci->tsc_hz_cpuid15;
		source = "cpuid15";
	}
	emit_tsc(ci, refs, est, nrefs, chosen, source, worst_ppm);
	return chosen;
}
