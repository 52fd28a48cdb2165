/* AArch64 memory-system platform records (see bench/facts/aarch64/mem.h). */
#include "bench/facts/aarch64/mem.h"

#include "arch/aarch64/cache_ops.h"
#include "arch/membw.h"
#include "lib/emit.h"

static const char *const l1ip_names[] = { "vpipt", "aivivt", "vipt", "pipt" };

static void emit_cache_ctl(void)
{
	struct aarch64_cache_ctl cc;
	struct record *r;

	aarch64_cache_ctl(&cc);
	r = emit_start("plat");
	rec_str(r, "kind", "cache_ctl");
	rec_hex(r, "ctr", cc.ctr);
	rec_u64(r, "iminline", cc.c.iminline);
	rec_u64(r, "dminline", cc.c.dminline);
	rec_u64(r, "cwg", cc.c.cwg);
	rec_u64(r, "erg", cc.c.erg);
	rec_str(r, "l1ip", l1ip_names[cc.c.l1ip & 3]);
	rec_bool(r, "idc", cc.c.idc);
	rec_bool(r, "dic", cc.c.dic);
	rec_hex(r, "dczid", cc.dczid);
	rec_u64(r, "zva_block", cc.z.block);
	rec_bool(r, "zva_prohibited", cc.z.prohibited);
	rec_bool(r, "ccidx", cc.ccidx);
	emit_finish();
}

static void emit_simd(void)
{
	struct simd_state s;
	struct a64_sve_state sve;
	struct record *r;

	simd_usable(&s);
	aarch64_sve_state(&sve);
	r = emit_start("plat");
	rec_str(r, "kind", "simd");
	if (sve.el != 0) /* at EL0 (hosted) the trap controls are the kernel's: not read */
		rec_hex(r, sve.el == 1 ? "cpacr" : "cptr_el2", sve.cpacr);
	rec_bool(r, "w64", s.usable[SIMD_64]);
	rec_bool(r, "w128", s.usable[SIMD_128]);
	rec_bool(r, "sve_present", sve.present);
	rec_bool(r, "sve", sve.enabled);
	if (sve.enabled)
		rec_u64(r, "sve_vl_bits", sve.vl_bits);
	else
		rec_str(r, "sve_reason", sve.why_not);
	rec_bool(r, "mops", !aarch64_mops_why_not());
	if (aarch64_mops_why_not())
		rec_str(r, "mops_reason", aarch64_mops_why_not());
	emit_finish();
}

void platform_a64_mem_emit(void)
{
	aarch64_sve_enable();
	emit_cache_ctl();
	emit_simd();
}
