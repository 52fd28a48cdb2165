/* Enabling and checking SIMD state (Intel SDM vol. 1 13.2-13.3, vol. 3 2.5-2.6). */
#include "arch/simd.h"

#include "arch/x86_64/cpu.h"

#define CPUID1_ECX_XSAVE (1u << 26)
#define CPUID1_ECX_OSXSAVE (1u << 27)
#define CPUID1_ECX_AVX (1u << 28)
#define CPUID1_EDX_SSE2 (1u << 26)
#define CPUID7_EBX_AVX512F (1u << 16)
#define LEAF_XSAVE 0xD
#define XSAVE_SUB_FEATURES 1 /* leaf 0xD subleaf 1 EAX: XSAVEOPT, XSAVEC, XGETBV1, XSAVES */
#define CPUID1_ECX_HYPERVISOR (1u << 31)
#define LEAF_HV_SIG 0x40000000u
#define TCG_SIG_WORD 0x54474354u /* "TCGT" "CGTC" "GTCG": EBX, ECX, EDX of 0x40000000 under QEMU TCG */
#define TCG_SIG_WORD2 0x43544743u
#define TCG_SIG_WORD3 0x47435447u
#define TCG_OSXSAVE_QUIRK                                                                          \
	"QEMU TCG takes CR4.OSXSAVE for reserved when CPUID 0xD.1 EAX is 0 and the CR4 write never " \
	"completes: XSAVE left off (AVX unusable)"

#define CR4_OSXSAVE (1ull << 18)
#define XCR0_X87 (1ull << 0)
#define XCR0_SSE (1ull << 1)
#define XCR0_AVX (1ull << 2)
#define XCR0_OPMASK (1ull << 5)
#define XCR0_ZMM_HI256 (1ull << 6)
#define XCR0_HI16_ZMM (1ull << 7)
#define XCR0_AVX512 (XCR0_OPMASK | XCR0_ZMM_HI256 | XCR0_HI16_ZMM)

static unsigned long long xgetbv0(void)
{
	unsigned lo, hi;

	__asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
	return ((unsigned long long)hi << 32) | lo;
}

static void xsetbv0(unsigned long long v)
{
	__asm__ volatile("xsetbv" : : "a"((unsigned)v), "d"((unsigned)(v >> 32)), "c"(0) : "memory");
}

static void write_cr4(uint64_t v)
{
	__asm__ volatile("mov %0, %%cr4" : : "r"(v) : "memory");
}

/* QEMU's TCG (target/i386/cpu.h, cr4_reserved_bits(), 7.2 to 10.0) counts CR4.OSXSAVE as reserved
 * when CPUID 0xD.1 EAX is 0, although CPUID.1 ECX.XSAVE is set (-cpu Opteron_G5: XSAVE without
 * XSAVEOPT), and the write then neither completes nor faults: the firmware hung there. A real
 * core with that CPUID (Bulldozer) takes the write, so only TCG is spared it. NULL: no quirk. */
static const char *xsave_quirk(void)
{
	uint32_t a, b, c, d;

	cpu_cpuid(1, 0, &a, &b, &c, &d);
	if (!(c & CPUID1_ECX_HYPERVISOR))
		return 0;
	cpu_cpuid(LEAF_HV_SIG, 0, &a, &b, &c, &d);
	if (b != TCG_SIG_WORD || c != TCG_SIG_WORD2 || d != TCG_SIG_WORD3)
		return 0;
	cpu_cpuid(0, 0, &a, &b, &c, &d);
	if (a < LEAF_XSAVE)
		return TCG_OSXSAVE_QUIRK;
	cpu_cpuid(LEAF_XSAVE, XSAVE_SUB_FEATURES, &a, &b, &c, &d);
	return a ? 0 : TCG_OSXSAVE_QUIRK;
}

void simd_enable(void)
{
	uint32_t a, b, c, d, supported;
	unsigned long long want;

	cpu_cpuid(1, 0, &a, &b, &c, &d);
	if (!(c & CPUID1_ECX_XSAVE) || xsave_quirk())
		return;
	write_cr4(cpu_read_cr4() | CR4_OSXSAVE);
	cpu_cpuid(LEAF_XSAVE, 0, &supported, &b, &c, &d); /* EAX: XCR0 bits the CPU supports */
	want = XCR0_X87 | XCR0_SSE;
	if (supported & XCR0_AVX)
		want |= XCR0_AVX;
	if ((supported & XCR0_AVX512) == XCR0_AVX512 && (want & XCR0_AVX))
		want |= XCR0_AVX512;
	xsetbv0(xgetbv0() | want);
}

unsigned simd_bits(enum simd_width w)
{
	static const unsigned bits[SIMD_NUM_WIDTHS] = { 64, 128, 256, 512 };

	return bits[w];
}

void simd_usable(struct simd_state *s)
{
	uint32_t a, b, c, d, b7 = 0, max;

	*s = (struct simd_state){ { true, false, false, false }, { 0, 0, 0, 0 }, { 0 } };
	cpu_cpuid(0, 0, &max, &b, &c, &d);
	cpu_cpuid(1, 0, &a, &b, &c, &d);
	if (max >= 7)
		{
		uint32_t x, y, z;

		cpu_cpuid(7, 0, &x, &b7, &y, &z);
	}
	s->usable[SIMD_128] = d & CPUID1_EDX_SSE2;
	s->why_not[SIMD_128] = s->usable[SIMD_128] ? 0 : "CPU lacks SSE2"; /* also on the early return below */
	if (!(c & CPUID1_ECX_OSXSAVE)) {
		const char *off = (c & CPUID1_ECX_XSAVE) && xsave_quirk() ? TCG_OSXSAVE_QUIRK
									   : "XSAVE not enabled (CR4.OSXSAVE = 0)";

		s->why_not[SIMD_256] = (c & CPUID1_ECX_AVX) ? off : "CPU lacks AVX";
		s->why_not[SIMD_512] = (b7 & CPUID7_EBX_AVX512F) ? off : "CPU lacks AVX-512F";
		return;
	}
	s->xcr0 = xgetbv0();
	s->usable[SIMD_256] = (c & CPUID1_ECX_AVX) && (s->xcr0 & (XCR0_SSE | XCR0_AVX)) == (XCR0_SSE | XCR0_AVX);
	s->why_not[SIMD_256] = !(c & CPUID1_ECX_AVX) ? "CPU lacks AVX" : "AVX state not enabled in XCR0";
	s->usable[SIMD_512] = (b7 & CPUID7_EBX_AVX512F) && s->usable[SIMD_256] &&
			      (s->xcr0 & XCR0_AVX512) == XCR0_AVX512;
	s->why_not[SIMD_512] = !(b7 & CPUID7_EBX_AVX512F) ? "CPU lacks AVX-512F" : "AVX-512 state not enabled in XCR0";
	for (int i = 0; i < SIMD_NUM_WIDTHS; i++)
		if (s->usable[i])
			s->why_not[i] = 0;
}

/* rep stosb / rep movsb are part of every x86-64 CPU. */
const char *arch_membw_rep_unavailable(void)
{
	return 0;
}

