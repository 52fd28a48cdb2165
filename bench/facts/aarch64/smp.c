/* The AArch64 fields of plat kind=smp (bench/facts/smp.h): the cores were started through PSCI
 * CPU_ON, so the conduit and PSCI version stand where x86_64 has the local APIC fields. */
#include "bench/facts/smp.h"

#include "arch/smp.h"
#include "lib/fmt.h"

#define PSCI_MAJOR_SHIFT 16
#define PSCI_MINOR_MASK 0xFFFFu

void smp_facts_arch_fields(struct record *r, const struct smp_report *rep)
{
	char ver[16];
	struct sbuf s_ver;

	if (rep->conduit)
		rec_str(r, "conduit", rep->conduit);
	if (rep->psci_version) {
		sb_init(&s_ver, ver, sizeof(ver));
		sb_u64(&s_ver, rep->psci_version >> PSCI_MAJOR_SHIFT);
		sb_putc(&s_ver, '.');
		sb_u64(&s_ver, rep->psci_version & PSCI_MINOR_MASK);
		rec_str(r, "psci_version", ver);
	}
}
