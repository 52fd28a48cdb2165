/* Is this AArch64 process running on an emulator (QEMU's user mode, qemu-aarch64, on another
 * architecture's kernel)? Then every time it measures is the emulator's, and the record stream and
 * the summary must say so. Two pieces of evidence, either enough:
 *   - MIDR_EL1.Implementer 0x00, reserved for software use by the Arm ARM: no silicon has it; QEMU
 *     TCG's `max` CPU (qemu-aarch64's default) does (arch/aarch64/include/cpu/cache_model.h uses the same);
 *   - /proc/cpuinfo without the "CPU implementer" lines every arm64 kernel prints: the kernel
 *     underneath is another architecture's, so something translates our instructions (this one
 *     also catches `qemu-aarch64 -cpu cortex-a72`, whose MIDR is Arm's).
 * Emits plat kind=emulator (docs/protocol.md) and, when emulated, a warning and the summary line. */
#include "hosted/emulator.h"

#include <string.h>

#include "arch/aarch64/cpu.h"
#include "bench/core/summary.h"
#include "hosted/text_file.h"
#include "lib/emit.h"

#define MIDR_IMPL_SHIFT 24
#define MIDR_IMPL_MASK 0xFFu
#define MIDR_IMPL_SOFTWARE 0x00u
#define CPUINFO_MAX 65536
#define ARM64_CPUINFO_KEY "CPU implementer"

bool hosted_emulator_emit(void)
{
	static char cpuinfo[CPUINFO_MAX];
	bool midr_sw = ((sysreg_read(midr_el1) >> MIDR_IMPL_SHIFT) & MIDR_IMPL_MASK) == MIDR_IMPL_SOFTWARE;
	bool readable = read_text("/proc/cpuinfo", cpuinfo, sizeof(cpuinfo));
	bool foreign = readable && !strstr(cpuinfo, ARM64_CPUINFO_KEY);
	bool emulated = midr_sw || foreign;
	struct record *r = emit_start("plat");

	rec_str(r, "kind", "emulator");
	rec_bool(r, "emulated", emulated);
	rec_bool(r, "midr_software", midr_sw);
	rec_str(r, "cpuinfo", !readable ? "unreadable" : foreign ? "foreign" : "arm64");
	if (emulated)
		rec_str(r, "reason", midr_sw ? "MIDR_EL1 implementer 0x00 (reserved for software: QEMU TCG)"
					     : "/proc/cpuinfo is not an arm64 kernel's: a user-mode emulator");
	emit_finish();
	if (emulated) {
		emit_msg(MSG_WARN, "EMULATED CPU: this AArch64 process runs on an emulator (QEMU user mode?): "
				   "every time measured here is the emulator's, not a CPU's");
		summary_line("EMULATED CPU (an emulator runs this process): times are the emulator's");
	}
	return emulated;
}
