/* The AArch64 side of the UEFI entry (efi/platform.h): a PL011 (option, SPCR, else QEMU virt's
 * UART0), PSCI as the FADT describes it, and after ExitBootServices the CPU, PMU and generic-timer
 * records, the other cores through PSCI CPU_ON, the memory facts and the GICv3 interrupt sources;
 * the run ends with the summary on screen (a GOP framebuffer with a linear layout: QEMU's ramfb,
 * not virtio-gpu's blt-only one) and PSCI SYSTEM_OFF (conduit from the FADT), else EFI
 * ResetSystem, else a halt. */
#include <efi.h>
#include <efilib.h>

#include "arch/aarch64/cpu.h"
#include "arch/aarch64/el2.h"
#include "arch/aarch64/psci.h"
#include "arch/cycles.h"
#include "arch/traps.h"
#include "bench/facts/aarch64/mem.h"
#include "bench/facts/aarch64/sysreg.h"
#include "bench/facts/aarch64/platform.h"
#include "drivers/fw/aarch64/platform_id.h"
#include "drivers/serial/aarch64/pl011.h"
#include "drivers/fw/smbios.h"
#include "efi/after_run.h"
#include "efi/efi_util.h"
#include "efi/aarch64/irq_boot.h"
#include "bench/core/summary.h"
#include "efi/platform.h"
#include "efi/save.h"
#include "efi/screen.h"
#include "efi/smp_boot.h"
#include "lib/emit.h"

const char efi_arch_overhead_label[] = "timer overhead (ticks)";

static struct {
	struct pl011 uart;
} a;

void efi_arch_serial_write(const char *line, unsigned len)
{
	pl011_write(&a.uart, line, len);
}

/* QEMU's virt board, identified by the OEM ID of its own ACPI tables, else (no ACPI: -machine
 * virt,acpi=off) by SMBIOS System Information's Manufacturer: the only machine where QEMU's fixed
 * addresses (UART0, GIC) may be used without a table naming them. */
static bool qemu_virt(const struct efi_boot *b)
{
	struct smbios_info si;
	char maker[SMBIOS_STR_MAX];

	if (b->acpi.oem_found)
		return a64_acpi_oem_is_qemu(b->acpi.oem_id, b->acpi.oem_table_id);
	return b->disc.smbios_entry && smbios_parse_entry(b->disc.smbios_entry, &si) == 0 &&
	       smbios_system_manufacturer(&si, maker, sizeof(maker)) == 0 && a64_smbios_maker_is_qemu(maker);
}

/* Option first (serial=mmio with serial_base: a PL011 there), then an ACPI SPCR PL011 / SBSA
 * generic UART, then QEMU virt's UART0 on QEMU virt only; elsewhere no serial (an address
 * guessed on another board may be RAM). The firmware programmed the baud rate; we keep it. */
const char *efi_arch_serial_setup(struct efi_boot *b)
{
	const char *source = "default";
	uint64_t base = PL011_QEMU_VIRT_BASE;
	bool sbsa = false;

	a.uart.present = false;
	if (b->cfg.serial_kind == SERIAL_NONE)
		return "none";
	if (b->cfg.serial_kind == SERIAL_MMIO) {
		source = "option";
		base = b->cfg.serial_base;
	} else if (b->acpi.spcr_pl011) {
		source = "spcr";
		base = b->acpi.spcr_base;
		sbsa = a64_spcr_uart_kind(b->acpi.spcr_interface) == A64_UART_SBSA;
	} else if (!qemu_virt(b)) {
		efi_con_line("baremetric: ", b->acpi.spcr_interface || b->acpi.spcr_present
			? "the SPCR names a UART this build does not drive and this is not QEMU virt: no serial, records go to no wire"
			: "no SPCR and the platform is not identified as QEMU virt (ACPI OEM ID, SMBIOS): no serial, records go to no wire");
		return "none";
	}
	if (!pl011_init(&a.uart, base, cycles_cntfrq(), sbsa))
		efi_con_line("baremetric: ", "the PL011 at the chosen serial port is not enabled: records go to no wire");
	return source;
}

void efi_arch_emit_serial(struct efi_boot *b, const char *source)
{
	struct record *r;

	(void)b;
	if (!a.uart.present)
		return;
	r = emit_start("plat");
	rec_str(r, "kind", "serial");
	rec_str(r, "access", "mmio");
	rec_hex(r, "base", a.uart.base);
	rec_str(r, "driver", a64_uart_driver_name(a.uart.sbsa ? A64_UART_SBSA : A64_UART_PL011));
	if (!a.uart.sbsa)
		rec_hex(r, "cr_found", a.uart.cr_found);
	rec_str(r, "source", source);
	emit_finish();
}

/* PSCI as the FADT describes it: plat kind=psci. */
void efi_arch_emit_boot_facts(struct efi_boot *b)
{
	struct record *r = emit_start("plat");
	uint32_t flags = b->acpi.arm_boot_flags;

	rec_str(r, "kind", "psci");
	rec_bool(r, "fadt_arm_boot", b->acpi.arm_boot_valid);
	rec_bool(r, "compliant", (flags & ACPI_ARM_PSCI_COMPLIANT) != 0);
	rec_str(r, "conduit", !(flags & ACPI_ARM_PSCI_COMPLIANT) ? "none"
			      : (flags & ACPI_ARM_PSCI_USE_HVC)  ? "hvc"
								 : "smc");
	emit_finish();
}

bool efi_arch_reserve(struct efi_boot *b, const char **why)
{
	(void)why; /* the vectors live in the image: nothing to reserve */
	discover_framebuffer(&b->disc); /* for the screen (efi/screen.h) */
	return true;
}

static struct efi_boot *boot;

/* The summary on screen, held for hold_s; for wait_key, or when the screen holds the only copy
 * of the results and hold_s does not say how long to keep it, an hour: no keyboard is driven
 * after boot services, so it says so and waits. */
static void show_and_hold(struct efi_boot *b, enum run_status status)
{
	bool lost;
	uint64_t hold;
	char line[80];
	struct sbuf sb;

	screen_summary(&b->disc.fb, b->disc.have_fb, status, "generic timer");
	lost = summary_only_copy() && fbcon_rows();
	hold = b->cfg.wait_key || (lost && !b->cfg.hold_s) ? CONFIG_WAIT_KEY_MAX_S : b->cfg.hold_s;
	if (lost)
		screen_footer("No serial port answered and nothing was saved: this screen is the only copy.", true);
	sb_init(&sb, line, sizeof(line));
	if (b->cfg.after == AFTER_HOLD) {
		hold = 0; /* after=hold: the machine stays, halted, with this screen */
		sb_puts(&sb, "Run over (after=hold): halted; power the machine off by hand.");
	} else if (hold) {
		sb_puts(&sb, after_run_action(&b->cfg) == AFTER_ACT_RESET ? "No keyboard after boot services: restarting in "
									     : "No keyboard after boot services: powering off in ");
		sb_u64(&sb, hold);
		sb_puts(&sb, " s.");
	} else {
		sb_puts(&sb, after_run_verb(&b->cfg));
		sb_putc(&sb, '.');
	}
	screen_footer(line, lost);
	if (hold && fbcon_rows())
		screen_hold(b->env.counter_hz, hold, 0);
}

/* Power off: PSCI SYSTEM_OFF when the FADT says PSCI is there (QEMU exits 0), else the UEFI
 * runtime ResetSystem (still callable after ExitBootServices), else halt. shutdown=reset resets
 * the same two ways (SYSTEM_RESET, EfiResetCold); shutdown=halt halts. */
void efi_arch_finish(struct efi_boot *b, enum run_status status)
{
	bool reset = b->cfg.shutdown == SHUTDOWN_RESET || after_run_action(&b->cfg) == AFTER_ACT_RESET;

	save_close();
	after_run_done(); /* after the end record and the stick copy: everything is out */
	pl011_drain(&a.uart);
	show_and_hold(b, status); /* the status: on screen; the end record carries it (no exit device) */
	if (b->cfg.shutdown != SHUTDOWN_HALT && after_run_action(&b->cfg) != AFTER_ACT_HALT) {
		if (b->acpi.arm_boot_flags & ACPI_ARM_PSCI_COMPLIANT)
			(void)psci_call((b->acpi.arm_boot_flags & ACPI_ARM_PSCI_USE_HVC) != 0,
					reset ? PSCI_SYSTEM_RESET : PSCI_SYSTEM_OFF);
		if (b->rt)
			uefi_call_wrapper(b->rt->ResetSystem, 4, reset ? EfiResetCold : EfiResetShutdown,
					  EFI_SUCCESS, 0, 0);
	}
	cpu_halt_forever();
}

static __attribute__((noreturn)) void finish_fatal(enum run_status status)
{
	efi_arch_finish(boot, status);
}

void efi_arch_prepare_finish(struct efi_boot *b)
{
	char text[SUMMARY_DEST_MAX];
	struct sbuf sb;

	boot = b;
	suite_init(&b->env, finish_fatal);
	if (!a.uart.present)
		return;
	sb_init(&sb, text, sizeof(text));
	sb_puts(&sb, a.uart.sbsa ? "serial SBSA UART " : "serial PL011 ");
	sb_hex(&sb, a.uart.base);
	sb_puts(&sb, " (baud as the firmware set it)");
	summary_destination(text);
}

void efi_arch_mask_interrupts(void)
{
	cpu_irq_mask(); /* the firmware's timer interrupt has no handler any more */
}

void efi_arch_own_cpu(const struct config *cfg)
{
	el2_leave(cfg->el2 == EL2_MODE_STAY ? "the el2=stay option" : 0);
}

/* Where the firmware started us and what became of EL2 (action none: started at EL1). */
static void emit_el2(void)
{
	const struct el2_report *e = el2_report();
	struct record *r = emit_start("plat");

	rec_str(r, "kind", "el2");
	rec_u64(r, "entry_el", e->entry_el);
	rec_u64(r, "el", cpu_current_el());
	rec_str(r, "action", e->entry_el != 2 ? "none" : e->dropped ? "dropped" : "kept");
	if (e->why)
		rec_str(r, "reason", e->why);
	if (e->dropped) {
		rec_hex(r, "hcr_el2", e->cfg.hcr);
		rec_hex(r, "mdcr_el2", e->cfg.mdcr);
		rec_u64(r, "hpmn", e->hpmn);
		rec_hex(r, "cptr_el2", e->cfg.cptr);
		rec_hex(r, "cnthctl_el2", e->cfg.cnthctl);
		if (e->cfg.flags & (1ull << EL2_F_GIC_SYSREG))
			rec_hex(r, "icc_sre_el2", e->cfg.icc_sre);
	}
	emit_finish();
	if (e->entry_el == 2 && !e->dropped)
		emit_msg(MSG_WARN, "started at EL2 and staying there: PMU, interrupts and other cores are refused");
}

void efi_arch_take_over(struct efi_boot *b)
{
	emit_el2();
	platform_aarch64_emit_cpu(&b->cpu, &b->pmu);
	platform_aarch64_emit_emulator(&b->cpu, &b->pmu, qemu_virt(b)); /* after the PMU's discovery */
	b->env.counter_hz = platform_aarch64_timer();
	/* The other cores, through PSCI CPU_ON: after the vectors (they take ours) and the timer's
	 * rate (every wait of the start-up is bounded by it), before the probes. */
	smp_boot_start(b->env.counter_hz);
	platform_a64_mem_emit();
	platform_a64sysreg_emit(); /* after SVE's enabling (mem_emit): ZCR_EL1 is trapped before */
	b->env.traps = traps_catch_faults(); /* EL1 or EL2: the fault probes' recovery points work */
	b->env.simd_enabled = false;
	platform_aarch64_emit_mmu(b->arena.base);
	b->env.irq = irq_boot_a64_setup(b->acpi.madt, qemu_virt(b), b->env.counter_hz);
}
