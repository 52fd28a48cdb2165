/* EL1 (or EL2) exception handling (see traps.h; the vector tables and recovery points are in
 * traps.S). The tables' IRQ entries go to irq.c; this unit calls irq.c (the vectors are in, the
 * exception hook), never the reverse. */
/* OPT_FAST: -O2 (Makefile): interrupt path (delivery, handlers, EOI) timed by the irq probes and the profiler. */
#include "arch/traps.h"

#include "arch/aarch64/cpu.h"
#include "arch/irq.h"
#include "arch/aarch64/sysreg_safe.h"

/* Vector table entry index: group (0 current EL SP0, 1 current EL SPx, 2 lower EL AArch64,
 * 3 lower EL AArch32) * 4 + type (0 sync, 1 IRQ, 2 FIQ, 3 SError). */
#define KIND_TYPE_MASK 3u
#define KIND_SYNC 0
#define KIND_IRQ 1
#define KIND_FIQ 2
#define ESR_EC_SHIFT 26
#define ESR_EC_MASK 0x3Fu
#define EL1 1
#define EL2 2

/* The saved state, lowest address first (traps.S). */
struct a64_frame {
	uint64_t x[31];
	uint64_t elr, spsr, esr, far, sp;
};

extern const char a64_vectors[], a64_vectors_el2[];
extern const char a64_fault_resume[];
void a64_trap_handler(struct a64_frame *f, uint64_t kind);

static struct {
	bool installed;
	unsigned el; /* where the vectors are: 1 (VBAR_EL1) or 2 (VBAR_EL2) */
	trap_report_fn report;
	trap_fatal_fn fatal;
	struct fault_jmp *armed;
	unsigned depth;
	trap_ap_fn ap; /* the other cores' handler (traps_set_ap_handler) */
} traps;

void traps_init(trap_report_fn report, trap_fatal_fn fatal)
{
	traps.report = report;
	traps.fatal = fatal;
	traps.el = cpu_current_el();
	if (traps.el == EL2) {
		/* The firmware ran us at EL2: our exceptions are taken there (VBAR_EL2), synchronous
		 * and SError only (no interrupt is routed to EL2 for us: traps_installed() stays
		 * false, so the interrupt set-up leaves the GIC alone). */
		__asm__ volatile("msr vbar_el2, %0; isb" : : "r"((uint64_t)(uintptr_t)a64_vectors_el2) : "memory");
		traps.installed = true;
		return;
	}
	if (traps.el != EL1)
		return;
	__asm__ volatile("msr vbar_el1, %0; isb" : : "r"((uint64_t)(uintptr_t)a64_vectors) : "memory");
	traps.installed = true;
	a64_irq_vectors_installed();
}

bool traps_installed(void)
{
	return traps.installed && traps.el == EL1;
}

bool traps_catch_faults(void)
{
	return traps.installed && traps.el == cpu_current_el();
}

unsigned traps_el(void)
{
	return traps.installed ? traps.el : 0;
}

void fault_arm(struct fault_jmp *j)
{
	traps.armed = j;
}

void fault_disarm(void)
{
	traps.armed = 0;
}

static void fill_info(const struct a64_frame *f, unsigned type, struct trap_info *info)
{
	unsigned ec = (unsigned)(f->esr >> ESR_EC_SHIFT) & ESR_EC_MASK;

	info->vector = type == KIND_SYNC ? ec : type == KIND_IRQ ? TRAP_A64_IRQ
					  : type == KIND_FIQ ? TRAP_A64_FIQ
							     : TRAP_A64_SERROR;
	info->name = trap_vector_name(info->vector);
	info->error = f->esr;
	info->rip = f->elr;
	info->cr2 = type == KIND_SYNC ? f->far : 0;
	info->rsp = f->sp;
	/* Synchronous exceptions are precise: the code before ELR completed, nothing after it ran.
	 * An SError is asynchronous and may be imprecise: the state cannot be trusted. */
	info->recoverable = type == KIND_SYNC;
}

/* The access is each stub's first instruction. */
static bool at_stub_access(uint64_t elr, const char *start, const char *end)
{
	uint64_t s = (uint64_t)(uintptr_t)start, e = (uint64_t)(uintptr_t)end;

	return elr >= s && elr < e && (elr - s) % A64_SYSREG_STUB_BYTES == 0;
}

/* A synchronous exception at a guarded access (sysreg_safe.h: the stubs of sysreg_stubs.S and
 * mops.S's probe): resume at x30, the stub's caller (the stubs are leaves), with x0 = the fault
 * result — this port's exception table, as extable_fixup is x86_64's. */
static bool sysreg_fixup(struct a64_frame *f)
{
	if (!at_stub_access(f->elr, a64_sysreg_read_stubs, a64_sysreg_read_end) &&
	    !at_stub_access(f->elr, a64_sysreg_write_stubs, a64_sysreg_write_end) &&
	    f->elr != (uint64_t)(uintptr_t)a64_mops_probe)
		return false;
	f->x[0] = SYSREG_FAULT_FLAG | (f->esr & SYSREG_ESR_MASK);
	f->elr = f->x[30];
	return true;
}

void traps_set_ap_handler(trap_ap_fn fn)
{
	traps.ap = fn;
}

/* An exception on another core: its own handler decides; nothing global is touched. */
static void ap_trap(struct a64_frame *f, unsigned type, void *cpu)
{
	struct trap_info info;
	const struct fault_jmp *j;

	fill_info(f, type, &info);
	j = traps.ap(cpu, &info);
	if (!j)
		cpu_halt_forever();
	f->x[0] = (uint64_t)(uintptr_t)j;
	f->x[1] = info.vector + 1;
	f->elr = (uint64_t)(uintptr_t)a64_fault_resume;
}

void a64_trap_handler(struct a64_frame *f, uint64_t kind)
{
	struct trap_info info;
	void *cpu = traps.ap ? (void *)(uintptr_t)sysreg_read(tpidr_el1) : 0;

	/* A guarded system-register access (sysreg_safe.h), on any core: back to its caller with
	 * the ESR, no record (the caller reports). */
	if ((kind & KIND_TYPE_MASK) == KIND_SYNC && sysreg_fixup(f))
		return;
	if (cpu) {
		ap_trap(f, (unsigned)(kind & KIND_TYPE_MASK), cpu);
		return;
	}
	/* The exception round-trip probe's brk/udf (on the probes' core): resumed before reporting. */
	if ((kind & KIND_TYPE_MASK) == KIND_SYNC && a64_exception_hook(f->esr, &f->elr))
		return;
	traps.depth++;
	fill_info(f, (unsigned)(kind & KIND_TYPE_MASK), &info);
	info.recoverable = info.recoverable && traps.armed;
	/* A fault while handling a fault means the reporting path itself is broken: stop. */
	if (traps.depth > 1 || !traps.report) {
		info.recoverable = false;
		if (traps.fatal)
			traps.fatal(&info);
		cpu_halt_forever();
	}
	traps.report(&info);
	if (!info.recoverable)
		traps.fatal(&info);
	/* Resume at the armed recovery point: fault_try() returns a second time with vector + 1. */
	f->x[0] = (uint64_t)(uintptr_t)traps.armed;
	f->x[1] = info.vector + 1;
	f->elr = (uint64_t)(uintptr_t)a64_fault_resume;
	traps.armed = 0;
	traps.depth--;
}
