/* Processor start-up glue for the UEFI build (see smp_boot.h). */
#include "efi/smp_boot.h"

#include <efi.h>
#include <efilib.h>

#include "arch/smp.h"
#include "bench/summary.h"
#include "drivers/madt.h"
#include "efi/lowmem.h"
#include "lib/emit.h"
#include "lib/fmt.h"

#define PAGE_BYTES 4096u
#define LIST_MAX 512 /* characters of an id list in the record (it must fit a 1024-byte line) */

static struct {
	bool enabled;
	struct madt_info madt;
	EFI_PHYSICAL_ADDRESS lowpage;
	uint8_t *stacks;
	unsigned max_cpus;
	const char *reason; /* why nothing was reserved */
} sb;

void smp_boot_reserve(const struct acpi_info *acpi, bool enabled)
{
	EFI_PHYSICAL_ADDRESS stacks = 0;
	UINTN pages;

	sb.enabled = enabled;
	if (!enabled) {
		sb.reason = "disabled by option smp=0";
		return;
	}
	if (!acpi->madt || !madt_parse(acpi->madt, &sb.madt)) {
		sb.reason = "no valid MADT";
		return;
	}
	sb.max_cpus = sb.madt.num_enabled < SMP_MAX_CPUS ? sb.madt.num_enabled : SMP_MAX_CPUS;
	if (sb.max_cpus < 2) {
		sb.reason = "the MADT lists no other enabled processor";
		return;
	}
	sb.lowpage = lowmem_alloc(SMP_LOWMEM_PAGES, SMP_LOWMEM_LIMIT, EfiLoaderCode);
	if (!sb.lowpage) {
		sb.reason = "no free pages below 1 MiB for the start-up code";
		return;
	}
	pages = ((UINTN)(sb.max_cpus - 1) * SMP_STACK_SIZE + PAGE_BYTES - 1) / PAGE_BYTES;
	if (EFI_ERROR(uefi_call_wrapper(BS->AllocatePages, 4, AllocateAnyPages, EfiLoaderData, pages, &stacks))) {
		sb.reason = "no memory for the AP stacks";
		return;
	}
	sb.stacks = (uint8_t *)(UINTN)stacks;
}

static void id_list(struct sbuf *s, uint32_t id)
{
	if (s->len)
		sb_putc(s, ',');
	sb_u64(s, id);
}

static void emit_smp(const struct smp_report *rep)
{
	char ids[LIST_MAX], failed[LIST_MAX], why[LIST_MAX];
	struct sbuf s_ids, s_failed, s_why;
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
	rec_u64(r, "cpus_madt", sb.madt.valid ? sb.madt.num_enabled : 0);
	rec_u64(r, "cpus_online", smp_cpus_online());
	rec_str(r, "apic_ids", ids);
	rec_u64(r, "bsp_apic_id", rep->bsp_apic_id);
	rec_str(r, "failed", rep->num_failed ? failed : "none");
	if (rep->num_failed)
		rec_str(r, "failed_why", why);
	rec_u64(r, "hotplug", sb.madt.num_online_capable);
	rec_u64(r, "not_started", rep->not_started);
	if (rep->lapic_base || rep->x2apic) {
		rec_str(r, "lapic_mode", rep->x2apic ? "x2apic" : "xapic");
		rec_hex(r, "lapic_base", rep->lapic_base);
	}
	rec_hex(r, "lowpage", sb.lowpage);
	rec_bool(r, "pml4_copy", rep->pml4_copy);
	rec_u64(r, "bringup_cycles", rep->bringup_cycles);
	rec_u64(r, "ap_max_cycles", rep->ap_max_cycles);
	if (rep->reason)
		rec_str(r, "reason", rep->reason);
	emit_finish();
}

unsigned smp_boot_start(uint64_t tsc_hz)
{
	const struct smp_report *rep;
	unsigned n = 1;

	if (!sb.reason)
		n = smp_start_aps(&sb.madt, (void *)(UINTN)sb.lowpage, sb.stacks, SMP_STACK_SIZE, sb.max_cpus, tsc_hz);
	else
		smp_start_none(sb.reason);
	rep = smp_report();
	emit_smp(rep);
	if (rep->num_failed)
		emit_msg(MSG_WARN, "some processors listed in the MADT did not start (plat kind=smp failed=)");
	summary_value("CPUs online", n, 0, "");
	return n;
}
