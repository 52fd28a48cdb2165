/* UEFI entry: read the options, discover the platform while boot services are up, reserve every
 * buffer the run needs, take the machine over (ExitBootServices, own GDT/IDT, interrupts masked),
 * calibrate the TSC, run the probes and leave. Every record goes out over serial as it is made. */
#include <efi.h>
#include <efilib.h>

#include "arch/cpu_info.h"
#include "arch/cycles.h"
#include "arch/membw.h"
#include "arch/traps.h"
#include "arch/x86_64/cpu.h"
#include "bench/calibrate.h"
#include "bench/platform.h"
#include "bench/runner.h"
#include "bench/suite.h"
#include "bench/summary.h"
#include "drivers/acpi.h"
#include "drivers/hpet.h"
#include "drivers/pm_timer.h"
#include "drivers/uart16550.h"
#include "efi/apic_mode_boot.h"
#include "efi/boot_options.h"
#include "efi/discover.h"
#include "efi/efi_util.h"
#include "efi/exit_bs.h"
#include "efi/facts.h"
#include "efi/finish.h"
#include "efi/irq_boot.h"
#include "efi/smp_boot.h"
#include "lib/emit.h"
#include "lib/fmt.h"

#ifndef BUILD_ID
#define BUILD_ID "unknown"
#endif

#define COM1_PORT 0x3F8
#define PAGE_BYTES 4096ull
#define ARENA_MIN_MB 4
#define EXEC_ARENA_MB 4
#define MIB (1024ull * 1024)
/* Stride in bytes between registers of an MMIO UART of the given access size (GAS encoding). */
#define GAS_ACCESS_DWORD 3

static struct {
	struct config cfg;
	struct boot_messages *msgs; /* pool memory until emit_config; NULL: there was none */
	struct efi_discovery disc;
	struct acpi_info acpi;
	struct uart uart;
	struct cpu_info cpu;
	struct pmu_info pmu;
	struct arena arena;
	struct arena exec_arena;
	struct probe_env env;
	struct pm_timer pm;
	struct hpet hpet;
	bool hpet_ok;
	struct memmap_summary memmap;
	struct finish_ctx fin;
	char fw_vendor[64];
} m;

static void serial_sink(const char *line, unsigned len)
{
	uart_write(&m.uart, line, len);
	uart_write(&m.uart, "\r\n", 2);
}

/* Option first, then ACPI SPCR, then COM1. Returns where the choice came from. */
static const char *serial_setup(unsigned *baud)
{
	const char *source = "default";
	enum uart_access access = UART_IO;
	uint64_t base = COM1_PORT;
	unsigned stride = 1;

	*baud = (unsigned)m.cfg.serial_baud;
	if (m.cfg.serial_kind == SERIAL_NONE) {
		m.uart.present = false;
		return "none";
	}
	if (m.cfg.serial_kind == SERIAL_IO || m.cfg.serial_kind == SERIAL_MMIO) {
		source = "option";
		base = m.cfg.serial_base;
		access = m.cfg.serial_kind == SERIAL_IO ? UART_IO : UART_MMIO8;
	} else if (m.acpi.spcr_present) {
		source = "spcr";
		base = m.acpi.spcr_base;
		if (m.acpi.spcr_space == ACPI_GAS_IO) {
			access = UART_IO;
		} else if (m.acpi.spcr_access == GAS_ACCESS_DWORD || m.acpi.spcr_bit_width == 32) {
			access = UART_MMIO32;
			stride = 4;
		} else {
			access = UART_MMIO8;
		}
		if (m.acpi.spcr_baud)
			*baud = m.acpi.spcr_baud;
	}
	if (!uart_init(&m.uart, access, base, stride, *baud))
		efi_con_line("baremetric: ", "no UART answers at the chosen serial port: records go to no wire");
	return source;
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
	/* Generated code (the I-cache fill chain) needs memory the firmware maps executable. */
	base = 0;
	if (EFI_ERROR(uefi_call_wrapper(BS->AllocatePages, 4, AllocateAnyPages, EfiLoaderCode,
					EXEC_ARENA_MB * MIB / PAGE_BYTES, &base)))
		base = 0;
	arena_init(&m.exec_arena, (void *)(UINTN)base, EXEC_ARENA_MB * MIB);
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

/* The BSP's IDT and IST stacks (see traps.h). False when the firmware cannot spare them: then the
 * machine is not taken over at all. */
static bool reserve_traps(void)
{
	EFI_PHYSICAL_ADDRESS base = 0;

	if (EFI_ERROR(uefi_call_wrapper(BS->AllocatePages, 4, AllocateAnyPages, EfiLoaderData,
					(TRAPS_BSP_MEM_BYTES + PAGE_BYTES - 1) / PAGE_BYTES, &base)))
		return false;
	traps_provide_memory((void *)(UINTN)base);
	return true;
}

static void calibrate_tsc(void)
{
	struct ref_clock refs[2];
	unsigned n = 0;
	bool hpet_ok = false;

	if (m.acpi.pm_timer_port && pm_timer_init(&m.pm, m.acpi.pm_timer_port, m.acpi.pm_timer_32bit))
		refs[n++] = (struct ref_clock){ "pm_timer", PM_TIMER_HZ, m.pm.mask, pm_timer_read, &m.pm };
	else
		emit_msg(MSG_WARN, "no working ACPI PM timer: not used for TSC calibration");
	if (m.acpi.hpet_present)
		hpet_ok = hpet_init(&m.hpet, m.acpi.hpet_base);
	facts_emit_hpet(&m.acpi, &m.hpet, hpet_ok);
	m.hpet_ok = hpet_ok;
	if (hpet_ok)
		refs[n++] = (struct ref_clock){ "hpet", m.hpet.hz,
						m.hpet.counter_64bit ? ~0ull : 0xFFFFFFFFull, hpet_read, &m.hpet };
	m.env.tsc_hz = platform_calibrate_tsc(&m.cpu, refs, n, (unsigned)m.cfg.tsc_cal_windows, m.cfg.tsc_cal_ms);
}

static void after_exit(unsigned tries, EFI_STATUS st)
{
	struct record *r;

	cpu_cli();
	traps_init(suite_trap_report, suite_trap_fatal);
	r = emit_start("plat");
	rec_str(r, "kind", "ebs");
	rec_u64(r, "tries", tries);
	rec_str(r, "status", "ok");
	(void)st;
	emit_finish();
	facts_emit_memmap(&m.memmap);
	arch_cpu_identify_privileged(&m.cpu);
	platform_emit_cpu(&m.cpu);
	platform_pmu(&m.cpu, &m.pmu);
	tsc_init(m.cpu.rdtscp);
	simd_enable();
	platform_emit_simd();
	calibrate_tsc();
	/* Option apic_mode: the BSP's APIC mode is settled before anything uses the APIC. */
	apic_mode_boot(m.cfg.apic_mode, m.cpu.x2apic);
	/* After the TSC is known (every wait of the start-up is bounded by it) and before the probes;
	 * the APs idle halted, costing the BSP's measurements nothing. */
	smp_boot_start(m.env.tsc_hz);
	/* Firmware interrupt sources masked from here on; the probes arm their own. */
	m.env.irq = irq_boot_setup(m.hpet_ok ? &m.hpet : 0, &m.cpu, m.env.tsc_hz);

	m.env.cfg = &m.cfg;
	m.env.cpu = &m.cpu;
	m.env.pmu = &m.pmu;
	m.env.arena = &m.arena;
	m.env.traps = true;
	m.env.exec_arena = m.exec_arena.base ? &m.exec_arena : 0;
	m.env.simd_enabled = true;
	m.env.page_size = m.arena.base ? arch_page_size(m.arena.base) : 0;
	m.env.timer_overhead = runner_measure_overhead();
	m.env.target_cycles = calibrate_target_cycles(m.cfg.target_ns, m.env.tsc_hz, m.env.timer_overhead);
	summary_value("timer overhead (cycles)", m.env.timer_overhead, 0, "");
	finish(&m.fin, suite_end(suite_run()));
}

EFI_STATUS efi_main(EFI_HANDLE image, EFI_SYSTEM_TABLE *systab)
{
	unsigned baud, tries = 0;
	const char *serial_source;
	EFI_STATUS st;

	efi_util_init(systab);
	efi_con_line("baremetric ", BUILD_ID " starting");
	reserve_summary();
	efi_ucs2_to_ascii(ST->FirmwareVendor, 64, m.fw_vendor, sizeof(m.fw_vendor));
	/* The option messages wait in pool memory until the serial stream exists (3 KiB of .bss
	 * would be file size: gnu-efi's linker script keeps .bss in the .efi). */
	if (EFI_ERROR(uefi_call_wrapper(BS->AllocatePool, 3, EfiLoaderData, sizeof(*m.msgs), (void **)&m.msgs)))
		m.msgs = 0;
	if (m.msgs)
		m.msgs->count = m.msgs->dropped = 0;
	boot_options_load(image, &m.cfg, probe_names, m.msgs);
	arch_cpu_identify(&m.cpu);
	discover_tables(&m.disc);
	acpi_parse(m.disc.rsdp, &m.acpi);

	serial_source = serial_setup(&baud);
	emit_init(serial_sink);
	emit_begin();
	emit_config();
	facts_emit_firmware(m.fw_vendor, ST->FirmwareRevision, ST->Hdr.Revision, m.disc.smbios_entry, &m.acpi);
	if (m.uart.present)
		facts_emit_serial(&m.uart, baud, serial_source);
	facts_emit_acpi(&m.acpi);
	facts_emit_smbios(m.disc.smbios_entry);
	discover_framebuffer(&m.disc);
	if (!reserve_traps()) {
		emit_msg(MSG_ERROR, "no memory for the IDT and exception stacks: stopping without running probes");
		suite_end(RUN_FATAL);
		efi_con_line("baremetric: ", "no memory for the IDT and exception stacks; see the serial log");
		return EFI_OUT_OF_RESOURCES;
	}
	reserve_arena();
	smp_boot_reserve(&m.acpi, m.cfg.smp);

	m.fin.cfg = &m.cfg;
	m.fin.acpi = &m.acpi;
	m.fin.have_fb = m.disc.have_fb;
	m.fin.fb = m.disc.fb;
	m.fin.hypervisor = m.cpu.hypervisor;
	m.fin.env = &m.env;
	m.fin.uart = &m.uart;
	suite_init(&m.env, finish_exit);
	finish_set_ctx(&m.fin);

	efi_con_line("baremetric: ", "taking the machine over (ExitBootServices); results follow on serial");
	st = exit_boot_services(image, &m.memmap, &tries);
	if (EFI_ERROR(st)) {
		struct record *r = emit_start("plat");

		rec_str(r, "kind", "ebs");
		rec_u64(r, "tries", tries);
		rec_str(r, "status", "failed");
		rec_hex(r, "efi_status", st);
		emit_finish();
		emit_msg(MSG_ERROR, "ExitBootServices failed: stopping without running probes");
		suite_end(RUN_FATAL);
		efi_con_line("baremetric: ", "ExitBootServices failed; see the serial log");
		return st;
	}
	after_exit(tries, st);
	return EFI_SUCCESS; /* not reached: finish() powers off */
}
