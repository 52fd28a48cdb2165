/* A latency set's SMI fields (bench/probes/irq/x86_64/context.c) across a wrap of the SMI count:
 * Intel's MSR_SMI_COUNT (SDM vol. 4, MSR 34H) counts in bits 31:0 only, so a count read as
 * 0xFFFFFFF0 before a set and 0x5 after it means 0x15 SMIs, not 2^64 - 0xFFFFFFEB. */
#include <string.h>

#include "arch/cpu_info.h"
#include "bench/probes/irq/context.h"
#include "lib/emit.h"
#include "tests/unit/test.h"

#define MAX_LINES 8
#define SMI_WIDTH_MASK 0xFFFFFFFFull /* MSR_SMI_COUNT[31:0] */

static char lines[MAX_LINES][REC_MAX_LINE];
static unsigned nlines;

static void sink(const char *line, unsigned len)
{
	if (nlines < MAX_LINES) {
		memcpy(lines[nlines], line, len);
		lines[nlines++][len] = '\0';
	}
}

/* context.c reads the count through arch_smi_count; the fields under test take the readings as
 * given, so the stand-in is never asked. */
bool arch_smi_count(const struct cpu_info *ci, uint64_t *count)
{
	(void)ci;
	*count = 0;
	return false;
}

static const char *fields_for(uint64_t before, uint64_t after)
{
	static struct cpu_info ci = { .is_intel = true };
	struct probe_env env = { .cpu = &ci };
	struct irq_context c = { .smi_ok = true, .smi0 = before, .smi1 = after, .freq_why = "not here" };

	nlines = 0;
	emit_init(sink);
	irq_context_fields(&env, emit_start("probe"), &c);
	emit_finish();
	return nlines ? lines[0] : "";
}

static void smi_count_wraps_at_32_bits(void)
{
	CHECK(strstr(fields_for(0xFFFFFFF0u, 0x5u), " smi_count=21") != 0);
	CHECK(strstr(fields_for(100, 103), " smi_count=3") != 0);
	CHECK(strstr(fields_for(7, 7), " smi_count=0") != 0);
	/* the helper the noise and displacement probes use the same way */
	CHECK_EQ_U64(arch_smi_delta(0xFFFFFFFFull, 0), 1);
	CHECK_EQ_U64(arch_smi_delta(0xFFFFFFF0u, 0x5u), 0x15);
	CHECK_EQ_U64(arch_smi_delta(0, SMI_WIDTH_MASK), SMI_WIDTH_MASK);
}

TEST_SUITE(irq_context) = {
	{ "smi_count_wraps_at_32_bits", smi_count_wraps_at_32_bits },
	{ 0, 0 },
};
