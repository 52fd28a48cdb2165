/* Which widths the AArch64 bandwidth kernels can use (see simd.h), SVE's enabling and FEAT_MOPS's
 * check (the table of AArch64's own kernels that uses them: membw.c, which calls in here; nothing
 * here calls membw). */
#include "arch/simd.h"

#include "arch/aarch64/cpu.h"
#include "arch/aarch64/id_decode.h"
#include "arch/aarch64/sysreg_safe.h"

#define EL1 1
#define CPACR_FPEN_SHIFT 20 /* CPACR_EL1.FPEN: 0b11 = no FP/SIMD trapping at EL1/EL0 */
#define CPACR_FPEN_MASK 3u
#define CPACR_FPEN_NO_TRAP 3u
#define CPACR_ZEN_SHIFT 16 /* CPACR_EL1.ZEN: 0b11 = no SVE trapping at EL1/EL0 */
#define CPACR_ZEN_NO_TRAP (3ull << CPACR_ZEN_SHIFT)
#define ZCR_LEN_MAX 0xFull /* ZCR_EL1.LEN: (LEN + 1) * 128 bits asked; the CPU gives the largest it has below */
#define CPTR_EL2_TFP (1ull << 10) /* CPTR_EL2 (E2H = 0): trap FP/SIMD */
#define CPTR_EL2_TZ (1ull << 8)   /* CPTR_EL2 (E2H = 0): trap SVE */
#define HCR_EL2_E2H (1ull << 34)  /* E2H = 1: CPTR_EL2 has CPACR_EL1's layout (ZEN in 17:16) */
#define ISAR2_MOPS_SHIFT 16  /* ID_AA64ISAR2_EL1.MOPS [19:16]: FEAT_MOPS */
#define ID_FIELD_MASK 0xFu
#define MOPS_PROBE_BYTES 64
#define SIMD_BASE_BITS 64
#define BITS_PER_BYTE 8

uint64_t arch_sve_vl_bytes(void); /* simd.S: rdvl */

static struct a64_sve_state sve;

static bool fp_usable(void)
{
	if (cpu_current_el() == A64_EL0)
		return true; /* a Linux process: the kernel gives every task FP/SIMD (CPACR_EL1 is its) */
	if (cpu_current_el() == EL1)
		return ((sysreg_read(cpacr_el1) >> CPACR_FPEN_SHIFT) & CPACR_FPEN_MASK) == CPACR_FPEN_NO_TRAP;
	return !(sysreg_read(cptr_el2) & CPTR_EL2_TFP);
}

void aarch64_sve_enable(void)
{
	if (sve.tried)
		return;
	sve.tried = true;
	sve.present = a64_pfr0_sve(sysreg_read(id_aa64pfr0_el1));
	if (!sve.present) {
		sve.why_not = "CPU has no SVE (ID_AA64PFR0_EL1.SVE = 0)";
	} else if (!fp_usable()) {
		sve.why_not = "FP/SIMD access is trapped (CPACR_EL1.FPEN / CPTR_EL2.TFP): SVE needs it too";
	} else if (cpu_current_el() == A64_EL0) {
		/* A Linux process: the kernel enables SVE for every task on a CPU that has it and
		 * chose the vector length (prctl PR_SVE_SET_VL); we take it as it is. */
		sve.enabled = true;
		sve.vl_bits = (unsigned)arch_sve_vl_bytes() * BITS_PER_BYTE;
	} else if (cpu_current_el() != EL1) {
		/* At EL2: SVE untrapped by CPTR_EL2 (TZ clear, or ZEN = 0b11 with E2H), the longest
		 * vector through ZCR_EL2 (by encoding). */
		uint64_t cptr = sysreg_read(cptr_el2);

		cptr = (sysreg_read(hcr_el2) & HCR_EL2_E2H) ? cptr | CPACR_ZEN_NO_TRAP : cptr & ~CPTR_EL2_TZ;
		__asm__ volatile("msr cptr_el2, %0; isb" : : "r"(cptr) : "memory");
		sve.enabled = sysreg_write_safe(A64_SR_ZCR_EL2, ZCR_LEN_MAX);
		sve.why_not = sve.enabled ? 0 : "the ZCR_EL2 write was refused (CPTR_EL3.EZ?)";
		sve.vl_bits = sve.enabled ? (unsigned)arch_sve_vl_bytes() * BITS_PER_BYTE : 0;
	} else {
		/* SVE instructions and registers untrapped at EL1, then the longest vector the CPU has
		 * (ZCR_EL1 through the guarded stub: a hypervisor may trap it). */
		__asm__ volatile("msr cpacr_el1, %0; isb" : : "r"(sysreg_read(cpacr_el1) | CPACR_ZEN_NO_TRAP) : "memory");
		sve.enabled = sysreg_write_safe(A64_SR_ZCR_EL1, ZCR_LEN_MAX);
		sve.why_not = sve.enabled ? 0
					  : "the ZCR_EL1 write trapped (CPTR_EL2.TZ / CPTR_EL3.EZ?): see plat kind=sysreg";
		sve.vl_bits = sve.enabled ? (unsigned)arch_sve_vl_bytes() * BITS_PER_BYTE : 0;
	}
	sve.el = cpu_current_el();
	sve.cpacr = sve.el == A64_EL0 ? 0 : sve.el == EL1 ? sysreg_read(cpacr_el1) : sysreg_read(cptr_el2);
}

void aarch64_sve_state(struct a64_sve_state *s)
{
	aarch64_sve_enable();
	*s = sve;
}

/* x86_64's "enable the vector state" (membw_mc asks each core): nothing to do here. FP/SIMD
 * trapping is CPACR_EL1.FPEN as the firmware left it on the BSP, and every other core starts
 * with the BSP's CPACR_EL1 (efi/aarch64/smp.c). */
void simd_enable(void)
{
}

void simd_usable(struct simd_state *s)
{
	bool fp = fp_usable();

	*s = (struct simd_state){ { true, false, false, false }, { 0, 0, 0, 0 } };
	s->usable[SIMD_128] = fp;
	s->why_not[SIMD_128] = fp ? 0 : "FP/SIMD access is trapped (CPACR_EL1.FPEN / CPTR_EL2.TFP)";
	s->why_not[SIMD_256] = "no fixed 256-bit registers on AArch64: see width=sve";
	s->why_not[SIMD_512] = "no fixed 512-bit registers on AArch64: see width=sve";
}

unsigned simd_bits(enum simd_width w)
{
	return SIMD_BASE_BITS << w;
}

/* FEAT_MOPS: implemented by ID_AA64ISAR2_EL1 (read guarded), and one SETP/SETM/SETE that does
 * not fault (a hypervisor's HCRX_EL2.MSCEn = 0 leaves them UNDEFINED at EL1). Once. */
const char *aarch64_mops_why_not(void)
{
	static uint8_t probe_buf[MOPS_PROBE_BYTES];
	static const char *why = "not asked yet";
	static bool tried;
	struct sysreg_result r;
	uint64_t isar2;

	if (tried)
		return why;
	tried = true;
	if (!sysreg_read_safe(A64_SR_ID_AA64ISAR2_EL1, &isar2))
		return why = "ID_AA64ISAR2_EL1 could not be read: FEAT_MOPS unknown";
	if (!((isar2 >> ISAR2_MOPS_SHIFT) & ID_FIELD_MASK))
		return why = "FEAT_MOPS not implemented (ID_AA64ISAR2_EL1.MOPS = 0)";
	r = sysreg_try_mops(probe_buf, sizeof(probe_buf), 0);
	if (r.outcome == SYSREG_FAULT)
		return why = "SETP is UNDEFINED here although ID_AA64ISAR2_EL1.MOPS is set (HCRX_EL2.MSCEn = 0?)";
	if (r.outcome == SYSREG_NOT_TRIED && cpu_current_el() == EL1)
		return why = "FEAT_MOPS present but no vectors of ours catch its possible UNDEF "
			     "(HCRX_EL2.MSCEn): not used";
	return why = 0; /* at EL2 HCRX_EL2.MSCEn does not apply */
}
