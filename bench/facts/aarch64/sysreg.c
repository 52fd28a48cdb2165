/* The plat kind=sysreg / kind=sysregs records (see bench/facts/aarch64/sysreg.h; fields in
 * docs/protocol.md, AArch64). Where our vectors catch faults (EL1 or EL2 after traps_init) every
 * register is read, the absent ones too (their UNDEF proves the guard and says what this EL may
 * not touch); where they do not, a register is read only when the ID registers say it exists and
 * no higher EL's trap control can refuse it, and the others say why not. */
#include "bench/facts/aarch64/sysreg.h"

#include "arch/aarch64/sysreg_safe.h"
#include "arch/traps.h"
#include "bench/core/summary.h"
#include "lib/emit.h"
#include "lib/fmt.h"

#define TEXT_BUF 48
#define ISAR2_MOPS_SHIFT 16 /* ID_AA64ISAR2_EL1.MOPS [19:16] */
#define ID_FIELD_MASK 0xFu
#define MOPS_PROBE_BYTES 64
#define MOPS_PROBE_FILL 0xA5
#define NAMES_BUF 420 /* every name of the table, comma-separated, fits */

struct tally {
	unsigned ok, fault, not_read, unexpected;
	char faulted[NAMES_BUF], trapped[NAMES_BUF]; /* every fault; faults of present registers */
	struct sbuf f_sb, t_sb;
};

static void add_name(struct sbuf *sb, const char *name)
{
	if (sb->len)
		sb_putc(sb, ',');
	sb_puts(sb, name);
}

static void emit_one(enum a64_sysreg id, const struct a64_id_snapshot *ids, struct tally *t)
{
	const struct a64_sysreg_desc *d = &a64_sysregs[id];
	bool expect = a64_sysreg_expected(d, ids), guarded = sysreg_guarded();
	char text[TEXT_BUF];
	struct sysreg_result res = { SYSREG_NOT_TRIED, 0, 0, guarded };
	const char *why = 0;
	struct record *r;

	switch (a64_sysreg_plan(d, ids, guarded, true)) {
	case A64_SR_PLAN_ACCESS:
		res = sysreg_try_read(id);
		break;
	case A64_SR_PLAN_SKIP_TRAPPABLE:
		why = "no vectors of ours at this EL and a higher EL may trap it: not read";
		break;
	default:
		why = "absent by the ID registers and no vectors of ours at this EL: not read";
	}

	r = emit_start("plat");
	rec_str(r, "kind", "sysreg");
	rec_str(r, "name", d->name);
	a64_sysreg_enc_text(d, text, sizeof(text));
	rec_str(r, "enc", text);
	a64_sysreg_gate_text(d, text, sizeof(text));
	rec_str(r, "gate", text);
	rec_str(r, "expect", expect ? "present" : "absent");
	rec_str(r, "how", guarded ? "vectors" : "id_only");
	if (res.outcome == SYSREG_OK) {
		rec_str(r, "status", "ok");
		rec_hex(r, "value", res.value);
		t->ok++;
	} else if (res.outcome == SYSREG_FAULT) {
		unsigned ec = a64_esr_ec(res.esr);

		rec_str(r, "status", "fault");
		rec_hex(r, "esr", res.esr);
		rec_hex(r, "ec", ec);
		rec_str(r, "ec_name", trap_vector_name(ec));
		t->fault++;
		add_name(&t->f_sb, d->name);
		if (expect)
			add_name(&t->t_sb, d->name);
	} else {
		rec_str(r, "status", "not_read");
		rec_str(r, "reason", why ? why : "not tried");
		t->not_read++;
	}
	/* Read while absent, or faulted while present: the ID registers and the machine disagree
	 * (a higher EL's trap, or an ID register a hypervisor edits). */
	if ((res.outcome == SYSREG_OK && !expect) || (res.outcome == SYSREG_FAULT && expect)) {
		rec_bool(r, "unexpected", true);
		t->unexpected++;
	}
	emit_finish();
}

/* The FEAT_MOPS instructions through the same guard: one SETP/SETM/SETE, tried even where the ID
 * register says absent when our vectors catch the UNDEF (as the absent registers are read). */
static void emit_mops_probe(void)
{
	static uint8_t buf[MOPS_PROBE_BYTES];
	uint64_t isar2 = 0;
	bool expect = sysreg_read_safe(A64_SR_ID_AA64ISAR2_EL1, &isar2) &&
		      ((isar2 >> ISAR2_MOPS_SHIFT) & ID_FIELD_MASK) != 0;
	struct sysreg_result res = { SYSREG_NOT_TRIED, 0, 0, sysreg_guarded() };
	struct record *r;

	if (res.guarded)
		res = sysreg_try_mops(buf, sizeof(buf), MOPS_PROBE_FILL);
	r = emit_start("plat");
	rec_str(r, "kind", "insn_probe");
	rec_str(r, "name", "setp");
	rec_str(r, "feature", "FEAT_MOPS");
	rec_str(r, "gate", "ID_AA64ISAR2_EL1[19:16]=1..15");
	rec_str(r, "expect", expect ? "present" : "absent");
	rec_str(r, "how", res.guarded ? "vectors" : "id_only");
	if (res.outcome == SYSREG_OK) {
		/* the set must have stored the fill byte over the whole buffer */
		unsigned wrong = 0;

		for (unsigned i = 0; i < sizeof(buf); i++)
			wrong += buf[i] != MOPS_PROBE_FILL;
		rec_str(r, "status", "ok");
		rec_u64(r, "bytes_wrong", wrong);
	} else if (res.outcome == SYSREG_FAULT) {
		rec_str(r, "status", "fault");
		rec_hex(r, "esr", res.esr);
		rec_hex(r, "ec", a64_esr_ec(res.esr));
		rec_str(r, "ec_name", trap_vector_name(a64_esr_ec(res.esr)));
	} else {
		rec_str(r, "status", "not_read");
		rec_str(r, "reason", "no vectors of ours at this EL: not executed");
	}
	emit_finish();
}

void platform_a64sysreg_emit(void)
{
	struct a64_id_snapshot ids;
	struct tally t = { 0 };
	struct sysreg_result wguard = { SYSREG_NOT_TRIED, 0, 0, false };
	char line[96];
	struct record *r;
	struct sbuf sb;

	sb_init(&t.f_sb, t.faulted, sizeof(t.faulted));
	sb_init(&t.t_sb, t.trapped, sizeof(t.trapped));
	sysreg_id_snapshot(&ids);
	for (unsigned i = 0; i < A64_SR_COUNT; i++)
		emit_one((enum a64_sysreg)i, &ids, &t);

	emit_mops_probe();
	/* The write path's own check: an MSR to a read-only ID register is UNDEFINED; writing the
	 * value it holds changes nothing should it not fault. Only where faults are caught. */
	if (sysreg_guarded()) {
		uint64_t v = 0;

		if (sysreg_read_safe(A64_SR_ID_AA64PFR1_EL1, &v))
			wguard = sysreg_try_write(A64_SR_ID_AA64PFR1_EL1, v);
	}

	r = emit_start("plat");
	rec_str(r, "kind", "sysregs");
	rec_u64(r, "el", ids.el);
	rec_bool(r, "guarded", sysreg_guarded());
	rec_u64(r, "count", A64_SR_COUNT);
	rec_u64(r, "ok", t.ok);
	rec_u64(r, "faulted", t.fault);
	rec_u64(r, "not_read", t.not_read);
	rec_u64(r, "unexpected", t.unexpected);
	rec_str(r, "faults", t.fault ? t.faulted : "none");
	rec_str(r, "trapped", t.t_sb.len ? t.trapped : "none");
	rec_str(r, "write_guard", wguard.outcome == SYSREG_FAULT ? "fault"
				  : wguard.outcome == SYSREG_OK ? "ok" : "not_tried");
	if (wguard.outcome == SYSREG_FAULT)
		rec_hex(r, "write_guard_ec", a64_esr_ec(wguard.esr));
	emit_finish();

	sb_init(&sb, line, sizeof(line));
	sb_puts(&sb, "system registers: ");
	sb_u64(&sb, t.ok);
	sb_puts(&sb, " read, ");
	sb_u64(&sb, t.fault);
	sb_puts(&sb, " faulted, ");
	sb_u64(&sb, t.not_read);
	sb_puts(&sb, " not read (see plat kind=sysreg)");
	summary_line(line);
}
