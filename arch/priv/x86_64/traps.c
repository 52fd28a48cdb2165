/* GDT, TSS, IDT and the C side of exception handling (see traps.h; the exception entry stubs,
 * recovery points and fault-tolerant MSR accessors are in traps.S). The interrupt gates point at
 * irq.S's stubs; this unit calls irq.c (the gates are in, the exception hook), never the reverse. */
/* OPT_FAST: -O2 (Makefile): interrupt path (delivery, handlers, EOI) timed by the irq probes and the profiler. */
#include "arch/traps.h"

#include "arch/irq.h" /* the interrupt unit: its gates are in, its exception hook */
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/msr.h"

/* Segment selectors of our GDT. */
#define SEL_NULL 0x00
#define SEL_CODE64 0x08
#define SEL_DATA 0x10
#define SEL_TSS 0x18

/* GDT descriptor bits (SDM vol. 3, 3.4.5). */
#define SEG_ACCESSED (1ull << 40)
#define SEG_RW (1ull << 41)
#define SEG_EXEC (1ull << 43)
#define SEG_CODE_DATA (1ull << 44) /* S: code/data rather than system */
#define SEG_PRESENT (1ull << 47)
#define SEG_LONG (1ull << 53)
#define SEG_DB32 (1ull << 54)
#define SEG_GRAN4K (1ull << 55)
#define SEG_LIMIT_MAX (0xFFFFull | (0xFull << 48))

#define GDT_CODE64 (SEG_LIMIT_MAX | SEG_ACCESSED | SEG_RW | SEG_EXEC | SEG_CODE_DATA | SEG_PRESENT | SEG_LONG | SEG_GRAN4K)
#define GDT_DATA (SEG_LIMIT_MAX | SEG_ACCESSED | SEG_RW | SEG_CODE_DATA | SEG_PRESENT | SEG_DB32 | SEG_GRAN4K)
#define TSS_TYPE_AVAILABLE 0x9ull

/* IDT gate (SDM vol. 3, 6.14.1). */
#define IDT_TYPE_INTERRUPT_GATE 0xE
#define IDT_PRESENT 0x80

/* IST slots: 1 for #DF, 2 for NMI, 3 for #MC, so each runs on a stack of its own even when the
 * fault was caused by the stack itself. */
#define IST_DF 1
#define IST_NMI 2
#define IST_MC 3

struct __attribute__((packed)) idt_gate {
	uint16_t offset_low;
	uint16_t selector;
	uint8_t ist;
	uint8_t type_attr;
	uint16_t offset_mid;
	uint32_t offset_high;
	uint32_t reserved;
};

struct __attribute__((packed)) table_register {
	uint16_t limit;
	uint64_t base;
};

static uint64_t gdt[TRAPS_GDT_ENTRIES] __attribute__((aligned(16)));
static struct tss64 tss __attribute__((aligned(16)));
#define IDT_VECTORS TRAPS_IDT_VECTORS
#define IRQ_STUB_SPACING 16
_Static_assert(sizeof(struct idt_gate) == TRAPS_IDT_GATE_BYTES, "IDT gate size");
/* In the memory of traps_provide_memory: the IDT, then the BSP's IST stacks. */
static struct idt_gate *idt;
static uint8_t *ist_stacks;

extern const int64_t x86_trap_stub_offsets[X86_NUM_EXCEPTIONS];
extern const uint8_t x86_irq_stubs[];
extern const int64_t x86_extable[];
extern const uint64_t x86_extable_entries;
extern void x86_load_segments(uint16_t code_sel, uint16_t data_sel, uint16_t tss_sel);
extern int rdmsr_raw(uint32_t msr, uint64_t *value);
extern int wrmsr_raw(uint32_t msr, uint64_t value);
extern int rdpmc_raw(uint32_t index, uint64_t *value);
void x86_trap_handler(struct trap_frame *f);

static struct {
	bool installed;
	trap_report_fn report;
	trap_fatal_fn fatal;
	struct fault_jmp *armed;
	unsigned depth;
} traps;

static void set_gate(unsigned vec, uint64_t handler, uint8_t ist)
{
	struct idt_gate *g = &idt[vec];

	g->offset_low = (uint16_t)handler;
	g->selector = SEL_CODE64;
	g->ist = ist;
	g->type_attr = IDT_PRESENT | IDT_TYPE_INTERRUPT_GATE;
	g->offset_mid = (uint16_t)(handler >> 16);
	g->offset_high = (uint32_t)(handler >> 32);
	g->reserved = 0;
}

/* One CPU's GDT and TSS; IST slot k (1-based) gets the top of the k-th stack in `ist`. */
static void build_gdt(uint64_t *g, struct tss64 *t, uint8_t *ist)
{
	uint64_t base = (uint64_t)(uintptr_t)t;
	uint64_t limit = sizeof(*t) - 1;

	g[0] = 0;
	g[1] = GDT_CODE64;
	g[2] = GDT_DATA;
	/* A 64-bit TSS descriptor takes two slots. */
	g[3] = (limit & 0xFFFF) | ((base & 0xFFFFFF) << 16) | (TSS_TYPE_AVAILABLE << 40) |
	       SEG_PRESENT | (((limit >> 16) & 0xF) << 48) | (((base >> 24) & 0xFF) << 56);
	g[4] = base >> 32;
	*t = (struct tss64){ 0 };
	for (unsigned k = 1; k <= TRAPS_IST_STACKS; k++)
		t->ist[k - 1] = (uint64_t)(uintptr_t)(ist + k * TRAPS_IST_STACK_SIZE);
	t->iomap_base = sizeof(*t); /* no I/O permission bitmap */
}

static void load_tables(uint64_t *g)
{
	struct table_register gdtr = { TRAPS_GDT_ENTRIES * sizeof(uint64_t) - 1, (uint64_t)(uintptr_t)g };
	struct table_register idtr = { IDT_VECTORS * sizeof(*idt) - 1, (uint64_t)(uintptr_t)idt };

	__asm__ volatile("lgdt %0" : : "m"(gdtr) : "memory");
	x86_load_segments(SEL_CODE64, SEL_DATA, SEL_TSS);
	__asm__ volatile("lidt %0" : : "m"(idtr) : "memory");
}

static uint64_t current_gdt(void)
{
	struct table_register gdtr;

	__asm__ volatile("sgdt %0" : "=m"(gdtr));
	return gdtr.base;
}

void traps_provide_memory(void *mem)
{
	idt = mem;
	ist_stacks = (uint8_t *)mem + IDT_VECTORS * sizeof(*idt);
}

void traps_init(trap_report_fn report, trap_fatal_fn fatal)
{
	uint64_t base = (uint64_t)(uintptr_t)x86_trap_stub_offsets;
	unsigned v;

	if (!idt)
		return; /* no memory was provided: traps stay uninstalled (see traps.h) */
	traps.report = report;
	traps.fatal = fatal;
	build_gdt(gdt, &tss, ist_stacks);
	for (v = 0; v < X86_NUM_EXCEPTIONS; v++) {
		uint8_t ist = v == X86_VEC_DF ? IST_DF : v == X86_VEC_NMI ? IST_NMI : v == X86_VEC_MC ? IST_MC : 0;

		set_gate(v, base + (uint64_t)x86_trap_stub_offsets[v], ist);
	}
	for (v = X86_NUM_EXCEPTIONS; v < IDT_VECTORS; v++)
		set_gate(v, (uint64_t)(uintptr_t)(x86_irq_stubs + IRQ_STUB_SPACING * (v - X86_NUM_EXCEPTIONS)), 0);
	load_tables(gdt);
	traps.installed = true;
	x86_irq_gates_installed();
}

void traps_load_ap(struct traps_ap_tables *t, uint8_t *ist, traps_ap_handler_fn handler)
{
	t->handler = handler;
	build_gdt(t->gdt, &t->tss, ist);
	load_tables(t->gdt);
}

bool traps_installed(void)
{
	return traps.installed;
}

void fault_arm(struct fault_jmp *j)
{
	traps.armed = j;
}

void fault_disarm(void)
{
	traps.armed = 0;
}

int rdmsr_safe(uint32_t msr, uint64_t *value)
{
	if (!traps.installed)
		return MSR_NO_TRAPS;
	return rdmsr_raw(msr, value) ? MSR_FAULT : MSR_OK;
}

int wrmsr_safe(uint32_t msr, uint64_t value)
{
	if (!traps.installed)
		return MSR_NO_TRAPS;
	return wrmsr_raw(msr, value) ? MSR_FAULT : MSR_OK;
}

int rdpmc_safe(uint32_t index, uint64_t *value)
{
	if (!traps.installed)
		return MSR_NO_TRAPS;
	return rdpmc_raw(index, value) ? MSR_FAULT : MSR_OK;
}

/* #GP (a missing MSR or counter) or #UD (rdpmc intercepted by an emulator) at an instruction of
 * the exception table: resume at its fixup. */
static bool extable_fixup(struct trap_frame *f)
{
	uint64_t base = (uint64_t)(uintptr_t)x86_extable;
	uint64_t i;

	if (f->vector != X86_VEC_GP && f->vector != X86_VEC_UD)
		return false;
	for (i = 0; i < x86_extable_entries; i++) {
		if (base + (uint64_t)x86_extable[2 * i] == f->rip) {
			f->rip = base + (uint64_t)x86_extable[2 * i + 1];
			return true;
		}
	}
	return false;
}

/* Resume at the armed recovery point: fault_try() returns a second time, with vector + 1. */
static void resume_at(struct trap_frame *f, const struct fault_jmp *j)
{
	f->rbx = j->cpu.rbx;
	f->rbp = j->cpu.rbp;
	f->r12 = j->cpu.r12;
	f->r13 = j->cpu.r13;
	f->r14 = j->cpu.r14;
	f->r15 = j->cpu.r15;
	f->rsp = j->cpu.rsp;
	f->rip = j->cpu.rip;
	f->rax = f->vector + 1;
	f->rflags &= ~X86_RFLAGS_IF; /* measurement runs with interrupts masked */
}

/* NMI, #BP and #DB are not errors of the interrupted code: it goes on after them. */
static bool vector_benign(unsigned v)
{
	return v == X86_VEC_NMI || v == X86_VEC_BP || v == X86_VEC_DB;
}

static void fill_info(const struct trap_frame *f, struct trap_info *info)
{
	unsigned v = (unsigned)f->vector;

	info->vector = v;
	info->name = trap_vector_name(v);
	info->error = f->error;
	info->rip = f->rip;
	info->cr2 = v == X86_VEC_PF ? cpu_read_cr2() : 0;
	info->rsp = f->rsp;
	/* #DF and #MC leave the machine in a state we cannot trust. */
	info->recoverable = vector_benign(v) || (v != X86_VEC_DF && v != X86_VEC_MC);
}

/* An exception on an AP: its own handler decides; the BSP's state (depth, armed point) is not
 * touched, and nothing is emitted from here. */
static void ap_trap(struct trap_frame *f, struct traps_ap_tables *t)
{
	struct trap_info info;
	const struct fault_jmp *j;

	fill_info(f, &info);
	j = t->handler ? t->handler(t, &info) : 0;
	if (j) {
		resume_at(f, j);
		return;
	}
	if (vector_benign(info.vector)) {
		f->rip = info.rip;
		return;
	}
	cpu_halt_forever();
}

void x86_trap_handler(struct trap_frame *f)
{
	struct trap_info info;
	unsigned v = (unsigned)f->vector;
	uint64_t g;
	bool benign;

	if (extable_fixup(f))
		return;
	g = current_gdt();
	if (g != (uint64_t)(uintptr_t)gdt) {
		ap_trap(f, (struct traps_ap_tables *)(uintptr_t)g);
		return;
	}
	/* The exception round-trip probe's #BP/#UD: resumed without a report. */
	if ((v == X86_VEC_BP || v == X86_VEC_UD) && x86_exception_hook(f))
		return;
	traps.depth++;
	fill_info(f, &info);
	/* A fault while handling a fault means the reporting path itself is broken: stop. */
	benign = vector_benign(v);
	info.recoverable = benign || (traps.armed && info.recoverable);
	if (traps.depth > 1 || !traps.report) {
		info.recoverable = false;
		traps.fatal(&info);
	}
	traps.report(&info);
	if (!info.recoverable)
		traps.fatal(&info);
	if (benign) {
		traps.depth--;
		return;
	}
	resume_at(f, traps.armed);
	traps.armed = 0;
	traps.depth--;
}
