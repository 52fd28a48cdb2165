/* Which widths the AArch64 bandwidth kernels can use (see simd.h). */
#include "arch/aarch64/simd.h"

#include "arch/aarch64/cpu.h"
#include "arch/membw.h"

#define EL1 1
#define CPACR_FPEN_SHIFT 20 /* CPACR_EL1.FPEN: 0b11 = no FP/SIMD trapping at EL1/EL0 */
#define CPACR_FPEN_MASK 3u
#define CPACR_FPEN_NO_TRAP 3u
#define CPTR_EL2_TFP (1ull << 10) /* CPTR_EL2 (E2H = 0): trap FP/SIMD */
#define SIMD_BASE_BITS 64

void simd_usable(struct simd_state *s)
{
	bool fp;

	*s = (struct simd_state){ { true, false, false, false }, { 0, 0, 0, 0 } };
	if (cpu_current_el() == EL1)
		fp = ((sysreg_read(cpacr_el1) >> CPACR_FPEN_SHIFT) & CPACR_FPEN_MASK) == CPACR_FPEN_NO_TRAP;
	else
		fp = !(sysreg_read(cptr_el2) & CPTR_EL2_TFP);
	s->usable[SIMD_128] = fp;
	s->why_not[SIMD_128] = fp ? 0 : "FP/SIMD access is trapped (CPACR_EL1.FPEN / CPTR_EL2.TFP)";
	s->why_not[SIMD_256] = "no 256-bit kernels on AArch64 (SVE not ported)";
	s->why_not[SIMD_512] = "no 512-bit kernels on AArch64 (SVE not ported)";
}

unsigned simd_bits(enum simd_width w)
{
	return SIMD_BASE_BITS << w;
}

const char *arch_membw_rep_unavailable(void)
{
	return "x86 string instructions: AArch64 has no rep stosb/movsb (FEAT_MOPS kernels not written)";
}
