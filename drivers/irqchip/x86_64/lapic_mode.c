/* Local APIC mode choice: xAPIC as handed over, or a switch to x2APIC (see lapic_mode.h). */
#include "drivers/irqchip/x86_64/lapic_mode.h"

#include "arch/x86_64/msr.h"

static struct lapic_mode_result bsp;

static int rd(const struct lapic_io *io, uint64_t *v)
{
	return io ? io->rdmsr(io->ctx, MSR_IA32_APIC_BASE, v) : rdmsr_safe(MSR_IA32_APIC_BASE, v);
}

static int wr(const struct lapic_io *io, uint64_t v)
{
	return io ? io->wrmsr(io->ctx, MSR_IA32_APIC_BASE, v) : wrmsr_safe(MSR_IA32_APIC_BASE, v);
}

bool lapic_mode_apply(const struct lapic_io *io, enum lapic_mode_request req, bool cpu_x2apic,
		      struct lapic_mode_result *out)
{
	uint64_t base = 0;

	*out = (struct lapic_mode_result){ .request = req };
	if (rd(io, &base) != MSR_OK) {
		out->reason = "IA32_APIC_BASE unreadable: the mode cannot be known or changed";
		return false;
	}
	out->apic_base_found = out->apic_base_now = base;
	out->x2apic = (base & APIC_BASE_EXTD) != 0;
	switch (req) {
	case LAPIC_MODE_AUTO:
		return true;
	case LAPIC_MODE_XAPIC:
		if (out->x2apic) {
			/* Back to xAPIC only through the disabled state, which resets the APIC. */
			out->reason = "the firmware handed over in x2APIC mode; leaving it needs an APIC disable (SDM), not done";
			return false;
		}
		return true;
	case LAPIC_MODE_X2APIC:
		break;
	}
	if (out->x2apic)
		return true;
	if (!cpu_x2apic) {
		/* EXTD is reserved without x2APIC: the write would #GP. */
		out->reason = "CPUID.1:ECX.x2APIC is 0: the CPU has no x2APIC mode, staying in xAPIC";
		return false;
	}
	if (!(base & APIC_BASE_ENABLE)) {
		/* EXTD=1 with EN=0 is the invalid state (SDM). */
		out->reason = "local APIC globally disabled (IA32_APIC_BASE.EN clear): not switched";
		return false;
	}
	/* xAPIC -> x2APIC: one write, EN stays set. Read back: it must have taken. */
	if (wr(io, base | APIC_BASE_EXTD) != MSR_OK) {
		out->reason = "writing IA32_APIC_BASE.EXTD faulted: staying in xAPIC";
		return false;
	}
	if (rd(io, &out->apic_base_now) != MSR_OK || !(out->apic_base_now & APIC_BASE_EXTD)) {
		out->reason = "IA32_APIC_BASE.EXTD did not stick: staying in xAPIC";
		return false;
	}
	out->x2apic = true;
	out->switched = true;
	return true;
}

bool lapic_mode_bsp_apply(enum lapic_mode_request req, bool cpu_x2apic)
{
	return lapic_mode_apply(0, req, cpu_x2apic, &bsp);
}

const struct lapic_mode_result *lapic_mode_bsp(void)
{
	return &bsp;
}

const char *lapic_mode_how(const struct lapic_mode_result *r)
{
	return r->switched ? "switched" : "firmware";
}

const char *lapic_mode_request_name(enum lapic_mode_request req)
{
	switch (req) {
	case LAPIC_MODE_AUTO:
		return "auto";
	case LAPIC_MODE_XAPIC:
		return "xapic";
	case LAPIC_MODE_X2APIC:
		return "x2apic";
	}
	return "unknown";
}
