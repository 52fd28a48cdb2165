/* The interrupt interface of arch/irq.h in the hosted (Linux user-space) build, with
 * signals standing in for interrupts (see hosted/irq_hosted.h):
 *
 * - a vector is taken when its real-time signal is delivered to the main thread; the handler's
 *   first work is reading the TSC (the entry stamp, as the bare-metal stub's rdtsc), it dispatches
 *   to the handler registered for the vector with (ctx, entry TSC), and reads the TSC again as its
 *   last work: irq_last_exit_cycles() (what follows is the return into the kernel's sigreturn);
 * - irq_enable/irq_disable unblock/block those signals (pthread_sigmask, a system call each);
 *   outside a probe's window they stay blocked, as interrupts stay masked on bare metal;
 * - irq_enable_halt_disable is sigsuspend: unblock and sleep atomically (a signal pending at the
 *   call ends it at once, like sti's shadow before hlt), blocked again on return;
 * - irq_maskable() stays false: hardware interrupts still reach this CPU (the kernel takes them);
 *   bench/probes/noise.c relies on that to say its gaps include interrupts;
 * - taken / spurious (one of our signals sent by another process) / unexpected (a vector
 *   without a handler) are counted like the bare-metal dispatcher counts them;
 * - exception hooks: int3 arrives as SIGTRAP (the kernel leaves RIP after the int3: resume =
 *   return), ud2 as SIGILL (RIP at the ud2: skip = RIP + 2 in the signal frame); which signal
 *   stands for which vector and how to skip is hosted/<arch>/signal_frame.c's. Our handlers
 *   are installed only while a hook is set; the previous actions (hosted/traps.c's
 *   fatal-fault reporting for SIGILL) are put back when it is cleared. */
#define _GNU_SOURCE
#include "hosted/irq_hosted.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "arch/cycles.h"
#include "arch/irq.h"
#include "arch/traps.h"
#include "hosted/signal_frame.h"

#define SIG_BASE_OFFSET 0 /* our signals: SIGRTMIN + offset + slot (glibc keeps its own below SIGRTMIN) */

static const unsigned slot_vectors[HOSTED_IRQ_SLOTS] = { IRQ_VEC_MEASURE, IRQ_VEC_GUARD, IRQ_VEC_IPI };

static struct {
	irq_handler_fn fn[IRQ_NUM_VECTORS];
	void *ctx[IRQ_NUM_VECTORS];
	volatile uint64_t count[IRQ_NUM_VECTORS];
	void (*eoi)(void *ctx);
	void *eoi_ctx;
	volatile uint64_t taken, spurious, unexpected, exit_cycles;
	volatile unsigned last_unexpected, depth;
	int sig[HOSTED_IRQ_SLOTS];
	sigset_t ours; /* the signals above */
	sigset_t open; /* the main thread's mask with ours unblocked: sigsuspend's */
	pid_t pid, tid;
	bool ready;
	enum irq_exc_hook hooks[IRQ_NUM_VECTORS];
	struct sigaction saved_trap, saved_ill;
	bool hooked_trap, hooked_ill;
} hs;

int hosted_irq_slot(unsigned vector)
{
	for (int i = 0; i < HOSTED_IRQ_SLOTS; i++)
		if (slot_vectors[i] == vector)
			return i;
	return -1;
}

unsigned hosted_irq_slot_vector(unsigned slot)
{
	return slot < HOSTED_IRQ_SLOTS ? slot_vectors[slot] : 0;
}

int hosted_irq_signal(unsigned vector)
{
	int slot = hosted_irq_slot(vector);

	return slot >= 0 && hs.ready ? hs.sig[slot] : 0;
}

pid_t hosted_irq_tid(void)
{
	return hs.tid;
}

unsigned hosted_irq_in_handler(void)
{
	return hs.depth;
}

/* Ours: a timer's signal (only this process creates timers that send it) or one we sent. */
static bool sent_by_us(const siginfo_t *si)
{
	return si->si_code == SI_TIMER || si->si_pid == hs.pid;
}

static void on_irq_signal(int sig, siginfo_t *si, void *uc)
{
	uint64_t entry = cycles_read();
	int saved_errno = errno, slot = -1;

	(void)uc;
	for (int i = 0; i < HOSTED_IRQ_SLOTS; i++)
		if (hs.sig[i] == sig)
			slot = i;
	hs.depth++;
	if (slot < 0 || !sent_by_us(si)) {
		hs.spurious++;
	} else {
		unsigned v = slot_vectors[slot];

		hs.count[v]++;
		if (hs.fn[v]) {
			hs.taken++;
			hs.fn[v](hs.ctx[v], entry);
		} else {
			hs.unexpected++;
			hs.last_unexpected = v;
		}
		if (hs.eoi)
			hs.eoi(hs.eoi_ctx);
	}
	hs.depth--;
	errno = saved_errno;
	hs.exit_cycles = cycles_read();
}

bool hosted_irq_signals_init(const char **why)
{
	struct sigaction sa;
	sigset_t old;

	hs.pid = getpid();
	hs.tid = gettid();
	sigemptyset(&hs.ours);
	for (unsigned i = 0; i < HOSTED_IRQ_SLOTS; i++) {
		hs.sig[i] = SIGRTMIN + SIG_BASE_OFFSET + (int)i;
		if (hs.sig[i] > SIGRTMAX) {
			*why = "not enough real-time signals for the interrupt stand-ins";
			return false;
		}
		sigaddset(&hs.ours, hs.sig[i]);
	}
	if (pthread_sigmask(SIG_BLOCK, &hs.ours, &old) != 0) {
		*why = "pthread_sigmask refused to block the interrupt signals";
		return false;
	}
	hs.open = old;
	for (unsigned i = 0; i < HOSTED_IRQ_SLOTS; i++)
		sigdelset(&hs.open, hs.sig[i]);
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_irq_signal;
	/* A handler runs with all our signals blocked (interrupts masked inside a handler). */
	sa.sa_mask = hs.ours;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	for (unsigned i = 0; i < HOSTED_IRQ_SLOTS; i++) {
		if (sigaction(hs.sig[i], &sa, 0) != 0) {
			*why = "sigaction refused a handler for an interrupt signal";
			return false;
		}
	}
	hs.ready = true;
	return true;
}

bool irq_available(void)
{
	return hs.ready;
}

void irq_set_eoi(void (*eoi)(void *ctx), void *ctx)
{
	hs.eoi = eoi;
	hs.eoi_ctx = ctx;
}

void irq_register(unsigned vector, irq_handler_fn fn, void *ctx)
{
	if (vector < IRQ_FIRST_VECTOR || vector >= IRQ_NUM_VECTORS)
		return;
	hs.ctx[vector] = ctx;
	compiler_barrier();
	hs.fn[vector] = fn;
}

void irq_unregister(unsigned vector)
{
	if (vector < IRQ_NUM_VECTORS)
		hs.fn[vector] = 0;
}

bool irq_registered(unsigned vector)
{
	return vector < IRQ_NUM_VECTORS && hs.fn[vector];
}

void irq_get_counts(struct irq_counts *out)
{
	out->taken = hs.taken;
	out->spurious = hs.spurious;
	out->unexpected = hs.unexpected;
	out->last_unexpected = hs.last_unexpected;
}

uint64_t irq_vector_count(unsigned vector)
{
	return vector < IRQ_NUM_VECTORS ? hs.count[vector] : 0;
}

/* The profiler samples through hosted/prof_sampler.c (its own signal, the PC from its context):
 * no probe vector here takes a PC handler. */
void irq_register_pc(unsigned vector, irq_pc_handler_fn fn, void *ctx)
{
	(void)vector;
	(void)fn;
	(void)ctx;
}

uint64_t irq_last_exit_cycles(void)
{
	return hs.exit_cycles;
}

bool irq_maskable(void)
{
	return false;
}

uint64_t irq_save_disable(void)
{
	sigset_t old;

	if (!hs.ready)
		return 0;
	pthread_sigmask(SIG_BLOCK, &hs.ours, &old);
	return sigismember(&old, hs.sig[0]) ? 0 : 1; /* 1: they were unblocked */
}

void irq_restore(uint64_t saved)
{
	if (saved)
		irq_enable();
	else
		irq_disable();
}

void irq_enable(void)
{
	if (hs.ready)
		pthread_sigmask(SIG_UNBLOCK, &hs.ours, 0);
}

void irq_disable(void)
{
	if (hs.ready)
		pthread_sigmask(SIG_BLOCK, &hs.ours, 0);
}

void irq_enable_halt_disable(void)
{
	/* Returns after a handler ran, with the mask as it was (ours blocked). */
	if (hs.ready)
		sigsuspend(&hs.open);
}

static void on_exception_signal(int sig, siginfo_t *si, void *ctx)
{
	unsigned v = hosted_signal_vector(sig);

	(void)si;
	switch (hs.hooks[v]) {
	case IRQ_HOOK_RESUME:
		hosted_frame_resume_breakpoint(ctx); /* x86's int3: already past it; AArch64's brk: not */
		return;
	case IRQ_HOOK_SKIP_UNDEFINED:
		hosted_frame_skip_undefined(ctx);
		return;
	default:
		/* Not ours after all: the previous action takes it (ud2 faults again on return). */
		sigaction(sig, sig == SIGTRAP ? &hs.saved_trap : &hs.saved_ill, 0);
		if (sig == SIGTRAP)
			raise(SIGTRAP);
		return;
	}
}

static void hook_signal(int sig, bool on, struct sigaction *saved, bool *hooked)
{
	struct sigaction sa;

	if (on && !*hooked) {
		memset(&sa, 0, sizeof(sa));
		sa.sa_sigaction = on_exception_signal;
		sa.sa_flags = SA_SIGINFO;
		sigemptyset(&sa.sa_mask);
		*hooked = sigaction(sig, &sa, saved) == 0;
	} else if (!on && *hooked) {
		sigaction(sig, saved, 0);
		*hooked = false;
	}
}

void irq_set_exception_hook(unsigned vector, enum irq_exc_hook how)
{
	int sig = hosted_vector_signal(vector);

	if (!sig)
		return;
	hs.hooks[vector] = how;
	if (sig == SIGTRAP)
		hook_signal(SIGTRAP, how != IRQ_HOOK_NONE, &hs.saved_trap, &hs.hooked_trap);
	else
		hook_signal(SIGILL, how != IRQ_HOOK_NONE, &hs.saved_ill, &hs.hooked_ill);
}
