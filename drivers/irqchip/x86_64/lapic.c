/* Local APIC access and inter-processor interrupts (see lapic.h). */
/* OPT_FAST: -O2 (Makefile): interrupt path (delivery, handlers, EOI) timed by the irq probes and the profiler. */
#include "drivers/irqchip/x86_64/lapic.h"

#include "arch/x86_64/cpu.h"
#include "arch/x86_64/io.h"
#include "arch/x86_64/msr.h"
#include "arch/cycles.h"

#define US_PER_S 1000000ull
/* When the TSC rate is unknown, assume a fast one: waits then last longer, never shorter. */
#define FALLBACK_TSC_HZ 5000000000ull
#define XAPIC_DEFAULT_BASE 0xFEE00000ull

static uint64_t us_to_cycles(uint64_t us, uint64_t tsc_hz)
{
	return us * ((tsc_hz ? tsc_hz : FALLBACK_TSC_HZ) / US_PER_S);
}

void lapic_delay_us(uint64_t us, uint64_t tsc_hz)
{
	uint64_t start = cycles_read(), cycles = us_to_cycles(us, tsc_hz);

	while (cycles_read() - start < cycles)
		cpu_relax();
}

int lapic_rdmsr(const struct lapic *l, uint32_t msr, uint64_t *v)
{
	if (l->io)
		return l->io->rdmsr(l->io->ctx, msr, v);
	return rdmsr_safe(msr, v);
}

int lapic_wrmsr(const struct lapic *l, uint32_t msr, uint64_t v)
{
	if (l->io)
		return l->io->wrmsr(l->io->ctx, msr, v);
	return wrmsr_safe(msr, v);
}

int lapic_wrmsr_ordered(const struct lapic *l, uint32_t msr, uint64_t v)
{
	if (l->io && l->io->wrmsr_fence)
		l->io->wrmsr_fence(l->io->ctx);
	else
		cpu_wrmsr_fence();
	return lapic_wrmsr(l, msr, v);
}

uint32_t lapic_read(const struct lapic *l, unsigned reg)
{
	uint64_t v = 0;

	if (l->x2apic) {
		if (lapic_rdmsr(l, X2APIC_MSR_BASE + (reg >> 4), &v) != MSR_OK)
			return 0;
		return (uint32_t)v;
	}
	if (l->io)
		return l->io->mmio_read32(l->io->ctx, l->base + reg);
	return mmio_read32((uintptr_t)(l->base + reg));
}

void lapic_write(const struct lapic *l, unsigned reg, uint32_t v)
{
	if (l->x2apic)
		(void)lapic_wrmsr(l, X2APIC_MSR_BASE + (reg >> 4), v);
	else if (l->io)
		l->io->mmio_write32(l->io->ctx, l->base + reg, v);
	else
		mmio_write32((uintptr_t)(l->base + reg), v);
}

uint32_t lapic_id(const struct lapic *l)
{
	uint32_t v = lapic_read(l, LAPIC_REG_ID);

	return l->x2apic ? v : v >> LAPIC_ID_SHIFT;
}

uint32_t lapic_error_status(const struct lapic *l)
{
	/* xAPIC: a write latches the errors collected since the last one into the register. The
	 * x2APIC ESR wants a write of 0 as well. */
	lapic_write(l, LAPIC_REG_ESR, 0);
	return lapic_read(l, LAPIC_REG_ESR);
}

bool lapic_init(struct lapic *l, uint64_t madt_base, bool cpu_x2apic)
{
	const struct lapic_io *io = l->io; /* kept: a test's register model */
	uint64_t msr = 0;

	*l = (struct lapic){ 0 };
	l->io = io;
	if (lapic_rdmsr(l, MSR_IA32_APIC_BASE, &msr) == MSR_OK && msr) {
		l->apic_base_msr = msr;
		if (!(msr & APIC_BASE_ENABLE)) {
			l->reason = "local APIC globally disabled (IA32_APIC_BASE.EN clear)";
			return false;
		}
		if (msr & APIC_BASE_EXTD) {
			if (!cpu_x2apic) {
				l->reason = "IA32_APIC_BASE says x2APIC mode but CPUID has no x2APIC";
				return false;
			}
			l->x2apic = true;
		}
		l->base = msr & APIC_BASE_ADDR_MASK;
	} else {
		/* Unreadable (or a model that reads 0): trust the MADT, else the architectural default. */
		l->base = madt_base ? madt_base : XAPIC_DEFAULT_BASE;
	}
	l->present = true;
	lapic_software_enable(l);
	return true;
}

void lapic_software_enable(const struct lapic *l)
{
	uint32_t svr = lapic_read(l, LAPIC_REG_SVR);

	if (!(svr & LAPIC_SVR_ENABLE))
		lapic_write(l, LAPIC_REG_SVR, (svr & ~LAPIC_SVR_VECTOR_MASK) | LAPIC_SVR_ENABLE | LAPIC_SPURIOUS_VECTOR);
}

enum lapic_send lapic_send_ipi(const struct lapic *l, uint32_t apic_id, uint32_t icr_low, uint64_t tsc_hz)
{
	uint64_t start, limit = us_to_cycles(LAPIC_SEND_TIMEOUT_US, tsc_hz);
	uint32_t esr;

	(void)lapic_error_status(l);
	/* Stores made before the IPI must be visible to its target when it acts on it. */
	if (l->x2apic) {
		/* No delivery-status bit in x2APIC mode: the write completes the send. The ICR
		 * WRMSR is not serialising: MFENCE alone would not order it (mfence; lfence). */
		if (lapic_wrmsr_ordered(l, X2APIC_MSR_ICR, ((uint64_t)apic_id << ICR_X2APIC_DEST_SHIFT) | icr_low) != MSR_OK)
			return LAPIC_SEND_ERROR;
	} else {
		cpu_mfence();
		if (apic_id > LAPIC_XAPIC_MAX_ID)
			return LAPIC_SEND_UNREACHABLE;
		lapic_write(l, LAPIC_REG_ICR_HIGH, apic_id << ICR_XAPIC_DEST_SHIFT);
		lapic_write(l, LAPIC_REG_ICR_LOW, icr_low); /* this write sends */
		start = cycles_read();
		while (lapic_read(l, LAPIC_REG_ICR_LOW) & ICR_DELIVERY_PENDING) {
			if (cycles_read() - start > limit)
				return LAPIC_SEND_TIMEOUT;
			cpu_relax();
		}
	}
	esr = lapic_error_status(l);
	if (esr & (ESR_SEND_CHECKSUM | ESR_SEND_ACCEPT | ESR_SEND_ILLEGAL_VECTOR | ESR_ILLEGAL_REG))
		return LAPIC_SEND_ERROR;
	return LAPIC_SEND_OK;
}

enum lapic_send lapic_send_init(const struct lapic *l, uint32_t apic_id, uint64_t tsc_hz)
{
	return lapic_send_ipi(l, apic_id, ICR_DM_INIT | ICR_DEST_PHYSICAL | ICR_LEVEL_ASSERT |
				 ICR_TRIGGER_LEVEL | ICR_SHORTHAND_NONE, tsc_hz);
}

/* Only the 82489DX needed it; later APICs ignore it. Sent as the MP specification's sequence has it. */
enum lapic_send lapic_send_init_deassert(const struct lapic *l, uint32_t apic_id, uint64_t tsc_hz)
{
	return lapic_send_ipi(l, apic_id, ICR_DM_INIT | ICR_DEST_PHYSICAL | ICR_TRIGGER_LEVEL |
				 ICR_SHORTHAND_NONE, tsc_hz);
}

enum lapic_send lapic_send_startup(const struct lapic *l, uint32_t apic_id, uint8_t vector, uint64_t tsc_hz)
{
	return lapic_send_ipi(l, apic_id, ICR_DM_STARTUP | ICR_DEST_PHYSICAL | ICR_LEVEL_ASSERT |
				 ICR_SHORTHAND_NONE | (vector & ICR_VECTOR_MASK), tsc_hz);
}

enum lapic_send lapic_send_nmi(const struct lapic *l, uint32_t apic_id, uint64_t tsc_hz)
{
	return lapic_send_ipi(l, apic_id, ICR_DM_NMI | ICR_DEST_PHYSICAL | ICR_LEVEL_ASSERT |
				 ICR_SHORTHAND_NONE, tsc_hz);
}

const char *lapic_send_name(enum lapic_send s)
{
	switch (s) {
	case LAPIC_SEND_OK:
		return "ok";
	case LAPIC_SEND_TIMEOUT:
		return "ipi_timeout";
	case LAPIC_SEND_ERROR:
		return "ipi_error";
	case LAPIC_SEND_UNREACHABLE:
		return "unreachable";
	}
	return "unknown";
}
