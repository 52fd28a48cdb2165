/* The names of the AArch64 exception classes and asynchronous vectors, for `fault` records and
 * plat kind=sysreg: shared by the firmware's trap handler (arch/priv/aarch64/traps.c) and the
 * hosted build's signal handler (hosted/aarch64/signal_frame.c), so the two report the same names. */
/* OPT_FAST: -O2 (Makefile): interrupt path (delivery, handlers, EOI) timed by the irq probes and the profiler. */
#include "arch/traps.h"

static const struct {
	unsigned ec;
	const char *name;
} ec_names[] = {
	{ A64_EC_UNKNOWN, "UNDEF" },	      { A64_EC_ILLEGAL_STATE, "ILLEGAL_STATE" },
	{ A64_EC_SVC, "SVC" },		      { A64_EC_HVC, "HVC" },
	{ A64_EC_SMC, "SMC" },		      { A64_EC_SYSREG, "SYSREG" },
	{ A64_EC_IABT_LOW, "IABT_LOWER" },    { A64_EC_IABT, "IABT" },
	{ A64_EC_PC_ALIGN, "PC_ALIGN" },      { A64_EC_DABT_LOW, "DABT_LOWER" },
	{ A64_EC_DABT, "DABT" },	      { A64_EC_SP_ALIGN, "SP_ALIGN" },
	{ A64_EC_SERROR, "SERROR" },	      { A64_EC_BRK, "BRK" },
	{ TRAP_A64_IRQ, "IRQ" },	      { TRAP_A64_FIQ, "FIQ" },
	{ TRAP_A64_SERROR, "SERROR" },
};

const char *trap_vector_name(unsigned vector)
{
	for (unsigned i = 0; i < sizeof(ec_names) / sizeof(ec_names[0]); i++)
		if (ec_names[i].ec == vector)
			return ec_names[i].name;
	return vector < A64_EC_COUNT ? "SYNC_OTHER" : "EXCEPTION";
}
