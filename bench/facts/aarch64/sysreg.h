/* plat kind=sysreg of the AArch64 build: every guarded system register (arch/aarch64/
 * sysreg_table.h) read once through sysreg_safe.h, one record each with its value or the fault's
 * ESR, plat kind=insn_probe for FEAT_MOPS's SETP, and plat kind=sysregs summing up — what the
 * level we run at (EL1, or EL2) may touch on this machine. */
#ifndef BENCH_PLATFORM_A64SYSREG_H
#define BENCH_PLATFORM_A64SYSREG_H

/* After traps_init (faults are then caught at our EL) and after SVE is enabled (ZCR_EL1 is
 * trapped by CPACR_EL1.ZEN before). */
void platform_a64sysreg_emit(void);

#endif
