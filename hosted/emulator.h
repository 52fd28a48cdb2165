/* Whether the hosted process runs on an emulator of its instruction set (QEMU user mode) rather than
 * on the CPU it was built for: hosted/<cpu>/emulator.c where a CPU can tell (AArch64); the x86_64
 * build reads the same from CPUID's hypervisor leaf in its cpu record. */
#ifndef HOSTED_EMULATOR_H
#define HOSTED_EMULATOR_H

#include <stdbool.h>

/* Emit plat kind=emulator; when emulated also a warning and the summary line. True if emulated. */
bool hosted_emulator_emit(void);

#endif
