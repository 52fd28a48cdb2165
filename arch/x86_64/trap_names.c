/* The names of the x86 exception vectors, for `fault` records: shared by the firmware's trap
 * handler (traps.c) and the hosted build's signal handler (hosted/traps.c), so the two report the
 * same names. */
/* OPT_FAST: -O2 (Makefile): interrupt path (delivery, handlers, EOI) timed by the irq probes and the profiler. */
#include "arch/traps.h"

static const char *const vector_names[X86_NUM_EXCEPTIONS] = {
	"#DE", "#DB", "NMI", "#BP", "#OF", "#BR", "#UD", "#NM", "#DF", "CSO", "#TS", "#NP", "#SS", "#GP",
	"#PF", "RSV15", "#MF", "#AC", "#MC", "#XM", "#VE", "#CP", "RSV22", "RSV23", "RSV24", "RSV25",
	"RSV26", "RSV27", "#HV", "#VC", "#SX", "RSV31",
};

const char *trap_vector_name(unsigned vector)
{
	return vector < X86_NUM_EXCEPTIONS ? vector_names[vector] : "IRQ";
}
