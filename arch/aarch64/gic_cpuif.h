/* The GICv3 CPU interface's system registers and the EL1 generic timers' registers as C (inline
 * assembly lives only under arch/). drivers/irqchip/aarch64/gicv3_hw.c builds the driver's register-access struct
 * on these; efi/aarch64/irq_platform.c programs the timers with them. Names are the Arm ARM's
 * (GICv3 spec IHI 0069 section 12; Arm ARM D13.8 for the timers); the encodings are spelt
 * S3_<op1>_C<n>_C<m>_<op2> so an assembler without GIC register names still takes them. Each
 * write that changes the interface's behaviour is followed by an isb (GICv3 12.1.6: writes to the
 * ICC registers are self-synchronising only for their own effect on later accesses). */
#ifndef ARCH_AARCH64_GIC_CPUIF_H
#define ARCH_AARCH64_GIC_CPUIF_H

#include <stdint.h>

#define A64_SYSREG_RW(fn, enc)                                                   \
	static inline uint64_t fn##_read(void)                                   \
	{                                                                        \
		uint64_t v;                                                      \
		__asm__ volatile("mrs %0, " enc : "=r"(v) : : "memory");         \
		return v;                                                        \
	}                                                                        \
	static inline void fn##_write(uint64_t v)                                \
	{                                                                        \
		__asm__ volatile("msr " enc ", %0; isb" : : "r"(v) : "memory");  \
	}

A64_SYSREG_RW(icc_sre_el1, "S3_0_C12_C12_5")
A64_SYSREG_RW(icc_pmr_el1, "S3_0_C4_C6_0")
A64_SYSREG_RW(icc_igrpen1_el1, "S3_0_C12_C12_7")
A64_SYSREG_RW(icc_ctlr_el1, "S3_0_C12_C12_4")
A64_SYSREG_RW(icc_bpr1_el1, "S3_0_C12_C12_3")
A64_SYSREG_RW(icc_rpr_el1, "S3_0_C12_C11_3")
A64_SYSREG_RW(cntv_ctl_el0, "cntv_ctl_el0")
A64_SYSREG_RW(cntv_cval_el0, "cntv_cval_el0")
A64_SYSREG_RW(cntp_ctl_el0, "cntp_ctl_el0")
A64_SYSREG_RW(cntp_cval_el0, "cntp_cval_el0")

/* Acknowledge: the highest-priority pending Group 1 INTID (1023: none). */
static inline uint64_t icc_iar1_el1_read(void)
{
	uint64_t v;

	__asm__ volatile("mrs %0, S3_0_C12_C12_0" : "=r"(v) : : "memory");
	return v;
}

/* End of interrupt (EOImode 0: priority drop and deactivation in one write). */
static inline void icc_eoir1_el1_write(uint64_t v)
{
	__asm__ volatile("msr S3_0_C12_C12_1, %0; isb" : : "r"(v) : "memory");
}

/* Generate a Group 1 SGI; the dsb-less isb is enough for the local CPU interface. */
static inline void icc_sgi1r_el1_write(uint64_t v)
{
	__asm__ volatile("msr S3_0_C12_C11_5, %0; isb" : : "r"(v) : "memory");
}

static inline uint64_t cntpct_el0_read(void)
{
	uint64_t v;

	__asm__ volatile("isb; mrs %0, cntpct_el0" : "=r"(v) : : "memory");
	return v;
}

static inline uint64_t mpidr_el1_read(void)
{
	uint64_t v;

	__asm__ volatile("mrs %0, mpidr_el1" : "=r"(v));
	return v;
}

#endif
