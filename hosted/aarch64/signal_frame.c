/* hosted/signal_frame.h on AArch64 Linux: the vector is the exception class (ESR EC), as the
 * firmware's trap handler reports it (arch/aarch64/include/cpu/traps.h). The kernel puts the ESR of a data or
 * instruction abort into the frame's extension records (an esr_context after the FP/SIMD one, in
 * uc_mcontext.__reserved); without one the class follows from the signal. brk arrives as SIGTRAP
 * and udf as SIGILL, both with PC at the instruction itself (unlike x86's int3), so resuming past
 * either advances PC by one instruction. `rip` is PC, `rsp` SP, `cr2` the fault address. */
#define _GNU_SOURCE
#include "hosted/signal_frame.h"

#include <asm/sigcontext.h>
#include <stdint.h>
#include <string.h>
#include <ucontext.h>

#include "arch/aarch64/sysreg_safe.h"

#define A64_INSN_BYTES 4
#define A64_EC_FP_TRAP 0x2C /* a trapped floating-point exception (AArch64) */
#define RESERVED_BYTES sizeof(((mcontext_t *)0)->__reserved)

/* The kernel's esr_context among the frame's records (terminated by a zero magic), or 0. */
static uint64_t frame_esr(const mcontext_t *mc, bool *found)
{
	size_t off = 0;

	*found = false;
	while (off + sizeof(struct _aarch64_ctx) <= RESERVED_BYTES) {
		const struct _aarch64_ctx *h = (const void *)(mc->__reserved + off);

		if (h->magic == 0 || h->size < sizeof(*h) || off + h->size > RESERVED_BYTES)
			break;
		if (h->magic == ESR_MAGIC && h->size >= sizeof(struct esr_context)) {
			*found = true;
			return ((const struct esr_context *)h)->esr;
		}
		off += h->size;
	}
	return 0;
}

/* The exception class a signal stands for when the frame carries no ESR. */
static unsigned class_of_signal(int sig, int code)
{
	switch (sig) {
	case SIGILL:
		return A64_EC_UNKNOWN;
	case SIGTRAP:
		return A64_EC_BRK;
	case SIGFPE:
		return A64_EC_FP_TRAP;
	case SIGBUS:
		return code == BUS_ADRALN ? A64_EC_SP_ALIGN : A64_EC_DABT_LOW;
	default:
		return A64_EC_DABT_LOW; /* a user-space access fault is an abort from a lower EL */
	}
}

void hosted_frame_fault(int sig, const siginfo_t *si, const void *uctx, struct trap_info *info)
{
	const mcontext_t *mc = &((const ucontext_t *)uctx)->uc_mcontext;
	bool have_esr;
	uint64_t esr = frame_esr(mc, &have_esr);

	memset(info, 0, sizeof(*info));
	info->vector = have_esr && si->si_code > 0 ? a64_esr_ec(esr) : class_of_signal(sig, si->si_code);
	info->name = trap_vector_name(info->vector);
	info->error = have_esr ? esr : 0;
	info->rip = mc->pc;
	info->rsp = mc->sp;
	info->cr2 = sig == SIGSEGV || sig == SIGBUS ? (uint64_t)(uintptr_t)si->si_addr : 0;
}

unsigned hosted_signal_vector(int sig)
{
	return sig == SIGTRAP ? A64_EC_BRK : A64_EC_UNKNOWN;
}

int hosted_vector_signal(unsigned vector)
{
	return vector == A64_EC_BRK ? SIGTRAP : vector == A64_EC_UNKNOWN ? SIGILL : 0;
}

void hosted_frame_skip_undefined(void *uctx)
{
	((ucontext_t *)uctx)->uc_mcontext.pc += A64_INSN_BYTES;
}

void hosted_frame_resume_breakpoint(void *uctx)
{
	((ucontext_t *)uctx)->uc_mcontext.pc += A64_INSN_BYTES; /* PC is at the brk */
}

uint64_t hosted_frame_pc(const void *uctx)
{
	return ((const ucontext_t *)uctx)->uc_mcontext.pc;
}
