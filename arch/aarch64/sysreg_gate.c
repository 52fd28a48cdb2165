/* The table of guarded system registers (sysreg_table.h) as data, and the decisions that need
 * no register access: is a register implemented at this EL by the ID registers, its generic
 * name and its MRS/MSR encodings. Pure: the host unit tests check it against the Arm ARM. */
#include "arch/aarch64/sysreg_safe.h"

#include "lib/fmt.h"

#define ID_FIELD_MASK 0xFu
#define EL0 0
#define EL2 2
#define ESR_EC_SHIFT 26
#define ESR_EC_MASK 0x3Fu
/* MRS/MSR (register): 1101 0101 00 L 1 o0 op1 CRn CRm op2 Rt; op0 = 2 + o0 sits in bits 20:19. */
#define MSR_INSN_BASE 0xD5000000u
#define MRS_INSN_L (1u << 21)
#define INSN_OP0_SHIFT 19
#define INSN_OP1_SHIFT 16
#define INSN_CRN_SHIFT 12
#define INSN_CRM_SHIFT 8
#define INSN_OP2_SHIFT 5
#define INSN_RT_MASK 0x1Fu

const struct a64_sysreg_desc a64_sysregs[A64_SR_COUNT] = {
#define A64_SR_DESC(id, nm, o0, o1, n, m, o2, g, sh, mn, mx, fl) \
	[A64_SR_##id] = { #nm, o0, o1, n, m, o2, g, sh, mn, mx, fl },
	A64_SYSREG_LIST(A64_SR_DESC)
#undef A64_SR_DESC
};

static const char *const gate_names[A64_GATE_COUNT] = {
	[A64_GATE_ALWAYS] = "always",
	[A64_GATE_PFR0] = "ID_AA64PFR0_EL1",
	[A64_GATE_DFR0] = "ID_AA64DFR0_EL1",
	[A64_GATE_ISAR0] = "ID_AA64ISAR0_EL1",
	[A64_GATE_MMFR0] = "ID_AA64MMFR0_EL1",
};

bool a64_sysreg_expected(const struct a64_sysreg_desc *d, const struct a64_id_snapshot *id)
{
	unsigned field;

	if ((d->flags & A64_SRF_EL2) && id->el < EL2)
		return false;
	if (id->el == EL0 && !(d->flags & A64_SRF_EL0))
		return false; /* a Linux process: only what the kernel lets EL0 read */
	if (d->gate == A64_GATE_ALWAYS || d->gate >= A64_GATE_COUNT)
		return d->gate == A64_GATE_ALWAYS;
	field = (unsigned)(id->reg[d->gate] >> d->shift) & ID_FIELD_MASK;
	return field >= d->min && field <= d->max;
}

enum a64_sysreg_plan a64_sysreg_plan(const struct a64_sysreg_desc *d, const struct a64_id_snapshot *id,
				     bool guarded, bool cautious)
{
	if (guarded)
		return A64_SR_PLAN_ACCESS;
	if (!a64_sysreg_expected(d, id))
		return A64_SR_PLAN_SKIP_ABSENT;
	if (cautious && (d->flags & A64_SRF_TRAPPABLE))
		return A64_SR_PLAN_SKIP_TRAPPABLE;
	return A64_SR_PLAN_ACCESS;
}

void a64_sysreg_gate_text(const struct a64_sysreg_desc *d, char *buf, unsigned size)
{
	struct sbuf sb;

	sb_init(&sb, buf, size);
	if (d->flags & A64_SRF_EL2)
		sb_puts(&sb, d->gate == A64_GATE_ALWAYS ? "EL2" : "EL2,");
	if (d->gate == A64_GATE_ALWAYS) {
		if (!(d->flags & A64_SRF_EL2))
			sb_puts(&sb, gate_names[A64_GATE_ALWAYS]);
		return;
	}
	sb_puts(&sb, d->gate < A64_GATE_COUNT ? gate_names[d->gate] : "unknown");
	sb_puts(&sb, "[");
	sb_u64(&sb, d->shift + 3);
	sb_puts(&sb, ":");
	sb_u64(&sb, d->shift);
	sb_puts(&sb, "]=");
	sb_u64(&sb, d->min);
	sb_puts(&sb, "..");
	sb_u64(&sb, d->max);
}

void a64_sysreg_enc_text(const struct a64_sysreg_desc *d, char *buf, unsigned size)
{
	struct sbuf sb;

	sb_init(&sb, buf, size);
	sb_puts(&sb, "S");
	sb_u64(&sb, d->op0);
	sb_puts(&sb, "_");
	sb_u64(&sb, d->op1);
	sb_puts(&sb, "_C");
	sb_u64(&sb, d->crn);
	sb_puts(&sb, "_C");
	sb_u64(&sb, d->crm);
	sb_puts(&sb, "_");
	sb_u64(&sb, d->op2);
}

static uint32_t sysreg_insn(const struct a64_sysreg_desc *d, unsigned rt)
{
	return MSR_INSN_BASE | (uint32_t)d->op0 << INSN_OP0_SHIFT | (uint32_t)d->op1 << INSN_OP1_SHIFT |
	       (uint32_t)d->crn << INSN_CRN_SHIFT | (uint32_t)d->crm << INSN_CRM_SHIFT |
	       (uint32_t)d->op2 << INSN_OP2_SHIFT | (rt & INSN_RT_MASK);
}

uint32_t a64_sysreg_mrs_insn(const struct a64_sysreg_desc *d, unsigned rt)
{
	return sysreg_insn(d, rt) | MRS_INSN_L;
}

uint32_t a64_sysreg_msr_insn(const struct a64_sysreg_desc *d, unsigned rt)
{
	return sysreg_insn(d, rt);
}

unsigned a64_esr_ec(uint64_t esr)
{
	return (unsigned)(esr >> ESR_EC_SHIFT) & ESR_EC_MASK;
}
