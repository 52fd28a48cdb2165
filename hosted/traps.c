/* The trap interface of arch/traps.h for the hosted (Linux user-space) build. There is no IDT of
 * ours and nothing to recover with: recovery points are inert (fault_try() returns 0 once,
 * fault_arm() and fault_disarm() do nothing) and traps_installed() is false. The suite runs with
 * env.traps = false and skips the fault test probes with a reason. (The MSR accessors, x86 only,
 * refuse in hosted/x86_64/msr.c.)
 *
 * traps_init() installs handlers for the signals a CPU exception becomes (SIGILL, SIGSEGV, SIGBUS,
 * SIGFPE), on a stack of their own: an exception inside a probe is then reported like on bare
 * metal — the report callback (a `fault` record), then the fatal callback (`end status=fatal`) —
 * instead of the process dying without an end record. The vector, error code and fault address
 * come from the kernel's signal frame, read by hosted/<arch>/signal_frame.c. */
#define _GNU_SOURCE
#include "arch/traps.h"

#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "hosted/signal_frame.h"

#define ALT_STACK_SIZE (64 * 1024)

static const int fault_signals[] = { SIGILL, SIGSEGV, SIGBUS, SIGFPE };

static struct {
	trap_report_fn report;
	trap_fatal_fn fatal;
	volatile sig_atomic_t depth;
} traps;

static unsigned char alt_stack[ALT_STACK_SIZE] __attribute__((aligned(16)));

static void on_fault(int sig, siginfo_t *si, void *ctx)
{
	struct trap_info info;

	if (++traps.depth > 1 || !traps.report || !traps.fatal) {
		static const char msg[] = "baremetric: fault while reporting a fault; exiting\n";

		(void)!write(STDERR_FILENO, msg, sizeof(msg) - 1);
		_exit(2);
	}
	hosted_frame_fault(sig, si, ctx, &info);
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
