/* The x86_64 fields of plat kind=smp (bench/facts/smp.h): the local APIC's mode and base, and the
 * INIT-SIPI start-up page (bare metal; the hosted build reports none of them). */
#include "bench/facts/smp.h"

#include "arch/smp.h"

void smp_facts_arch_fields(struct record *r, const struct smp_report *rep)
{
	if (rep->lapic_base || rep->x2apic) {
		rec_str(r, "lapic_mode", rep->x2apic ? "x2apic" : "xapic");
		if (rep->lapic_mode_how)
			rec_str(r, "lapic_mode_how", rep->lapic_mode_how);
		if (rep->x2apic)
			rec_u64(r, "aps_switched", rep->aps_switched);
		rec_hex(r, "lapic_base", rep->lapic_base);
	}
	if (rep->lowpage) {
		rec_hex(r, "lowpage", rep->lowpage);
		rec_bool(r, "pml4_copy", rep->pml4_copy);
	}
}
