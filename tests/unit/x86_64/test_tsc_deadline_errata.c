/* The TSC-deadline errata list against Linux's: arch/x86/kernel/apic/apic.c, deadline_match and
 * apic_validate_deadline_timer (a matching Intel family 6 CPU, not under a hypervisor, whose
 * microcode revision is below the row's is refused; the model numbers are asm/intel-family.h's).
 * The cases spell Linux's values out, so a wrong row in our table fails here. */
#include "arch/x86_64/tsc_deadline_errata.h"
#include "tests/unit/test.h"

static struct cpu_info intel(unsigned model, unsigned stepping, uint64_t ucode)
{
	return (struct cpu_info){ .is_intel = true, .family = 6, .model = model, .stepping = stepping,
				  .ucode = ucode, .ucode_valid = true, .tsc_deadline = true };
}

static bool refused(struct cpu_info ci)
{
	return tsc_deadline_erratum_applies(&ci, tsc_deadline_erratum_for(&ci));
}

/* Each (model, stepping, first good revision) from deadline_match: one revision below is
 * refused, the revision itself and a later one are accepted. */
static void below_bound_refused(void)
{
	static const struct { unsigned model, stepping; uint32_t rev; } linux_rows[] = {
		{ 0x3F, 0x2, 0x3a },       /* HASWELL_X, stepping 2 (EP) */
		{ 0x3F, 0x4, 0x0f },       /* HASWELL_X, stepping 4 (EX) */
		{ 0x4F, 0x1, 0x0b000020 }, /* BROADWELL_X, every stepping */
		{ 0x4F, 0x7, 0x0b000020 },
		{ 0x56, 0x2, 0x00000011 }, /* BROADWELL_D, per stepping */
		{ 0x56, 0x3, 0x0700000e },
		{ 0x56, 0x4, 0x0f00000c },
		{ 0x56, 0x5, 0x0e000003 },
		{ 0x55, 0x3, 0x01000136 }, /* SKYLAKE_X, stepping 3 */
		{ 0x55, 0x4, 0x02000014 }, /* SKYLAKE_X, stepping 4 */
		{ 0x3C, 0x3, 0x22 },       /* HASWELL */
		{ 0x45, 0x1, 0x20 },       /* HASWELL_L */
		{ 0x46, 0x1, 0x17 },       /* HASWELL_G */
		{ 0x3D, 0x4, 0x25 },       /* BROADWELL */
		{ 0x47, 0x1, 0x17 },       /* BROADWELL_G */
		{ 0x4E, 0x3, 0xb2 },       /* SKYLAKE_L */
		{ 0x5E, 0x3, 0xb2 },       /* SKYLAKE */
		{ 0x8E, 0x9, 0x52 },       /* KABYLAKE_L */
		{ 0x9E, 0xA, 0x52 },       /* KABYLAKE */
	};

	for (unsigned i = 0; i < sizeof(linux_rows) / sizeof(linux_rows[0]); i++) {
		unsigned m = linux_rows[i].model, s = linux_rows[i].stepping;
		uint32_t rev = linux_rows[i].rev;
		const struct cpu_info ci = intel(m, s, rev);

		CHECK(tsc_deadline_erratum_for(&ci) != 0);
		if (tsc_deadline_erratum_for(&ci))
			CHECK_EQ_U64(tsc_deadline_erratum_for(&ci)->min_ucode, rev);
		CHECK(refused(intel(m, s, rev - 1)));
		CHECK(refused(intel(m, s, 0)));
		CHECK(!refused(intel(m, s, rev)));
		CHECK(!refused(intel(m, s, rev + 0x100)));
	}
}

/* Models and steppings Linux does not list keep TSC-deadline whatever their microcode. */
static void other_cpus_unaffected(void)
{
	struct cpu_info ci;

	CHECK(!refused(intel(0x3F, 0x1, 0)));       /* HASWELL_X, a stepping not listed */
	CHECK(!refused(intel(0x56, 0x1, 0)));       /* BROADWELL_D, likewise */
	CHECK(!refused(intel(0x55, 0x7, 0x01)));    /* SKYLAKE_X stepping 7 (Cascade Lake) */
	CHECK(!refused(intel(0x55, 0xB, 0x01)));    /* stepping 11 (Cooper Lake) */
	CHECK(!refused(intel(0x7E, 0x5, 0x01)));    /* ICELAKE_L */
	CHECK(!refused(intel(0x9A, 0x3, 0x01)));    /* ALDERLAKE_L */
	CHECK(!refused(intel(0x3A, 0x9, 0x01)));    /* IVYBRIDGE: no TSC-deadline erratum listed */
	ci = intel(0x5E, 0x3, 0x10);
	ci.family = 0xF;                            /* not family 6 */
	CHECK(!refused(ci));
	ci = intel(0x5E, 0x3, 0x10);
	ci.is_intel = false;
	ci.is_amd = true;                           /* the list is Intel's */
	CHECK(!refused(ci));
	ci = intel(0x5E, 0x3, 0x10);
	ci.hypervisor = true;                       /* Linux trusts the hypervisor's timer */
	CHECK(!refused(ci));
}

/* A listed CPU whose revision could not be read is refused: the fix cannot be shown. */
static void unreadable_microcode_refused(void)
{
	struct cpu_info ci = intel(0x9E, 0x9, 0x52);

	ci.ucode_valid = false;
	CHECK(refused(ci));
	ci = intel(0x7E, 0x5, 0);
	ci.ucode_valid = false;
	CHECK(!refused(ci)); /* not listed: nothing to prove */
}

TEST_SUITE(tsc_deadline_errata) = {
	{ "below_bound_refused", below_bound_refused },
	{ "other_cpus_unaffected", other_cpus_unaffected },
	{ "unreadable_microcode_refused", unreadable_microcode_refused },
	{ 0, 0 },
};
