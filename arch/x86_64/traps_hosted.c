/* The trap interface of traps.h for the hosted (Linux user-space) build. There is no IDT of ours
 * and nothing to recover with: recovery points are inert (fault_try() returns 0 once, fault_arm()
 * and fault_disarm() do nothing), traps_installed() is false, and the MSR accessors refuse
 * (MSR_NO_TRAPS), so microcode reads as unreadable. The suite runs with env.traps = false and
 * skips the fault test probes with a reason.
 *
 * traps_init() installs handlers for the signals a CPU exception becomes (SIGILL, SIGSEGV, SIGBUS,
 * SIGFPE), on a stack of their own: an exception inside a probe is then reported like on bare
 * metal — the report callback (a `fault` record), then the fatal callback (`end status=fatal`) —
 * instead of the process dying without an end record. The vector, error code and fault address
 * come from the kernel's signal frame. */
#define _GNU_SOURCE
#include "arch/x86_64/traps.h"

#include <signal.h>
#include <string.h>
#include <ucontext.h>
#include <unistd.h>

#include "arch/x86_64/msr.h"

#define ALT_STACK_SIZE (64 * 1024)

static const char *const vector_names[X86_NUM_EXCEPTIONS] = {
	"#DE", "#DB", "NMI", "#BP", "#OF", "#BR", "#UD", "#NM", "#DF", "CSO", "#TS", "#NP", "#SS", "#GP",
	"#PF", "RSV15", "#MF", "#AC", "#MC", "#XM", "#VE", "#CP", "RSV22", "RSV23", "RSV24", "RSV25",
	"RSV26", "RSV27", "#HV", "#VC", "#SX", "RSV31",
};

static const int fault_signals[] = { SIGILL, SIGSEGV, SIGBUS, SIGFPE };

static struct {
	trap_report_fn report;
	trap_fatal_fn fatal;
	volatile sig_atomic_t depth;
} traps;

static unsigned char alt_stack[ALT_STACK_SIZE] __attribute__((aligned(16)));

const char *trap_vector_name(unsigned vector)
{
	return vector < X86_NUM_EXCEPTIONS ? vector_names[vector] : "IRQ";
}

/* The vector when the kernel's frame does not carry one (a signal sent by a process). */
static unsigned vector_of_signal(int sig, int code)
{
	switch (sig) {
	case SIGILL:
		return X86_VEC_UD;
	case SIGFPE:
		return code == FPE_INTDIV || code == FPE_INTOVF ? X86_VEC_DE : 19; /* #XM */
	case SIGBUS:
		return code == BUS_ADRALN ? 17 /* #AC */ : code == BUS_MCEERR_AR ? X86_VEC_MC : X86_VEC_PF;
	default:
		return code == SI_KERNEL ? X86_VEC_GP : X86_VEC_PF;
	}
}

static void on_fault(int sig, siginfo_t *si, void *ctx)
{
	const ucontext_t *uc = ctx;
	const greg_t *g = uc->uc_mcontext.gregs;
	struct trap_info info;
	/* si_code > 0: raised by the kernel for an exception, so the frame's trapno/err are this one's. */
	bool from_cpu = si->si_code > 0;

	if (++traps.depth > 1 || !traps.report || !traps.fatal) {
		static const char msg[] = "baremetric: fault while reporting a fault; exiting\n";

		(void)!write(STDERR_FILENO, msg, sizeof(msg) - 1);
		_exit(2);
	}
	memset(&info, 0, sizeof(info));
	info.vector = from_cpu && (uint64_t)g[REG_TRAPNO] < X86_NUM_EXCEPTIONS ? (unsigned)g[REG_TRAPNO]
									       : vector_of_signal(sig, si->si_code);
	info.name = trap_vector_name(info.vector);
	info.error = from_cpu ? (uint64_t)g[REG_ERR] : 0;
	info.rip = (uint64_t)g[REG_RIP];
	info.rsp = (uint64_t)g[REG_RSP];
	info.cr2 = info.vector == X86_VEC_PF ? (uint64_t)(uintptr_t)si->si_addr : 0;
	info.recoverable = false; /* no recovery points in user space */
	traps.report(&info);
	traps.fatal(&info);
}

void traps_init(trap_report_fn report, trap_fatal_fn fatal)
{
	stack_t ss = { .ss_sp = alt_stack, .ss_size = sizeof(alt_stack), .ss_flags = 0 };
	struct sigaction sa;

	traps.report = report;
	traps.fatal = fatal;
	sigaltstack(&ss, 0);
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_fault;
	/* SA_NODEFER: a fault inside the handler comes back here (depth check) instead of killing us
	 * silently with the signal blocked. */
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
	sigemptyset(&sa.sa_mask);
	for (unsigned i = 0; i < sizeof(fault_signals) / sizeof(fault_signals[0]); i++)
		sigaction(fault_signals[i], &sa, 0);
}

bool traps_installed(void)
{
	return false;
}

int fault_try(struct fault_jmp *j)
{
	(void)j;
	return 0;
}

void fault_arm(struct fault_jmp *j)
{
	(void)j;
}

void fault_disarm(void)
{
}

int rdmsr_safe(uint32_t msr, uint64_t *value)
{
	(void)msr;
	(void)value;
	return MSR_NO_TRAPS;
}

int wrmsr_safe(uint32_t msr, uint64_t value)
{
	(void)msr;
	(void)value;
	return MSR_NO_TRAPS;
}
