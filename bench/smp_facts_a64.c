/* plat kind=smp of the AArch64 build (bench/smp_facts.h; bench/smp_facts.c is x86_64's and the
 * hosted build's): the cores started through PSCI CPU_ON, by packed MPIDR affinity, with the PSCI
 * conduit and version instead of the local APIC fields. */
#include "bench/smp_facts.h"

#include "arch/smp.h"
#include "bench/summary.h"
#include "lib/emit.h"
#include "lib/fmt.h"

#define LIST_MAX 512 /* characters of an id list in the record (it must fit a 1024-byte line) */
#define PSCI_MAJOR_SHIFT 16
#define PSCI_MINOR_MASK 0xFFFFu

static void id_list(struct sbuf *s, uint32_t id)
{
	if (s->len)
		sb_putc(s, ',');
	sb_u64(s, id);
}

void smp_facts_emit(void)
{
	const struct smp_report *rep = smp_report();
	char ids[LIST_MAX], failed[LIST_MAX], why[LIST_MAX], ver[16];
	struct sbuf s_ids, s_failed, s_why, s_ver;
	struct record *r = emit_start("plat");

	sb_init(&s_ids, ids, sizeof(ids));
	sb_init(&s_failed, failed, sizeof(failed));
	sb_init(&s_why, why, sizeof(why));
	for (unsigned i = 0; i < smp_cpus_online(); i++)
		id_list(&s_ids, smp_cpu_apic_id(i));
	for (unsigned i = 0; i < rep->num_failed; i++) {
		id_list(&s_failed, rep->failed[i].apic_id);
		if (s_why.len)
			sb_putc(&s_why, ',');
		sb_puts(&s_why, rep->failed[i].reason);
		sb_puts(&s_why, "/stage");
		sb_u64(&s_why, rep->failed[i].stage);
	}
	rec_str(r, "kind", "smp");
	rec_u64(r, "cpus_madt", rep->cpus_madt);
	rec_u64(r, "cpus_online", smp_cpus_online());
	rec_str(r, "apic_ids", ids);
	rec_u64(r, "bsp_apic_id", rep->bsp_apic_id);
	rec_str(r, "failed", rep->num_failed ? failed : "none");
	if (rep->num_failed)
		rec_str(r, "failed_why", why);
	rec_u64(r, "hotplug", rep->hotplug);
	rec_u64(r, "not_started", rep->not_started);
	if (rep->conduit)
		rec_str(r, "conduit", rep->conduit);
	if (rep->psci_version) {
		sb_init(&s_ver, ver, sizeof(ver));
		sb_u64(&s_ver, rep->psci_version >> PSCI_MAJOR_SHIFT);
		sb_putc(&s_ver, '.');
		sb_u64(&s_ver, rep->psci_version & PSCI_MINOR_MASK);
		rec_str(r, "psci_version", ver);
	}
	rec_u64(r, "bringup_cycles", rep->bringup_cycles);
	rec_u64(r, "ap_max_cycles", rep->ap_max_cycles);
	if (rep->how)
		rec_str(r, "how", rep->how);
	if (rep->reason)
		rec_str(r, "reason", rep->reason);
	emit_finish();
	if (rep->num_failed)
		emit_msg(MSG_WARN, "some cores did not start (plat kind=smp failed=)");
	summary_value("CPUs online", smp_cpus_online(), 0, "");
}
