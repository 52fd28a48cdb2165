/* hosted/signal_frame.h on x86_64 Linux: the vector, error code and fault address come from the
 * kernel's signal frame (REG_TRAPNO, REG_ERR) when the kernel raised the signal for an exception,
 * else from the signal number; int3 arrives as SIGTRAP with RIP already past it, ud2 as SIGILL with
 * RIP at it. */
#define _GNU_SOURCE
#include "hosted/signal_frame.h"

#include <stdint.h>
#include <string.h>
#include <ucontext.h>

#define UD2_LENGTH 2
#define X86_VEC_AC 17 /* alignment check */
#define X86_VEC_XM 19 /* SIMD floating point */

/* The vector when the kernel's frame does not carry one (a signal sent by a process). */
static unsigned vector_of_signal(int sig, int code)
{
	switch (sig) {
	case SIGILL:
		return X86_VEC_UD;
	case SIGFPE:
		return code == FPE_INTDIV || code == FPE_INTOVF ? X86_VEC_DE : X86_VEC_XM;
	case SIGBUS:
		return code == BUS_ADRALN ? X86_VEC_AC : code == BUS_MCEERR_AR ? X86_VEC_MC : X86_VEC_PF;
	default:
		return code == SI_KERNEL ? X86_VEC_GP : X86_VEC_PF;
	}
}

void hosted_frame_fault(int sig, const siginfo_t *si, const void *uctx, struct trap_info *info)
{
	const ucontext_t *uc = uctx;
	const greg_t *g = uc->uc_mcontext.gregs;
	/* si_code > 0: raised by the kernel for an exception, so the frame's trapno/err are this one's. */
	bool from_cpu = si->si_code > 0;

	memset(info, 0, sizeof(*info));
	info->vector = from_cpu && (uint64_t)g[REG_TRAPNO] < X86_NUM_EXCEPTIONS ? (unsigned)g[REG_TRAPNO]
										 : vector_of_signal(sig, si->si_code);
	info->name = trap_vector_name(info->vector);
	info->error = from_cpu ? (uint64_t)g[REG_ERR] : 0;
	info->rip = (uint64_t)g[REG_RIP];
	info->rsp = (uint64_t)g[REG_RSP];
	info->cr2 = info->vector == X86_VEC_PF ? (uint64_t)(uintptr_t)si->si_addr : 0;
}

unsigned hosted_signal_vector(int sig)
{
	return sig == SIGTRAP ? X86_VEC_BP : X86_VEC_UD;
}

int hosted_vector_signal(unsigned vector)
{
	return vector == X86_VEC_BP ? SIGTRAP : vector == X86_VEC_UD ? SIGILL : 0;
}

void hosted_frame_skip_undefined(void *uctx)
{
	((ucontext_t *)uctx)->uc_mcontext.gregs[REG_RIP] += UD2_LENGTH;
}

void hosted_frame_resume_breakpoint(void *uctx)
{
	(void)uctx; /* int3 is a trap: the frame's RIP is already past it */
}

uint64_t hosted_frame_pc(const void *uctx)
{
	return (uint64_t)((const ucontext_t *)uctx)->uc_mcontext.gregs[REG_RIP];
}

