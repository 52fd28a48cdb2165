/* The decoded fields of a replayed machine against its references (see cpuid_replay.h):
 * identification against the signature in the dump's file name and AIDA64's vendor and brand
 * decodings, caches against AIDA64's decoding of the same leaf, the hybrid core type against its
 * 1AH decoding, the hardware id and the logical CPUs per package against the dump's CPU list. */
#include "tests/cpuid/cpuid_replay.h"

#include <ctype.h>
#include <string.h>

#include "arch/x86_64/cpuid_source.h"

#define LEAF7_EDX_HYBRID (1u << 15) /* SDM vol. 2A, CPUID 07H EDX[15] */

/* Family, model and stepping of a CPUID.1:EAX signature, written out from the manuals (SDM vol.
 * 2A, CPUID 01H "Processor Version Information"; AMD APM vol. 3, CPUID Fn0000_0001_EAX): the
 * extended family counts only with family 0FH, the extended model only with family 06H or 0FH. */
static void sig_decode(uint32_t sig, unsigned *fam, unsigned *model, unsigned *step)
{
	unsigned base_fam = (sig >> 8) & 0xF, base_model = (sig >> 4) & 0xF;

	*step = sig & 0xF;
	*fam = base_fam == 0xF ? base_fam + ((sig >> 20) & 0xFF) : base_fam;
	*model = (base_fam == 0x6 || base_fam == 0xF) ? (((sig >> 16) & 0xF) << 4) + base_model : base_model;
}

/* The text without its blanks: AIDA64 trims each 16-byte part of the brand string and collapses
 * runs of blanks ("CPU  Z3745  @" printed "CPU Z3745 @"), so only the other characters compare. */
static void squeeze(char *dst, size_t n, const char *src)
{
	size_t k = 0;

	for (; *src && k + 1 < n; src++)
		if (!isspace((unsigned char)*src))
			dst[k++] = *src;
	dst[k] = '\0';
}

static const struct replay_machine *cur; /* whose `explain` lines apply (replay_check's) */

static void verdict(FILE *out, struct replay_counts *k, const char *field, int v, unsigned cpu, const char *detail)
{
	static const char *const names[] = { "noref", "agree", "disagree", "explained" };

	for (unsigned i = 0; v == 2 && cur && i < cur->n_explained; i++)
		if (!strcmp(cur->explained[i], field))
			v = 3;
	if (v == 1)
		k->agree++;
	else if (v == 2)
		k->disagree++;
	else if (v == 3)
		k->explained++;
	else
		k->noref++;
	if (out)
		fprintf(out, "check %s %s cpu=%u %s\n", field, names[v], cpu, detail);
}

/* A reference cache name (L1D, L1I, L2U, L3U; legacy L2, L3) as level and type. */
static bool cache_name(const char *name, unsigned *level, enum cache_type *type)
{
	if (name[0] != 'L' || name[1] < '1' || name[1] > '9')
		return false;
	*level = (unsigned)(name[1] - '0');
	*type = name[2] == 'D' ? CACHE_DATA : name[2] == 'I' ? CACHE_INST : CACHE_UNIFIED;
	return true;
}

static const struct cache_desc *find_cache(const struct cpu_info *ci, const char *src, unsigned level,
					   enum cache_type type)
{
	for (unsigned i = 0; i < ci->num_caches; i++)
		if (!strcmp(ci->caches[i].source, src) && ci->caches[i].level == level && ci->caches[i].type == type)
			return &ci->caches[i];
	return 0;
}

static bool used_source(const struct cpu_info *ci, const char *src)
{
	for (unsigned i = 0; i < ci->num_caches; i++)
		if (!strcmp(ci->caches[i].source, src))
			return true;
	return false;
}

static void check_cache(FILE *out, struct replay_counts *k, const struct replay_result *r, const struct replay_ref *f,
			unsigned cpu)
{
	char d[160], field[40];
	unsigned level;
	enum cache_type type;
	const struct cache_desc *c;

	snprintf(field, sizeof(field), "cache_%s", f->a);

	if (!cache_name(f->b, &level, &type) || !used_source(&r->ci, f->a)) {
		snprintf(d, sizeof(d), "%s %s ref=%llu (our caches come from another leaf)", f->a, f->b,
			 (unsigned long long)f->num);
		verdict(out, k, field, 0, cpu, d);
		return;
	}
	c = find_cache(&r->ci, f->a, level, type);
	snprintf(d, sizeof(d), "%s %s ours=%llu ref=%llu", f->a, f->b, c ? (unsigned long long)c->size : 0ull,
		 (unsigned long long)f->num);
	verdict(out, k, field, (c ? c->size : 0) == f->num ? 1 : 2, cpu, d);
}

static void check_ident(FILE *out, struct replay_counts *k, const struct replay_machine *m,
			const struct replay_result *r, unsigned cpu)
{
	char d[160];
	unsigned fam, model, step;

	if (!m->has_sig)
		return verdict(out, k, "signature", 0, cpu, "no signature in the file name");
	sig_decode(m->sig, &fam, &model, &step);
	snprintf(d, sizeof(d), "ours=%X/%X/%X ref=%X/%X/%X (family/model/stepping of %07X)", r->ci.family,
		 r->ci.model, r->ci.stepping, fam, model, step, (unsigned)m->sig);
	verdict(out, k, "signature", fam == r->ci.family && model == r->ci.model && step == r->ci.stepping ? 1 : 2,
		cpu, d);
}

static void check_ref(FILE *out, struct replay_counts *k, const struct replay_cpu *c, const struct replay_result *r,
		      const struct replay_ref *f)
{
	char d[200], a[REPLAY_TEXT], b[REPLAY_TEXT];
	bool hybrid;
	uint32_t l7[4];

	if (!strcmp(f->key, "cache"))
		return check_cache(out, k, r, f, c->index);
	if (!strcmp(f->key, "vendor")) {
		squeeze(a, sizeof(a), r->ci.vendor);
		squeeze(b, sizeof(b), f->text);
		snprintf(d, sizeof(d), "ours='%s' ref='%s'", r->ci.vendor, f->text);
		return verdict(out, k, "vendor", strcmp(a, b) ? 2 : 1, c->index, d);
	}
	if (!strcmp(f->key, "brand")) {
		squeeze(a, sizeof(a), r->ci.brand);
		squeeze(b, sizeof(b), f->text);
		snprintf(d, sizeof(d), "ours='%s' ref='%s'", r->ci.brand, f->text);
		return verdict(out, k, "brand", strcmp(a, b) ? 2 : 1, c->index, d);
	}
	if (!strcmp(f->key, "core_type")) {
		const char *want = !strcmp(f->text, "Core") ? "p" : !strcmp(f->text, "Atom") ? "e" : "unknown";
		const char *got = pmu_core_type_name(r->pi.core_type);

		replay_cpuid(c, 7, 0, l7);
		hybrid = l7[3] & LEAF7_EDX_HYBRID;
		snprintf(d, sizeof(d), "ours=%s ref=%s%s", got ? got : "none", want, hybrid ? "" : " (not hybrid)");
		return verdict(out, k, "core_type", !hybrid ? 0 : got && !strcmp(got, want) ? 1 : 2, c->index, d);
	}
	if (!strcmp(f->key, "apic")) {
		snprintf(d, sizeof(d), "ours=%u ref=%llu", (unsigned)r->hw_id, (unsigned long long)f->num);
		return verdict(out, k, "apic_id", r->hw_id == f->num ? 1 : 2, c->index, d);
	}
	if (!strcmp(f->key, "pkg_cpus")) {
		/* CPUID's count is an upper bound of the enabled CPUs: leaf 1's is the addressable ids,
		 * leaf 0BH's "the configuration as shipped", not to be used to enumerate (SDM vol. 2A,
		 * leaf 0BH EBX[15:0]): cores or SMT disabled by firmware stay in it */
		snprintf(d, sizeof(d), "ours=%u (%s) ref=%llu%s%s", r->ci.logical_cpus, r->ci.logical_cpus_source,
			 (unsigned long long)f->num, r->ci.logical_cpus == f->num ? " (equal)" : " (ours an upper bound)",
			 f->truncated ? " (list may be cut at 64)" : "");
		return verdict(out, k, "pkg_cpus", r->ci.logical_cpus >= f->num ? 1 : 2, c->index, d);
	}
}

void replay_check(const struct replay_machine *m, FILE *out, struct replay_counts *k)
{
	static struct replay_result r; /* large: off the stack */

	cur = m;
	for (unsigned i = 0; i < m->n_cpus; i++) {
		const struct replay_cpu *c = &m->cpus[i];
		const char *bad;

		replay_decode(c, &r);
		bad = replay_sane(&r);
		if (bad)
			verdict(out, k, "sanity", 2, c->index, bad);
		if (c->full)
			check_ident(out, k, m, &r, c->index);
		for (unsigned j = 0; j < c->n_refs; j++)
			check_ref(out, k, c, &r, &c->refs[j]);
	}
	cur = 0;
}

static const char *type_name(enum cache_type t)
{
	return t == CACHE_DATA ? "D" : t == CACHE_INST ? "I" : "U";
}

void replay_print(const struct replay_machine *m, FILE *out)
{
	static struct replay_result r;

	fprintf(out, "machine %s\n", m->name);
	for (unsigned i = 0; i < m->n_cpus; i++) {
		const struct cpu_info *ci = &r.ci;
		const char *ct;

		if (!m->cpus[i].full)
			continue;
		replay_decode(&m->cpus[i], &r);
		ct = pmu_core_type_name(r.pi.core_type);
		for (char *v = r.ci.vendor; *v; v++)
			*v = *v == ' ' ? '_' : *v; /* one word in the kind line (Transmeta, "Virtual CPU ") */
		fprintf(out, "kind cpu=%u vendor=%s family=0x%X model=0x%X stepping=%u core_type=%s event_table=%s\n",
			m->cpus[i].index, ci->vendor[0] ? ci->vendor : "-", ci->family, ci->model, ci->stepping,
			ct ? ct : "none", r.event_table);
		fprintf(out, "  brand '%s' hypervisor=%d hv_sig='%s' max_leaf=0x%X max_ext=0x%X\n", ci->brand, ci->hypervisor,
			ci->hv_sig, ci->max_leaf, ci->max_ext_leaf);
		fprintf(out, "  topology hw_id=%u logical_cpus=%u (%s)\n", (unsigned)r.hw_id, ci->logical_cpus,
			ci->logical_cpus_source);
		for (unsigned j = 0; j < ci->num_caches; j++) {
			const struct cache_desc *d = &ci->caches[j];

			fprintf(out, "  cache L%u%s size=%llu line=%u ways=%u sets=%u shared_by=%u source=%s\n", d->level,
				type_name(d->type), (unsigned long long)d->size, d->line, d->ways, d->sets, d->shared_by,
				d->source);
		}
		fprintf(out, "  pmu kind=%s version=%u gp=%u x %u bits fixed=%u (avail 0x%X) x %u bits arch_events=0x%X"
			     " present=%d reason='%s'\n",
			pmu_kind_name(r.pi.kind), r.pi.version, r.pi.num_gp, r.pi.gp_width, r.pi.num_fixed,
			(unsigned)r.pi.fixed_avail, r.pi.fixed_width, (unsigned)r.pi.arch_events, r.pi.present, r.pi.reason);
		fprintf(out, "  tsc_deadline cpuid=%d erratum=%s applies=%d ucode=%s0x%llX\n", ci->tsc_deadline,
			r.erratum ? r.erratum->name : "none", r.erratum_applies, ci->ucode_valid ? "" : "unknown ",
			(unsigned long long)ci->ucode);
	}
}
