/* Platform records of the AArch64 build (see bench/facts/aarch64/platform.h). Same record kinds and field
 * names as bench/facts/x86_64/platform.c where the fact exists on both; x86-only fields are left out rather
 * than filled with zeros (a missing field is "not known", a zero would be a claim). */
#include "bench/facts/aarch64/platform.h"
#include "bench/facts/aarch64/emulator.h"
#include "bench/facts/caches.h"
#include "bench/facts/cpu.h"

#include "arch/cache_model.h"
#include "arch/aarch64/id_regs.h"
#include "arch/aarch64/paging.h"
#include "arch/cycles.h"
#include "bench/facts/aarch64/pmu.h"
#include "bench/core/summary.h"
#include "lib/emit.h"
#include "lib/fmt.h"

#define EL1 1                /* the only level whose translation regime is read */
#define SCTLR_M (1ull << 0)  /* stage-1 MMU enabled */
#define SCTLR_C (1ull << 2)  /* data caching */
#define SCTLR_I (1ull << 12) /* instruction caching */

void platform_aarch64_emit_cpu(const struct cpu_info *ci, struct pmu_info *pi)
{
	struct aarch64_id_regs id;
	struct record *r;

	aarch64_read_id_regs(&id);
	r = platform_cpu_record_start(ci);
	rec_str(r, "ucode", "unreadable");
	emit_finish();

	r = emit_start("plat");
	rec_str(r, "kind", "aarch64_id");
	rec_hex(r, "midr", id.midr);
	rec_hex(r, "revidr", id.revidr);
	rec_hex(r, "mpidr", id.mpidr);
	rec_u64(r, "el", id.current_el);
	rec_hex(r, "id_aa64pfr0", id.id_aa64pfr0);
	rec_hex(r, "id_aa64dfr0", id.id_aa64dfr0);
	rec_hex(r, "id_aa64isar0", id.id_aa64isar0);
	rec_hex(r, "id_aa64mmfr0", id.id_aa64mmfr0);
	rec_hex(r, "id_aa64mmfr2", id.id_aa64mmfr2);
	rec_hex(r, "id_aa64pfr1", id.id_aa64pfr1);
	rec_hex(r, "id_aa64isar2", id.id_aa64isar2);
	rec_hex(r, "id_aa64zfr0", id.id_aa64zfr0);
	rec_hex(r, "ctr", id.ctr);
	rec_hex(r, "clidr", id.clidr);
	rec_u64(r, "cntfrq", id.cntfrq);
	rec_u64(r, "pmu_version", id.pmu_version);
	emit_finish();

	platform_emit_caches(ci);
	if (!ci->num_caches)
		emit_msg(MSG_INFO, id.current_el == 0 ? "EL0 (a Linux process): CLIDR_EL1 and CCSIDR_EL1 are EL1's; "
							"the caches are sysfs's (plat kind=cache_sysfs)"
						      : "CLIDR_EL1 describes no caches");

	platform_a64pmu_emit(pi);
}

static bool has_l1_data(const struct cpu_info *ci)
{
	for (unsigned i = 0; i < ci->num_caches; i++)
		if (ci->caches[i].level == 1 && ci->caches[i].type != CACHE_INST)
			return true;
	return false;
}

void platform_aarch64_emit_emulator(struct cpu_info *ci, const struct pmu_info *pi, bool qemu_board)
{
	const char *sign, *why = a64_emulator_reason(sysreg_read(midr_el1), qemu_board, pi->present, pi->pmceid0,
						     has_l1_data(ci), &sign);
	struct record *r = emit_start("plat");

	rec_str(r, "kind", "emulator");
	rec_bool(r, "emulated", why != 0);
	rec_str(r, "sign", sign);
	rec_bool(r, "qemu_board", qemu_board);
	if (why)
		rec_str(r, "reason", why);
	emit_finish();
	if (why && !str_eq(sign, "midr_software")) /* MIDR 0x00 is read by arch_caches_unmodelled itself */
		str_copy(ci->hv_sig, A64_HV_SIG_QEMU_TCG, sizeof(ci->hv_sig));
}

uint64_t platform_aarch64_timer(void)
{
	uint64_t hz = cycles_cntfrq();
	struct record *r = emit_start("plat");

	rec_str(r, "kind", "tsc");
	rec_u64(r, "hz", hz);
	rec_str(r, "source", "cntfrq");
	/* no disagree_ppm: one source, not measured against another clock: nothing to compare */
	if (!hz)
		rec_str(r, "reason", "CNTFRQ_EL0 is 0: no time base");
	rec_bool(r, "invariant", true); /* the generic timer's count rate is constant by architecture */
	emit_finish();
	summary_value("generic timer MHz", hz / 1000, 3, "CNTFRQ_EL0");
	if (!hz)
		emit_msg(MSG_ERROR, "CNTFRQ_EL0 is 0: the firmware did not program the timer frequency");
	return hz;
}

void platform_aarch64_emit_mmu(const void *addr)
{
	struct aarch64_mmu m;
	bool ok = aarch64_mmu_state(addr, &m);
	struct record *r = emit_start("plat");

	rec_str(r, "kind", "mmu");
	rec_u64(r, "el", m.el);
	if (m.el != EL1) {
		rec_str(r, "reason", "not at EL1: the EL2 translation regime is not read");
		emit_finish();
		return;
	}
	rec_hex(r, "sctlr", m.sctlr);
	rec_bool(r, "mmu", (m.sctlr & SCTLR_M) != 0);
	rec_bool(r, "dcache", (m.sctlr & SCTLR_C) != 0);
	rec_bool(r, "icache", (m.sctlr & SCTLR_I) != 0);
	rec_hex(r, "tcr", m.tcr);
	rec_hex(r, "mair", m.mair);
	rec_hex(r, "ttbr0", m.ttbr0);
	rec_str(r, "granule", m.w.granule_shift ? a64_size_name(1ull << m.w.granule_shift) : "reserved");
	rec_u64(r, "va_bits", m.w.va_bits);
	rec_hex(r, "addr", (uint64_t)(uintptr_t)addr);
	if (!ok) {
		rec_str(r, "reason", "TTBR0 walks disabled (TCR_EL1.EPD0) or the address is out of range");
	} else if (!m.w.mapped) {
		rec_str(r, "reason", "the address is not mapped");
		rec_u64(r, "fault_level", m.w.level);
	} else {
		const char *name = a64_size_name(m.w.map_bytes);

		rec_str(r, "page", name ? name : "other");
		rec_u64(r, "map_bytes", m.w.map_bytes);
		rec_u64(r, "level", m.w.level);
		rec_u64(r, "start_level", m.w.start_level);
		rec_u64(r, "attr_index", m.w.attr_index);
		rec_hex(r, "attr", m.attr);
	}
	emit_finish();
}

