/* Safe system-register access on AArch64 (the twin of x86_64's rdmsr_safe/wrmsr_safe): a read or
 * write of a register of sysreg_table.h that comes back with a status instead of crashing when
 * the register is UNDEFINED here (a feature the CPU lacks, an EL2 register at EL1) or trapped
 * (a hypervisor's MDCR_EL2/CPTR_EL2 turning the access into an UNDEF at EL1).
 *
 * How: mrs/msr name the register in the instruction, so each register has its own four-
 * instruction stub (sysreg_stubs.S); a synchronous exception whose ELR is a stub's access is
 * turned by our vectors (traps.c looks at the stubs first, as x86_64's at its exception table;
 * VBAR_EL1, or VBAR_EL2 when the firmware runs us at EL2) into a return to the stub's caller with
 * the ESR — no `fault` record,
 * the caller reports. Where our vectors do not catch the exception (before traps_init, i.e. under
 * boot services, where the firmware's vectors would take it), the decision is made from the ID
 * registers alone: a register they say is implemented is accessed directly (guarded = false),
 * one they say is absent is not touched (SYSREG_NOT_TRIED). A trap a higher EL configured (EL3's
 * MDCR_EL3/CPTR_EL3, a hypervisor's EL2 traps when we run at EL1) goes to that EL, not to us:
 * what it does (emulate, inject an UNDEF we then catch, or stop the machine) is its choice.
 *
 * The table part (names, encodings, gates, the expectation from ID values) is pure and portable:
 * sysreg_gate.c, host unit tests. */
#ifndef ARCH_AARCH64_SYSREG_SAFE_H
#define ARCH_AARCH64_SYSREG_SAFE_H

#include <stdbool.h>
#include <stdint.h>

#include "arch/aarch64/sysreg_table.h"

enum a64_sysreg {
#define A64_SR_ENUM(id, ...) A64_SR_##id,
	A64_SYSREG_LIST(A64_SR_ENUM)
#undef A64_SR_ENUM
	A64_SR_COUNT
};

struct a64_sysreg_desc {
	const char *name;
	uint8_t op0, op1, crn, crm, op2;
	uint8_t gate, shift, min, max, flags;
};

extern const struct a64_sysreg_desc a64_sysregs[A64_SR_COUNT];

/* The ID register values the gates read, and the level we run at. */
struct a64_id_snapshot {
	uint64_t reg[A64_GATE_COUNT]; /* indexed by A64_GATE_* (reg[A64_GATE_ALWAYS] unused) */
	unsigned el;
};

/* The register is implemented and accessible at id->el by the ID registers (an EL2 register is
 * not at EL1). A trap configured by a higher EL can still refuse it. */
bool a64_sysreg_expected(const struct a64_sysreg_desc *d, const struct a64_id_snapshot *id);
/* Whether to make an access: with our vectors catching faults (guarded) always; without, only
 * when the ID registers say the register exists — and, when `cautious` (the survey of
 * bench/facts/aarch64/sysreg.c, which reads registers nobody asked for), not when a higher EL may trap
 * it even then (A64_SRF_TRAPPABLE). */
enum a64_sysreg_plan {
	A64_SR_PLAN_ACCESS,
	A64_SR_PLAN_SKIP_ABSENT,    /* not guarded, and absent by the ID registers */
	A64_SR_PLAN_SKIP_TRAPPABLE, /* not guarded, cautious, and a higher EL may trap it */
};
enum a64_sysreg_plan a64_sysreg_plan(const struct a64_sysreg_desc *d, const struct a64_id_snapshot *id,
				     bool guarded, bool cautious);
/* "ID_AA64DFR0_EL1[11:8]=1..14", "always", "EL2": what the expectation rests on (into buf). */
void a64_sysreg_gate_text(const struct a64_sysreg_desc *d, char *buf, unsigned size);
/* The generic name the assembler takes for the encoding: "S3_3_C9_C12_0". */
void a64_sysreg_enc_text(const struct a64_sysreg_desc *d, char *buf, unsigned size);
/* The 32-bit MRS Xt, <reg> / MSR <reg>, Xt instruction (Arm ARM C6.2: MRS, MSR (register)). */
uint32_t a64_sysreg_mrs_insn(const struct a64_sysreg_desc *d, unsigned rt);
uint32_t a64_sysreg_msr_insn(const struct a64_sysreg_desc *d, unsigned rt);
/* ESR_ELx.EC of an ESR value. */
unsigned a64_esr_ec(uint64_t esr);

/* --- Firmware only (sysreg_safe.c) --- */
enum sysreg_outcome {
	SYSREG_OK,        /* accessed; *val holds the value read */
	SYSREG_FAULT,     /* the access raised a synchronous exception: ESR in *esr */
	SYSREG_NOT_TRIED, /* no vectors to catch a fault here and the ID registers say absent */
};

struct sysreg_result {
	enum sysreg_outcome outcome;
	uint64_t value, esr;
	bool guarded; /* our vectors were ready to catch a fault (else decided from ID registers) */
};

/* The ID registers as the gates need them (read now). */
void sysreg_id_snapshot(struct a64_id_snapshot *id);
struct sysreg_result sysreg_try_read(enum a64_sysreg id);
struct sysreg_result sysreg_try_write(enum a64_sysreg id, uint64_t val);
/* The short forms: true when the access was made and did not fault. */
bool sysreg_read_safe(enum a64_sysreg id, uint64_t *val);
bool sysreg_write_safe(enum a64_sysreg id, uint64_t val);
/* One SETP/SETM/SETE of `bytes` bytes of `value` at buf (FEAT_MOPS) under the same guard:
 * SYSREG_FAULT when MOPS is UNDEFINED here (HCRX_EL2.MSCEn = 0 under a hypervisor),
 * SYSREG_NOT_TRIED where no vectors of ours catch it. Ask ID_AA64ISAR2_EL1.MOPS first. */
struct sysreg_result sysreg_try_mops(void *buf, uint64_t bytes, uint8_t value);
/* Accesses are caught at the current EL (our vectors are installed here). */
bool sysreg_guarded(void);

/* --- The stubs, for sysreg_safe.c which calls them and traps.c which recovers from their faults --- */
/* A stub's fault result: ESR_ELx bits 63:56 are RES0, so bit 63 marks a fault and the ESR rides
 * below it (traps.c puts it in x0 and resumes at the stub's caller). */
#define SYSREG_FAULT_FLAG (1ull << 63)
#define SYSREG_ESR_MASK (SYSREG_FAULT_FLAG - 1)
/* sysreg_stubs.S: A64_SR_COUNT read and write stubs, A64_SYSREG_STUB_BYTES apart, the access first. */
extern const char a64_sysreg_read_stubs[], a64_sysreg_read_end[];
extern const char a64_sysreg_write_stubs[], a64_sysreg_write_end[];
/* mops.S: one SETP/SETM/SETE, the SETP first (recovered like a stub's access). */
uint64_t a64_mops_probe(void *dst, uint64_t bytes, uint64_t value);

#endif
