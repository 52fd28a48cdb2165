/* plat kind=smp (see bench/facts/smp.h): the fields every build has; the interrupt-controller or
 * firmware-interface fields come from smp_facts_arch_fields (bench/facts/x86_64/smp.c,
 * bench/facts/aarch64/smp.c). */
#include "bench/facts/smp.h"

#include "arch/smp.h"
#include "bench/core/summary.h"
#include "lib/emit.h"
#include "lib/fmt.h"

#define LIST_MAX 512 /* characters of an id list in the record (it must fit a 1024-byte line) */

static void id_list(struct sbuf *s, uint32_t id)
{
	if (s->len)
		sb_putc(s, ',');
	sb_u64(s, id);
}

void smp_facts_emit(void)
{
	const struct smp_report *rep = smp_report();
	char ids[LIST_MAX], failed[LIST_MAX], why[LIST_MAX], isa[LIST_MAX];
	struct sbuf s_ids, s_failed, s_why, s_isa;
	struct record *r = emit_start("plat");

	sb_init(&s_ids, ids, sizeof(ids));
	sb_init(&s_failed, failed, sizeof(failed));
	sb_init(&s_why, why, sizeof(why));
	sb_init(&s_isa, isa, sizeof(isa));
	for (unsigned i = 0; i < smp_cpus_online(); i++) {
		id_list(&s_ids, smp_cpu_hw_id(i));
		id_list(&s_isa, rep->isa_id[i]);
	}
	for (unsigned i = 0; i < rep->num_failed; i++) {
		id_list(&s_failed, rep->failed[i].hw_id);
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
	rec_u64(r, "bsp_apic_id", rep->bsp_hw_id);
	if (rep->id_source) /* hosted: the ids above are the OS's CPU numbers */
		rec_str(r, "id_source", rep->id_source);
	if (rep->isa_ids_known)
		rec_str(r, "isa_ids", isa);
	rec_str(r, "failed", rep->num_failed ? failed : "none");
	if (rep->num_failed)
		rec_str(r, "failed_why", why);
	rec_u64(r, "hotplug", rep->hotplug);
	rec_u64(r, "not_started", rep->not_started);
	smp_facts_arch_fields(r, rep);
	rec_u64(r, "bringup_cycles", rep->bringup_cycles);
	rec_u64(r, "ap_max_cycles", rep->ap_max_cycles);
	if (rep->how)
		rec_str(r, "how", rep->how);
	if (rep->reason)
		rec_str(r, "reason", rep->reason);
	emit_finish();
	if (rep->num_failed)
		emit_msg(MSG_WARN, "some processors did not start (plat kind=smp failed=)");
	summary_value("CPUs online", smp_cpus_online(), 0, "");
}
