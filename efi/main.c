/* UEFI entry of both architectures: read the options, discover the platform while boot services
 * are up, reserve every buffer the run needs, take the machine over (ExitBootServices, our own
 * vectors, interrupts masked), find the counter's frequency, run the probes and leave. Every
 * record goes out over serial as it is made. What differs between machines (serial port, clocks,
 * interrupt controller, other cores, power-off) is in efi/platform_<arch>.c behind efi/platform.h. */
#include <efi.h>
#include <efilib.h>

#include "arch/membw.h"
#include "arch/traps.h"
#include "bench/core/calibrate.h"
#include "bench/core/progress.h"
#include "bench/core/runner.h"
#include "bench/core/registry.h"
#include "bench/core/suite.h"
#include "bench/core/summary.h"
#include "efi/after_run.h"
#include "efi/efi_util.h"
#include "efi/facts.h"
#include "efi/platform.h"
#include "efi/save.h"
#include "efi/screen.h"
#include "efi/smp_boot.h"
#include "lib/emit.h"
#include "lib/fmt.h"

#ifndef BUILD_ID
#define BUILD_ID "unknown"
#endif

#define PAGE_BYTES 4096ull
#define ARENA_MIN_MB 4
#define EXEC_ARENA_MB 4 /* generated code: the I-cache fill chain */
#define MIB (1024ull * 1024)

static struct efi_boot m;

static void serial_sink(const char *line, unsigned len)
{
	efi_arch_serial_write(line, len);
	efi_arch_serial_write("\r\n", 2);
	save_append(line, len);
	save_append("\r\n", 2);
	summary_record(line, len); /* the screen's headline counts checks and skips */
}

/* Progress as plain lines on the serial console only (not in the record stream, not on the stick):
 * a Serial-over-LAN reader sees the run move without a screen redraw (bench/core/progress.h). */
static void serial_progress(const char *line)
{
	efi_arch_serial_write(line, str_len(line));
	efi_arch_serial_write("\r\n", 2);
}

static void emit_begin(void)
{
	struct record *r = emit_start("begin");

	rec_u64(r, "proto", REC_PROTO_VERSION);
	rec_str(r, "build", BUILD_ID);
	rec_str(r, "arch", ARCH_NAME);
	rec_str(r, "env", "uefi");
	rec_str(r, "fw_vendor", m.fw_vendor);
	rec_hex(r, "fw_rev", ST->FirmwareRevision);
	emit_finish();
}

static void emit_config(void)
{
	struct record *r;

	if (!m.msgs)
		emit_msg(MSG_WARN, "no memory to keep the option messages: they went to the console only");
	for (unsigned i = 0; m.msgs && i < m.msgs->count; i++)
		emit_msg(str_starts(m.msgs->text[i], "config ") ? MSG_WARN : MSG_INFO, m.msgs->text[i]);
	if (m.msgs && m.msgs->dropped)
		emit_msg(MSG_WARN, "more option messages than could be kept; some were dropped");
	if (m.msgs)
		uefi_call_wrapper(BS->FreePool, 1, m.msgs);
	m.msgs = 0;
	r = emit_start("cfg");
	config_to_record(&m.cfg, r);
	emit_finish();
	boot_options_emit_choice();
}

/* Reserve the sample arena now: after ExitBootServices nothing can be allocated. Halve the
 * request until the firmware grants it. */
static void reserve_arena(void)
{
	UINT64 mb = m.cfg.arena_mb;
	EFI_PHYSICAL_ADDRESS base = 0;
	struct record *r;

	while (mb >= ARENA_MIN_MB) {
		if (!EFI_ERROR(uefi_call_wrapper(BS->AllocatePages, 4, AllocateAnyPages, EfiLoaderData,
						 mb * MIB / PAGE_BYTES, &base)))
			break;
		mb /= 2;
	}
	if (mb < ARENA_MIN_MB) {
		mb = 0;
		base = 0;
		emit_msg(MSG_ERROR, "could not reserve a sample arena: probes will be skipped");
	} else if (mb < m.cfg.arena_mb) {
		emit_msg(MSG_WARN, "sample arena smaller than arena_mb: the firmware had less free memory");
	}
	arena_init(&m.arena, (void *)(UINTN)base, mb * MIB);
	/* Generated code needs memory the firmware maps executable: OVMF and AAVMF leave
	 * EfiLoaderCode pages executable (their NX policy covers the data types). */
	base = 0;
	if (EFI_ERROR(uefi_call_wrapper(BS->AllocatePages, 4, AllocateAnyPages, EfiLoaderCode,
					EXEC_ARENA_MB * MIB / PAGE_BYTES, &base)))
		base = 0;
	arena_init(&m.exec_arena, (void *)(UINTN)base, base ? EXEC_ARENA_MB * MIB : 0);
	r = emit_start("plat");
	rec_str(r, "kind", "alloc");
	rec_u64(r, "arena", mb * MIB);
	rec_hex(r, "base", (UINT64)(UINTN)m.arena.base);
	rec_u64(r, "exec_arena", m.exec_arena.size);
	emit_finish();
}

/* The run summary's text in pool memory (see summary.h); it stays valid after ExitBootServices. */
static void reserve_summary(void)
{
	char *buf = 0;

	if (EFI_ERROR(uefi_call_wrapper(BS->AllocatePool, 3, EfiLoaderData, SUMMARY_MAX, (void **)&buf)) || !buf)
		efi_con_line("baremetric: ", "no memory for the run summary: the screen will show none");
	else
		summary_init(buf, SUMMARY_MAX);
}

static void emit_ebs(unsigned tries, EFI_STATUS st)
{
	struct record *r = emit_start("plat");

	rec_str(r, "kind", "ebs");
	rec_u64(r, "tries", tries);
	rec_str(r, "status", EFI_ERROR(st) ? "failed" : "ok");
	if (EFI_ERROR(st))
		rec_hex(r, "efi_status", st);
	emit_finish();
}

static __attribute__((noreturn)) void after_exit(unsigned tries)
{
	efi_arch_mask_interrupts();
	efi_arch_own_cpu(&m.cfg);
	traps_init(suite_trap_report, suite_trap_fatal);
	emit_ebs(tries, EFI_SUCCESS);
	facts_emit_memmap(&m.memmap);
	efi_arch_take_over(&m);

	m.env.cfg = &m.cfg;
	m.env.cpu = &m.cpu;
	m.env.pmu = &m.pmu;
	m.env.arena = &m.arena;
	m.env.exec_arena = m.exec_arena.base ? &m.exec_arena : 0;
	m.env.page_size = m.arena.base ? arch_page_size(m.arena.base) : 0;
	m.env.timer_overhead = runner_measure_overhead();
	m.env.target_cycles = calibrate_target_cycles(m.cfg.target_ns, m.env.counter_hz, m.env.timer_overhead);
	summary_value(efi_arch_overhead_label, m.env.timer_overhead, 0, "");
	save_start(&m.env);
	suite_set_between(save_flush);
	progress_set_line_sink(serial_progress);
	screen_begin(&m.disc.fb, m.disc.have_fb);
	efi_arch_finish(&m, suite_end(suite_run()));
}

/* Stop before taking the machine over: the reason as a record and on the console, and the end
 * record (the run is fatal: no probe ran). */
static EFI_STATUS stop_early(const char *why, EFI_STATUS st)
{
	emit_msg(MSG_ERROR, why);
	suite_end(RUN_FATAL);
	after_run_done(); /* a console reader waits for it also when nothing ran */
	efi_con_line("baremetric: ", why);
	return st;
}

EFI_STATUS efi_main(EFI_HANDLE image, EFI_SYSTEM_TABLE *systab)
{
	unsigned tries = 0;
	const char *serial_source, *why = 0;
	EFI_STATUS st;

	efi_util_init(systab);
	m.rt = systab->RuntimeServices;
	efi_con_line("baremetric ", BUILD_ID " starting (" ARCH_NAME ")");
	reserve_summary();
	efi_ucs2_to_ascii(ST->FirmwareVendor, 64, m.fw_vendor, sizeof(m.fw_vendor));
	/* The option messages wait in pool memory until the serial stream exists (3 KiB of .bss
	 * would be file size: the linker script keeps .bss in the .efi). */
	if (EFI_ERROR(uefi_call_wrapper(BS->AllocatePool, 3, EfiLoaderData, sizeof(*m.msgs), (void **)&m.msgs)))
		m.msgs = 0;
	if (m.msgs)
		m.msgs->count = m.msgs->dropped = 0;
	discover_tables(&m.disc); /* first: SMBIOS names the machine's own options file */
	boot_options_load(image, m.disc.smbios_entry, &m.cfg, probe_names, m.msgs);
	arch_cpu_identify(&m.cpu);
	acpi_parse(m.disc.rsdp, &m.acpi);
	save_prepare(image, &m.cfg, &m.acpi);

	serial_source = efi_arch_serial_setup(&m);
	emit_init(serial_sink);
	after_run_set_console(efi_arch_serial_write);
	emit_begin();
	emit_config();
	save_emit_plan();
	facts_emit_firmware(m.fw_vendor, ST->FirmwareRevision, ST->Hdr.Revision, m.disc.smbios_entry, &m.acpi);
	efi_arch_emit_serial(&m, serial_source);
	facts_emit_acpi(&m.acpi);
	efi_arch_emit_boot_facts(&m);
	facts_emit_smbios(m.disc.smbios_entry);
	after_run_prepare(&m.cfg, m.rt); /* BootNext needs boot services' variable access */
	if (!efi_arch_reserve(&m, &why))
		return stop_early(why, EFI_OUT_OF_RESOURCES);
	reserve_arena();
	smp_boot_reserve(&m.acpi, m.cfg.smp);
	efi_arch_prepare_finish(&m);

	efi_con_line("baremetric: ", "taking the machine over (ExitBootServices); results follow on serial, on the stick if saving, and on screen");
	st = exit_boot_services(image, &m.memmap, &tries);
	if (EFI_ERROR(st)) {
		emit_ebs(tries, st);
		return stop_early("ExitBootServices failed: stopping without running probes", st);
	}
	after_exit(tries);
}
