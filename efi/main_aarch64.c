/* UEFI entry of the AArch64 build (the build-and-boot skeleton of issue 12): read the options,
 * discover ACPI/SMBIOS while boot services are up, pick the PL011 (SPCR, else QEMU virt's), reserve
 * the sample arena, take the machine over (ExitBootServices, IRQ/FIQ masked), report the CPU and
 * timer facts, run the probes this build has (the others emit `skip` with what they need) and power
 * off through PSCI SYSTEM_OFF (conduit from the FADT), else EFI ResetSystem. efi/main.c is the
 * x86_64 entry; the two merge once the AArch64 build has the pieces main.c drives (vectors,
 * interrupt controller, secondary cores, TSC calibration references). */
#include <efi.h>
#include <efilib.h>

#include "arch/aarch64/psci.h"
#include "arch/cpu_info.h"
#include "arch/cycles.h"
#include "arch/membw.h"
#include "arch/traps.h"
#include "bench/calibrate.h"
#include "bench/platform_a64_mem.h"
#include "bench/platform_a64sysreg.h"
#include "bench/platform_aarch64.h"
#include "bench/runner.h"
#include "bench/suite.h"
#include "bench/summary.h"
#include "drivers/acpi.h"
#include "drivers/pl011.h"
#include "efi/boot_options.h"
#include "efi/discover.h"
#include "efi/efi_util.h"
#include "efi/exit_bs.h"
#include "efi/facts.h"
#include "efi/irq_boot_a64.h"
#include "efi/smp_boot.h"
#include "lib/emit.h"
#include "lib/fmt.h"

#ifndef BUILD_ID
#define BUILD_ID "unknown"
#endif

#define PAGE_BYTES 4096ull
#define ARENA_MIN_MB 4
#define EXEC_ARENA_MB 4 /* generated code: the I-cache fill chain (as efi/main.c) */
#define MIB (1024ull * 1024)

static struct {
	struct config cfg;
	struct boot_messages msgs;
	struct efi_discovery disc;
	struct acpi_info acpi;
	struct pl011 uart;
	struct cpu_info cpu;
	struct pmu_info pmu;
	struct arena arena;
	struct arena exec_arena;
	struct probe_env env;
	struct memmap_summary memmap;
	char fw_vendor[64];
	EFI_RUNTIME_SERVICES *rt;
} m;

static void serial_sink(const char *line, unsigned len)
{
	pl011_write(&m.uart, line, len);
	pl011_write(&m.uart, "\r\n", 2);
}

/* Option first (serial=mmio with serial_base: a PL011 there), then ACPI SPCR, then QEMU virt's
 * UART0. The firmware programmed the baud rate; we keep it. */
static const char *serial_setup(void)
{
	const char *source = "default";
	uint64_t base = PL011_QEMU_VIRT_BASE;

	if (m.cfg.serial_kind == SERIAL_NONE) {
		m.uart.present = false;
		return "none";
	}
	if (m.cfg.serial_kind == SERIAL_MMIO) {
		source = "option";
		base = m.cfg.serial_base;
	} else if (m.acpi.spcr_pl011) {
		source = "spcr";
		base = m.acpi.spcr_base;
	}
	if (!pl011_init(&m.uart, base, tsc_counter_hz()))
		efi_con_line("baremetric: ", "the PL011 at the chosen serial port is not enabled: records go to no wire");
	return source;
}

static void emit_serial(const char *source)
{
	struct record *r = emit_start("plat");

	rec_str(r, "kind", "serial");
	rec_str(r, "access", "mmio");
	rec_hex(r, "base", m.uart.base);
	rec_str(r, "driver", "pl011");
	rec_hex(r, "cr_found", m.uart.cr_found);
	rec_str(r, "source", source);
	emit_finish();
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

	for (unsigned i = 0; i < m.msgs.count; i++)
		emit_msg(str_starts(m.msgs.text[i], "config ") ? MSG_WARN : MSG_INFO, m.msgs.text[i]);
	if (m.msgs.dropped)
		emit_msg(MSG_WARN, "more option messages than could be kept; some were dropped");
	r = emit_start("cfg");
	config_to_record(&m.cfg, r);
	emit_finish();
}

/* PSCI as the FADT describes it: plat kind=psci. */
static void emit_psci(void)
{
	struct record *r = emit_start("plat");

	rec_str(r, "kind", "psci");
	rec_bool(r, "fadt_arm_boot", m.acpi.arm_boot_valid);
	rec_bool(r, "compliant", (m.acpi.arm_boot_flags & ACPI_ARM_PSCI_COMPLIANT) != 0);
	rec_str(r, "conduit", !(m.acpi.arm_boot_flags & ACPI_ARM_PSCI_COMPLIANT) ? "none"
			      : (m.acpi.arm_boot_flags & ACPI_ARM_PSCI_USE_HVC)  ? "hvc"
										 : "smc");
	emit_finish();
}

/* The sample arena, reserved before ExitBootServices (nothing can be allocated after); halve the
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
	/* Generated code needs memory the firmware maps executable: AAVMF leaves EfiLoaderCode
	 * pages executable (its NX policy covers the data types). */
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

/* Power off: PSCI SYSTEM_OFF when the FADT says PSCI is there (QEMU exits 0), else the UEFI
 * runtime ResetSystem (still callable after ExitBootServices), else halt. shutdown=reset resets
 * the same two ways (SYSTEM_RESET, EfiResetCold); shutdown=halt halts. */
static __attribute__((noreturn)) void finish_aarch64(enum run_status status)
{
	bool reset = m.cfg.shutdown == SHUTDOWN_RESET;

	(void)status; /* the end record carries it: no exit-code device on this machine */
	pl011_drain(&m.uart);
	if (m.cfg.shutdown != SHUTDOWN_HALT) {
		if (m.acpi.arm_boot_flags & ACPI_ARM_PSCI_COMPLIANT)
			(void)psci_call((m.acpi.arm_boot_flags & ACPI_ARM_PSCI_USE_HVC) != 0,
					reset ? PSCI_SYSTEM_RESET : PSCI_SYSTEM_OFF);
		if (m.rt)
			uefi_call_wrapper(m.rt->ResetSystem, 4, reset ? EfiResetCold : EfiResetShutdown,
					  EFI_SUCCESS, 0, 0);
	}
	cpu_halt_forever();
}

static void after_exit(unsigned tries)
{
	struct record *r;

	cpu_irq_mask(); /* the firmware's timer interrupt has no handler any more */
	traps_init(suite_trap_report, suite_trap_fatal);
	r = emit_start("plat");
	rec_str(r, "kind", "ebs");
	rec_u64(r, "tries", tries);
	rec_str(r, "status", "ok");
	emit_finish();
	facts_emit_memmap(&m.memmap);
	platform_aarch64_emit_cpu(&m.cpu, &m.pmu);
	m.env.tsc_hz = platform_aarch64_timer();
	/* The other cores, through PSCI CPU_ON: after the vectors (they take ours) and the timer's
	 * rate (every wait of the start-up is bounded by it), before the probes. */
	smp_boot_start(m.env.tsc_hz);
	platform_a64_mem_emit();
	platform_a64sysreg_emit(); /* after SVE's enabling (mem_emit): ZCR_EL1 is trapped before */

	m.env.cfg = &m.cfg;
	m.env.cpu = &m.cpu;
	m.env.pmu = &m.pmu;
	m.env.arena = &m.arena;
	m.env.traps = traps_catch_faults(); /* EL1 or EL2: the fault probes' recovery points work */
	m.env.exec_arena = m.exec_arena.base ? &m.exec_arena : 0;
	m.env.simd_enabled = false;
	platform_aarch64_emit_mmu(m.arena.base);
	m.env.page_size = m.arena.base ? arch_page_size(m.arena.base) : 0;
	m.env.irq = irq_boot_a64_setup(m.acpi.madt, m.env.tsc_hz);
	m.env.timer_overhead = runner_measure_overhead();
	m.env.target_cycles = calibrate_target_cycles(m.cfg.target_ns, m.env.tsc_hz, m.env.timer_overhead);
	summary_value("timer overhead (ticks)", m.env.timer_overhead, 0, "");
	finish_aarch64(suite_end(suite_run()));
}

EFI_STATUS efi_main(EFI_HANDLE image, EFI_SYSTEM_TABLE *systab)
{
	unsigned tries = 0;
	const char *serial_source;
	EFI_STATUS st;

	efi_util_init(systab);
	m.rt = systab->RuntimeServices;
	efi_con_line("baremetric ", BUILD_ID " starting (aarch64)");
	efi_ucs2_to_ascii(ST->FirmwareVendor, 64, m.fw_vendor, sizeof(m.fw_vendor));
	boot_options_load(image, &m.cfg, probe_names, &m.msgs);
	arch_cpu_identify(&m.cpu);
	discover_tables(&m.disc);
	acpi_parse(m.disc.rsdp, &m.acpi);

	serial_source = serial_setup();
	emit_init(serial_sink);
	emit_begin();
	emit_config();
	facts_emit_firmware(m.fw_vendor, ST->FirmwareRevision, ST->Hdr.Revision, m.disc.smbios_entry, &m.acpi);
	if (m.uart.present)
		emit_serial(serial_source);
	facts_emit_acpi(&m.acpi);
	emit_psci();
	facts_emit_smbios(m.disc.smbios_entry);
	reserve_arena();
	smp_boot_reserve(&m.acpi, m.cfg.smp);
	suite_init(&m.env, finish_aarch64);

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
	after_exit(tries);
	return EFI_SUCCESS; /* not reached: finish_aarch64() powers off */
}
