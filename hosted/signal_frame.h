/* The CPU's side of a Linux signal, for the hosted build: what the kernel's signal frame says about
 * an exception (vector, error code, program counter, stack pointer, fault address) and how to move
 * past the instruction that raised it. Implemented once per architecture in
 * hosted/<arch>/signal_frame.c — the only hosted files that know register names — so the rest of
 * hosted/ (traps.c, irq_signal.c, smp.c, ...) is the same for every CPU. */
#ifndef HOSTED_SIGNAL_FRAME_H
#define HOSTED_SIGNAL_FRAME_H

#include <signal.h>
#include <stdint.h>

#include "arch/traps.h"

/* A fault signal (SIGILL, SIGSEGV, SIGBUS, SIGFPE) as the trap_info the bare-metal handler would
 * have filled; uctx: the handler's third argument. info->recoverable is left false. */
void hosted_frame_fault(int sig, const siginfo_t *si, const void *uctx, struct trap_info *info);

/* The exception vector a hook signal stands for (SIGTRAP: the breakpoint instruction, SIGILL: the
 * undefined instruction), and back (0 for a vector no signal stands for). */
unsigned hosted_signal_vector(int sig);
int hosted_vector_signal(unsigned vector);

/* The interrupted program counter (a sampling profiler's sample). */
uint64_t hosted_frame_pc(const void *uctx);

/* Resume after the deliberate undefined instruction (irq_raise_undefined): advance the frame's program
 * counter past it. */
void hosted_frame_skip_undefined(void *uctx);

/* Resume after the deliberate breakpoint (irq_raise_breakpoint): nothing on x86_64 (int3 traps
 * with RIP past it), past the brk on AArch64 (PC at it). */
void hosted_frame_resume_breakpoint(void *uctx);

#endif
