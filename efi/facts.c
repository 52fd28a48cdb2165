/* Firmware-discovered platform records (see facts.h). */
#include "efi/facts.h"

#include "bench/core/summary.h"
#include "bench/facts/ident.h"
#include "drivers/fw/smbios.h"
#include "lib/emit.h"
#include "lib/fmt.h"

void facts_emit_firmware(const char *vendor, UINT32 fw_rev, UINT32 uefi_rev, const void *smbios_entry,
			 const struct acpi_info *acpi)
{
	struct record *r = emit_start("plat");
	struct smbios_info si;
	char ver[24];
	struct sbuf sb;

	rec_str(r, "kind", "firmware");
	rec_str(r, "vendor", vendor);
	rec_hex(r, "rev", fw_rev);
	sb_init(&sb, ver, sizeof(ver));
	sb_u64(&sb, uefi_rev >> 16);
	sb_putc(&sb, '.');
	sb_u64(&sb, (uefi_rev & 0xFFFF) / 10);
	if ((uefi_rev & 0xFFFF) % 10) {
		sb_putc(&sb, '.');
		sb_u64(&sb, (uefi_rev & 0xFFFF) % 10);
	}
	rec_str(r, "uefi", ver);
	sb_init(&sb, ver, sizeof(ver));
	if (smbios_entry && smbios_parse_entry(smbios_entry, &si) == 0) {
		sb_u64(&sb, (uint64_t)si.major);
		sb_putc(&sb, '.');
		sb_u64(&sb, (uint64_t)si.minor);
	} else {
		sb_puts(&sb, "none");
	}
	rec_str(r, "smbios", ver);
	rec_u64(r, "acpi", acpi->present ? acpi->revision : 0);
	emit_finish();
}

void facts_emit_memmap(const struct memmap_summary *s)
{
	struct record *r = emit_start("plat");

	rec_str(r, "kind", "memmap");
	rec_u64(r, "entries", s->entries);
	rec_u64(r, "desc_size", s->desc_size);
	rec_u64(r, "conventional", s->conventional);
	rec_u64(r, "largest_free", s->largest_free);
	rec_u64(r, "total", s->total);
	for (unsigned t = 0; t < MEMMAP_TYPES; t++) {
		char key[32];
		struct sbuf sb;

		if (!s->per_type[t])
			continue;
		sb_init(&sb, key, sizeof(key));
		sb_puts(&sb, "t_");
		sb_puts(&sb, memmap_type_name(t));
		rec_u64(r, key, s->per_type[t]);
	}
	emit_finish();
	summary_value("memory usable (MiB)", s->conventional >> 20, 0, "");
}

void facts_emit_acpi(const struct acpi_info *acpi)
{
	struct record *r = emit_start("plat");
	char list[ACPI_MAX_TABLES * 5 + 1];
	struct sbuf sb;

	rec_str(r, "kind", "acpi");
	rec_bool(r, "present", acpi->present);
	rec_hex(r, "rsdp", acpi->rsdp);
	rec_u64(r, "rev", acpi->revision);
	sb_init(&sb, list, sizeof(list));
	for (unsigned i = 0; i < acpi->num_tables; i++) {
		if (i)
			sb_putc(&sb, ',');
		sb_puts(&sb, acpi->signatures[i]);
	}
	rec_str(r, "tables", list);
	rec_u64(r, "bad_checksums", acpi->bad_checksums);
	if (acpi->bad_checksums) { /* the first table skipped, and why */
		rec_str(r, "refused", acpi->refused_sig);
		rec_str(r, "refused_why", acpi->refused_why);
	}
	if (!acpi->present && acpi->why)
		rec_str(r, "reason", acpi->why);
	emit_finish();

	r = emit_start("plat");
	rec_str(r, "kind", "acpi_pm");
	if (acpi->pm_timer_port) {
		rec_hex(r, "port", acpi->pm_timer_port);
		rec_u64(r, "width", acpi->pm_timer_32bit ? 32 : 24);
		rec_hex(r, "pm1a_cnt", acpi->pm1a_cnt);
		rec_hex(r, "pm1b_cnt", acpi->pm1b_cnt);
	} else { /* hardware-reduced ACPI (every Arm FADT): a port 0 and a width would be claims */
		rec_str(r, "reason", "the FADT names no PM timer port");
	}
	rec_bool(r, "s5", acpi->s5_found);
	rec_u64(r, "s5_typ_a", acpi->s5_typ_a);
	rec_u64(r, "s5_typ_b", acpi->s5_typ_b);
	emit_finish();
}


static void emit_memdev(const struct smbios_memdev *d, void *ctx)
{
	struct record *r = emit_start("plat");

	rec_str(r, "kind", "memdev");
	rec_hex(r, "handle", d->handle);
	rec_str(r, "locator", d->locator[0] ? d->locator : "none");
	rec_str(r, "bank", d->bank[0] ? d->bank : "none");
	rec_u64(r, "size", d->size_bytes);
	rec_bool(r, "size_unknown", d->size_unknown);
	rec_str(r, "type", smbios_mem_type_name(d->type_code));
	rec_hex(r, "type_code", d->type_code);
	rec_u64(r, "speed", d->speed_mts);
	rec_u64(r, "conf_speed", d->conf_speed_mts);
	rec_u64(r, "data_width", d->data_width);
	rec_u64(r, "total_width", d->total_width);
	rec_str(r, "manufacturer", d->manufacturer[0] ? d->manufacturer : "none");
	rec_str(r, "part", d->part[0] ? d->part : "none");
	emit_finish();
	smbios_peak_add(ctx, d);
}

static void emit_ident(const struct smbios_info *si, enum smbios_ident_kind kind, const char *absent)
{
	static const char *const names[] = { [SMBIOS_IDENT_SYSTEM] = "system", [SMBIOS_IDENT_BOARD] = "board" };
	struct smbios_ident_info id;
	struct ident_strings s;

	if (absent || smbios_ident(si, kind, &id) != 0) {
		facts_emit_ident(names[kind], "smbios", 0,
				 absent ? absent : kind == SMBIOS_IDENT_BOARD ? "no SMBIOS type 2 structure"
									       : "no SMBIOS type 1 structure");
		return;
	}
	s = (struct ident_strings){ id.manufacturer, id.product, id.version, id.serial };
	facts_emit_ident(names[kind], "smbios", &s, 0);
}

void facts_emit_smbios(const void *smbios_entry)
{
	struct smbios_info si;
	struct smbios_peak peak;
	uint64_t mbps = 0;
	struct record *r;
	const char *reason = 0;

	smbios_peak_init(&peak);
	if (!smbios_entry || smbios_parse_entry(smbios_entry, &si) != 0) {
		reason = smbios_entry ? "SMBIOS entry point invalid" : "no SMBIOS table";
		emit_ident(&si, SMBIOS_IDENT_SYSTEM, reason);
		emit_ident(&si, SMBIOS_IDENT_BOARD, reason);
	} else {
		emit_ident(&si, SMBIOS_IDENT_SYSTEM, 0);
		emit_ident(&si, SMBIOS_IDENT_BOARD, 0);
		smbios_for_each_memdev(&si, emit_memdev, &peak);
		if (!peak.populated)
			reason = "no populated memory device (SMBIOS type 17) described";
		else if (smbios_peak_result(&peak, &mbps) != 0)
			reason = "a populated memory device reports no speed or data width";
	}
	r = emit_start("plat");
	rec_str(r, "kind", "dram_peak");
	rec_str(r, "status", reason ? "unknown" : "ok");
	if (reason)
		rec_str(r, "reason", reason);
	else
		rec_u64(r, "mbps", mbps);
	rec_u64(r, "devices", (uint64_t)peak.populated);
	rec_str(r, "basis", "sum of configured MT/s x data width / 8 over populated devices (one channel each)");
	emit_finish();
	if (reason)
		summary_line("DRAM peak: unknown (see records)");
	else
		summary_value("DRAM peak (MB/s)", mbps, 0, "");
}

void facts_emit_serial(const struct uart *u, const struct serial_setup *s)
{
	struct record *r = emit_start("plat");

	rec_str(r, "kind", "serial");
	rec_str(r, "access", u->access == UART_IO ? "io" : "mmio");
	rec_hex(r, "base", u->base);
	if (s->baud)
		rec_u64(r, "baud", s->baud);
	else
		rec_str(r, "baud_note", "as the firmware set it: no divisor for a rate within 2% on this clock");
	rec_str(r, "source", s->source);
	rec_u64(r, "clock_hz", s->clock_hz);
	rec_str(r, "clock_source", s->clock_source);
	rec_u64(r, "divisor", s->divisor);
	emit_finish();
}

void facts_emit_hpet(const struct acpi_info *acpi, const struct hpet *h, bool ok)
{
	struct record *r = emit_start("plat");

	rec_str(r, "kind", "hpet");
	rec_bool(r, "present", ok);
	if (!acpi->hpet_present) {
		rec_str(r, "reason", "no ACPI HPET table");
	} else if (!ok) {
		rec_hex(r, "base", acpi->hpet_base);
		rec_str(r, "reason", "HPET registers invalid or counter not running");
	} else {
		rec_hex(r, "base", h->base);
		rec_u64(r, "period_fs", h->period_fs);
		rec_u64(r, "hz", h->hz);
		rec_u64(r, "comparators", h->comparators);
		rec_bool(r, "counter_64bit", h->counter_64bit);
		rec_bool(r, "was_enabled", h->was_enabled);
	}
	emit_finish();
}
