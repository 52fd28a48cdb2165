/* Recorded CPUID through the firmware's x86 discovery (see cpuid_replay.h): the fixture parser,
 * the replayed CPUID hooks, the decode and the comparison with the fixture's references. */
#include "tests/cpuid/cpuid_replay.h"

#include <stdlib.h>
#include <string.h>

#include "arch/x86_64/cpuid_source.h"
#include "arch/x86_64/msr.h"

#define LEAF7_EDX_HYBRID (1u << 15) /* SDM vol. 2A, CPUID 07H EDX[15] */
#define MSR8B_UCODE_SHIFT 32        /* Intel IA32_BIOS_SIGN_ID: the revision in bits 63:32 */
#define MAX_FIXTURE_BYTES (4u << 20)

/* ---- parsing ---------------------------------------------------------------------------------- */

static bool refuse(struct replay_machine *m, unsigned line, const char *why)
{
	snprintf(m->error, sizeof(m->error), "line %u: %s", line, why);
	return false;
}

/* One `ref` line's words after the key. */
static bool parse_ref(struct replay_ref *r, const char *key, const char *rest)
{
	char tail[16] = "";

	snprintf(r->key, sizeof(r->key), "%s", key);
	if (!strcmp(key, "brand") || !strcmp(key, "vendor") || !strcmp(key, "core_type")) {
		snprintf(r->text, sizeof(r->text), "%s", rest);
		return true;
	}
	if (!strcmp(key, "cache"))
		return sscanf(rest, "%23s %15s %llu", r->a, r->b, (unsigned long long *)&r->num) == 3;
	if (!strcmp(key, "apic") || !strcmp(key, "pkg_cpus")) {
		int n = sscanf(rest, "%llu %15s", (unsigned long long *)&r->num, tail);

		r->truncated = n == 2 && !strcmp(tail, "truncated");
		return n >= 1;
	}
	return false;
}

static bool parse_line(struct replay_machine *m, char *s, unsigned ln)
{
	struct replay_cpu *c = m->n_cpus ? &m->cpus[m->n_cpus - 1] : 0;
	char word[16] = "", kind[8] = "";
	unsigned idx;
	int off = 0;

	while (*s == ' ' || *s == '\t')
		s++;
	if (!*s || *s == '#')
		return true;
	if (sscanf(s, "%15s %n", word, &off) < 1)
		return true;
	if (!strcmp(word, "machine"))
		return snprintf(m->name, sizeof(m->name), "%s", s + off), true;
	if (!strcmp(word, "sig"))
		return (m->has_sig = sscanf(s + off, "%x", &m->sig) == 1) || refuse(m, ln, "bad sig");
	if (!strcmp(word, "explain")) {
		if (m->n_explained >= REPLAY_MAX_EXPLAINED || sscanf(s + off, "%15s", m->explained[m->n_explained]) != 1)
			return refuse(m, ln, "bad explain line");
		m->n_explained++;
		return true;
	}
	if (!strcmp(word, "cpu")) {
		if (m->n_cpus >= REPLAY_MAX_CPUS)
			return refuse(m, ln, "too many CPUs");
		if (sscanf(s + off, "%u %7s", &idx, kind) != 2)
			return refuse(m, ln, "bad cpu line");
		c = &m->cpus[m->n_cpus++];
		memset(c, 0, sizeof(*c));
		c->index = idx;
		c->full = !strcmp(kind, "full");
		return true;
	}
	if (!c)
		return refuse(m, ln, "leaf before the first cpu line");
	if (!strcmp(word, "c")) {
		struct replay_leaf *l;

		if (c->n_leaves >= REPLAY_MAX_LEAVES)
			return refuse(m, ln, "too many leaves");
		l = &c->leaves[c->n_leaves];
		if (sscanf(s + off, "%x %x %x %x %x %x", &l->leaf, &l->sub, &l->r[0], &l->r[1], &l->r[2], &l->r[3]) != 6)
			return refuse(m, ln, "bad leaf line");
		c->n_leaves++;
		return true;
	}
	if (!strcmp(word, "msr")) {
		unsigned long long v;

		if (sscanf(s + off, "8B %llx", &v) != 1)
			return refuse(m, ln, "bad msr line");
		c->msr8b = v;
		c->msr8b_valid = true;
		return true;
	}
	if (!strcmp(word, "ref")) {
		char key[16];
		int off2 = 0;

		if (c->n_refs >= REPLAY_MAX_REFS)
			return refuse(m, ln, "too many refs");
		if (sscanf(s + off, "%15s %n", key, &off2) < 1 || !parse_ref(&c->refs[c->n_refs], key, s + off + off2))
			return refuse(m, ln, "bad ref line");
		c->n_refs++;
		return true;
	}
	return refuse(m, ln, "unknown line");
}

bool replay_parse(struct replay_machine *m, const char *text)
{
	unsigned ln = 0;

	memset(m, 0, sizeof(*m));
	m->cpus = calloc(REPLAY_MAX_CPUS, sizeof(*m->cpus));
	if (!m->cpus)
		return refuse(m, 0, "out of memory");
	while (*text) {
		char line[512];
		size_t n = strcspn(text, "\n"), len = n;

		ln++;
		if (n >= sizeof(line))
			return refuse(m, ln, "line too long");
		memcpy(line, text, n);
		line[n] = '\0';
		while (len && line[len - 1] == '\r')
			line[--len] = '\0';
		if (!parse_line(m, line, ln))
			return false;
		text += n + (text[n] == '\n');
	}
	if (!m->n_cpus)
		return refuse(m, ln, "no cpu in the fixture");
	if (!m->cpus[0].full)
		return refuse(m, ln, "the first cpu is not a full one");
	return true;
}

bool replay_load(struct replay_machine *m, const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf;
	size_t n;
	bool ok;

	memset(m, 0, sizeof(*m));
	if (!f)
		return refuse(m, 0, "cannot open the file");
	buf = malloc(MAX_FIXTURE_BYTES + 1);
	n = buf ? fread(buf, 1, MAX_FIXTURE_BYTES, f) : 0;
	fclose(f);
	if (!buf)
		return refuse(m, 0, "out of memory");
	buf[n] = '\0';
	ok = n < MAX_FIXTURE_BYTES ? replay_parse(m, buf) : refuse(m, 0, "file too large");
	free(buf);
	return ok;
}

void replay_free(struct replay_machine *m)
{
	free(m->cpus);
	m->cpus = 0;
	m->n_cpus = 0;
}

/* ---- replay ----------------------------------------------------------------------------------- */

void replay_cpuid(const struct replay_cpu *c, uint32_t leaf, uint32_t sub, uint32_t out[4])
{
	memset(out, 0, 4 * sizeof(out[0]));
	for (unsigned i = 0; i < c->n_leaves; i++)
		if (c->leaves[i].leaf == leaf && c->leaves[i].sub == sub) {
			memcpy(out, c->leaves[i].r, 4 * sizeof(out[0]));
			return;
		}
}

static void source_read(void *ctx, uint32_t leaf, uint32_t sub, uint32_t out[4])
{
	replay_cpuid(ctx, leaf, sub, out);
}

/* The machine's MSRs and counters are not recorded: every access faults, as under a hypervisor
 * that filters the PMU (discovery then keeps the CPUID geometry and says why nothing counts). */
static int no_rdmsr(void *ctx, uint32_t msr, uint64_t *v)
{
	(void)ctx, (void)msr;
	*v = 0;
	return MSR_FAULT;
}

static int no_wrmsr(void *ctx, uint32_t msr, uint64_t v)
{
	(void)ctx, (void)msr, (void)v;
	return MSR_FAULT;
}

static int no_rdpmc(void *ctx, uint32_t idx, uint64_t *v)
{
	(void)ctx, (void)idx;
	*v = 0;
	return MSR_FAULT;
}

void replay_decode(const struct replay_cpu *c, struct replay_result *r)
{
	struct cpuid_source src = { source_read, (void *)c };
	struct pmu_ops ops = { no_rdmsr, no_wrmsr, no_rdpmc, (void *)c, 0, source_read };
	struct pmu_info boot = { .ops = &ops };
	const struct pmu_event_table *t;

	memset(r, 0, sizeof(*r));
	cpu_info_decode(&r->ci, &src);
	r->hw_id = cpu_hw_id_decode(&src);
	/* arch_cpu_identify_privileged's result, from the recorded IA32_BIOS_SIGN_ID (Intel only) */
	if (r->ci.is_intel && c->msr8b_valid) {
		r->ci.ucode = c->msr8b >> MSR8B_UCODE_SHIFT;
		r->ci.ucode_valid = true;
	}
	pmu_discover_this_cpu(&r->pi, &r->ci, &boot);
	/* the call pmu_discover makes once the PMU is there, also where this replay cannot count */
	t = pmu_family_events(r->ci.is_intel, r->ci.is_amd, r->ci.family, r->ci.model, r->pi.core_type);
	r->event_table = t ? t->name : "none";
	r->erratum = tsc_deadline_erratum_for(&r->ci);
	r->erratum_applies = tsc_deadline_erratum_applies(&r->ci, r->erratum);
}

const char *replay_sane(const struct replay_result *r)
{
	const struct cpu_info *ci = &r->ci;

	if (ci->num_caches > CPU_MAX_CACHES)
		return "more caches than the table holds";
	for (unsigned i = 0; i < ci->num_caches; i++) {
		const struct cache_desc *d = &ci->caches[i];

		if (!d->size || !d->line || !d->source)
			return "a cache of size or line 0 reported";
		if (d->type != CACHE_DATA && d->type != CACHE_INST && d->type != CACHE_UNIFIED)
			return "a cache of no known type";
		if (d->ways && d->sets && d->size % ((uint64_t)d->ways * d->sets) != 0)
			return "size not a multiple of ways x sets";
	}
	if (memchr(ci->vendor, 0, sizeof(ci->vendor)) == 0 || memchr(ci->brand, 0, sizeof(ci->brand)) == 0 ||
	    memchr(ci->hv_sig, 0, sizeof(ci->hv_sig)) == 0)
		return "an identification string without its terminator";
	if (r->pi.num_gp > PMU_MAX_GP)
		return "more general-purpose counters than the PMU code handles";
	if (r->pi.num_fixed > PMU_MAX_FIXED && r->pi.fixed_avail >> PMU_MAX_FIXED)
		return "fixed counters available beyond those the PMU code handles";
	if (!r->pi.reason || !r->event_table)
		return "PMU decision without a reason";
	if (!ci->logical_cpus_source)
		return "logical CPU count without its source";
	return 0;
}
