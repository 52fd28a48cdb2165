/* Choosing the local APIC's mode: leave it as the firmware handed it over, or switch it to x2APIC
 * (Intel SDM vol. 3A, "x2APIC State Transitions": from xAPIC mode (EN=1, EXTD=0) a single write
 * of IA32_APIC_BASE with EXTD=1, EN=1 enters x2APIC mode; EXTD=1 with EN=0 is invalid (#GP); and
 * x2APIC -> xAPIC is allowed only through the disabled state (EN=0, EXTD=0), which resets the
 * APIC — so we never go back). The mode is per processor: the BSP switches before the interrupt
 * platform and the APs are set up, and every AP switches itself in its start-up path before it
 * touches its APIC (efi/x86_64/smp.c).
 *
 * Why switch at all: OVMF hands over in xAPIC mode, while real machines with many CPUs hand over in
 * x2APIC mode already; switching lets the x2APIC paths (MSR registers, the one-write 64-bit ICR,
 * the SELF IPI MSR) run where the CPU offers them, e.g. QEMU 10 with -cpu max. */
#ifndef DRIVERS_LAPIC_MODE_H
#define DRIVERS_LAPIC_MODE_H

#include <stdbool.h>
#include <stdint.h>

#include "drivers/irqchip/x86_64/lapic.h"

enum lapic_mode_request {
	LAPIC_MODE_AUTO,   /* as the firmware handed over */
	LAPIC_MODE_XAPIC,  /* stay in xAPIC mode (refused, with a reason, if already in x2APIC) */
	LAPIC_MODE_X2APIC, /* switch to x2APIC where CPUID offers it */
};

struct lapic_mode_result {
	enum lapic_mode_request request;
	bool x2apic;                /* the mode after the call */
	bool switched;              /* we wrote EXTD (else the mode is the firmware's) */
	uint64_t apic_base_found;   /* IA32_APIC_BASE before (0 when unreadable) */
	uint64_t apic_base_now;     /* and after */
	const char *reason;         /* why the request was not met; NULL when it was */
};

/* Apply `req` on the calling processor. io: a register model (its rdmsr/wrmsr), or NULL for the
 * hardware (rdmsr_safe/wrmsr_safe: traps must be installed). cpu_x2apic: CPUID.1:ECX.x2APIC of
 * this processor. Returns true when the request was met (auto always is, when the MSR reads). */
bool lapic_mode_apply(const struct lapic_io *io, enum lapic_mode_request req, bool cpu_x2apic,
		      struct lapic_mode_result *out);

/* The same on the BSP, keeping the result for the records (lapic_mode_bsp()). */
bool lapic_mode_bsp_apply(enum lapic_mode_request req, bool cpu_x2apic);
/* The BSP's result; request auto and how "firmware" when lapic_mode_bsp_apply never ran. */
const struct lapic_mode_result *lapic_mode_bsp(void);

/* "switched" or "firmware": how the mode in use was reached. */
const char *lapic_mode_how(const struct lapic_mode_result *r);
const char *lapic_mode_request_name(enum lapic_mode_request req);

#endif
