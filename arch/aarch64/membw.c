/* The AArch64 side of arch/membw.h: its own bandwidth kernels (load/store pair, DC ZVA, SVE,
 * FEAT_MOPS; the loops are in membw.S) with what each needs, and no rep string kernels. Which
 * widths are usable, and SVE's enabling: simd.c. */
/* OPT_FAST: -O2 (Makefile): timed window or what runs inside one. */
#include "arch/membw.h"

#include <stdbool.h>

#include "arch/aarch64/cpu.h"
#include "arch/aarch64/id_decode.h"
#include "arch/simd.h"
#include "lib/fmt.h"

const char *arch_membw_rep_unavailable(void)
{
	return "x86 string instructions: AArch64 has no rep stosb/movsb (see width=mops: FEAT_MOPS)";
}

void bw_read_pair64(void *, const void *, size_t, uint64_t);
void bw_write_pair64(void *, const void *, size_t, uint64_t);
void bw_copy_pair64(void *, const void *, size_t, uint64_t);
void bw_read_pair128(void *, const void *, size_t, uint64_t);
void bw_write_pair128(void *, const void *, size_t, uint64_t);
void bw_copy_pair128(void *, const void *, size_t, uint64_t);
void bw_write_zva(void *, const void *, size_t, uint64_t);
void bw_read_sve(void *, const void *, size_t, uint64_t);
void bw_write_sve(void *, const void *, size_t, uint64_t);
void bw_copy_sve(void *, const void *, size_t, uint64_t);
void bw_write_nt_sve(void *, const void *, size_t, uint64_t);
void bw_copy_nt_sve(void *, const void *, size_t, uint64_t);
void bw_write_mops(void *, const void *, size_t, uint64_t);
void bw_copy_mops(void *, const void *, size_t, uint64_t);

enum { K_PAIR128 = 3, K_ZVA = 6, K_SVE = 7, K_MOPS = 12 }; /* first index of each group below */

static struct membw_arch_kernel a64_kernels[] = {
	{ "read", "pair64", "ldp_x", bw_read_pair64, 1, 0, 0, 0, 0, 0 },
	{ "write", "pair64", "stp_x", bw_write_pair64, 0, 1, 0, 0, 0, 0 },
	{ "copy", "pair64", "ldp_x,stp_x", bw_copy_pair64, 1, 1, 0, 0, 0, 0 },
	{ "read", "pair128", "ldp_q", bw_read_pair128, 1, 0, 0, 0, 0, 0 },
	{ "write", "pair128", "stp_q", bw_write_pair128, 0, 1, 0, 0, 0, 0 },
	{ "copy", "pair128", "ldp_q,stp_q", bw_copy_pair128, 1, 1, 0, 0, 0, 0 },
	{ "write", "zva", "dc_zva", bw_write_zva, 0, 1, 0, 0, "block", 0 },
	{ "read", "sve", "ld1d", bw_read_sve, 1, 0, 0, 0, "vl_bits", 0 },
	{ "write", "sve", "st1d", bw_write_sve, 0, 1, 0, 0, "vl_bits", 0 },
	{ "copy", "sve", "ld1d,st1d", bw_copy_sve, 1, 1, 0, 0, "vl_bits", 0 },
	{ "write_nt", "sve", "stnt1d", bw_write_nt_sve, 0, 1, 0, 0, "vl_bits", 0 },
	{ "copy_nt", "sve", "ld1d,stnt1d", bw_copy_nt_sve, 1, 1, 0, 0, "vl_bits", 0 },
	{ "write", "mops", "setp,setm,sete", bw_write_mops, 0, 1, 0, 0, 0, 0 },
	{ "copy", "mops", "cpyp,cpym,cpye", bw_copy_mops, 1, 1, 0, 0, 0, 0 },
};

#define NUM_A64_KERNELS (sizeof(a64_kernels) / sizeof(a64_kernels[0]))

unsigned arch_membw_kernels(const struct membw_arch_kernel **k)
{
	static char block_str[24], vl_str[24];
	struct a64_dczid z = a64_dczid_decode(sysreg_read(dczid_el0));
	struct a64_sve_state sve;
	struct simd_state simd;
	bool fp;
	struct sbuf sb;

	simd_usable(&simd);
	fp = simd.usable[SIMD_128];
	aarch64_sve_state(&sve); /* enables SVE first (once) */
	sb_init(&sb, block_str, sizeof(block_str));
	sb_u64(&sb, z.block);
	sb_init(&sb, vl_str, sizeof(vl_str));
	sb_u64(&sb, sve.vl_bits);
	for (unsigned i = K_PAIR128; i < K_ZVA; i++)
		a64_kernels[i].why_not = fp ? 0 : "FP/SIMD access is trapped (CPACR_EL1.FPEN / CPTR_EL2.TFP)";
	a64_kernels[K_ZVA].why_not = !z.block ? "DCZID_EL0.BS gives a reserved block size (above 2 KiB)"
				     : z.prohibited ? "DC ZVA is prohibited (DCZID_EL0.DZP = 1)" : 0;
	a64_kernels[K_ZVA].granule = z.block;
	a64_kernels[K_ZVA].note_val = block_str;
	for (unsigned i = K_MOPS; i < NUM_A64_KERNELS; i++)
		a64_kernels[i].why_not = aarch64_mops_why_not();
	for (unsigned i = K_SVE; i < K_MOPS; i++) {
		a64_kernels[i].why_not = sve.enabled ? 0 : sve.why_not;
		a64_kernels[i].note_val = vl_str;
	}
	*k = a64_kernels;
	return NUM_A64_KERNELS;
}
