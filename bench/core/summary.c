/* Run summary: the details text and the headline's collection (see summary.h); the headline's
 * formatting is summary_head.c. */
#include "bench/core/summary.h"

#include "lib/emit.h"
#include "lib/sort.h"

struct summary_state *summary_st; /* no memory until summary_init: every write is dropped */
static struct sbuf sb;            /* the details text, after the state in the same memory */
static bool named;                /* a destination was named (known without the memory too) */

void summary_init(char *buf, size_t cap)
{
	size_t state = (sizeof(struct summary_state) + 7) & ~(size_t)7;

	named = false;
	summary_st = 0;
	sb_init(&sb, 0, 0);
	if (cap > SUMMARY_MAX)
		cap = SUMMARY_MAX;
	if (!buf || cap <= state)
		return;
	summary_st = (struct summary_state *)(void *)buf;
	*summary_st = (struct summary_state){ 0 };
	sb_init(&summary_st->skipped, summary_st->skipped_text, sizeof(summary_st->skipped_text));
	sb_init(&sb, buf + state, cap - state);
}

/* A muted stream (the profiler's repeated runs, lib/emit.h) is not summarised either: the first
 * run's figures are already in. */
void summary_line(const char *line)
{
	if (emit_muted())
		return;
	sb_puts(&sb, line);
	sb_putc(&sb, '\n');
}

void summary_value(const char *label, uint64_t value, unsigned decimals, const char *unit)
{
	if (emit_muted())
		return;
	sb_puts(&sb, label);
	sb_puts(&sb, ": ");
	sb_fixed(&sb, value, decimals);
	sb_putc(&sb, ' ');
	sb_puts(&sb, unit);
	sb_putc(&sb, '\n');
}

void summary_probe(const char *name, enum probe_status status)
{
	struct summary_state *s = summary_st;

	if (!s)
		return;
	s->outcomes[status]++;
	if (status != PROBE_OK) {
		sb_puts(&s->skipped, status == PROBE_SKIPPED ? "  skipped " : "  FAILED ");
		sb_puts(&s->skipped, name);
		if (status == PROBE_SKIPPED && s->skip_reason[0] && str_eq(s->skip_probe, name)) {
			sb_puts(&s->skipped, ": ");
			sb_puts(&s->skipped, s->skip_reason);
			s->probe_skips++;
		}
		sb_putc(&s->skipped, '\n');
	}
	s->skip_reason[0] = 0; /* a reason belongs to the probe it was sent in */
}

void summary_fault(const char *name, const char *probe, bool expected)
{
	sb_puts(&sb, expected ? "fault (expected) " : "FAULT ");
	sb_puts(&sb, name);
	sb_puts(&sb, " in ");
	sb_puts(&sb, probe);
	sb_putc(&sb, '\n');
}

void summary_status(const char *status, uint32_t records)
{
	sb_puts(&sb, "status: ");
	sb_puts(&sb, status);
	sb_puts(&sb, ", ");
	sb_u64(&sb, records);
	sb_puts(&sb, " records sent\n");
}

const char *summary_text(void)
{
	return sb.buf ? sb.buf : "";
}

void summary_begin(const struct probe_env *env)
{
	struct summary_state *s = summary_st;

	if (!s)
		return;
	s->hz = env->counter_hz;
	unsigned unknown = 0; /* the lowest data level of unknown geometry, 0: none */

	for (unsigned i = 0; env->cpu && i < env->cpu->num_caches; i++) {
		const struct cache_desc *c = &env->cpu->caches[i];

		if (c->type == CACHE_INST || c->level < 1)
			continue;
		if (c->geometry_unknown && (!unknown || c->level < unknown))
			unknown = c->level;
		if (c->level <= SUMMARY_CACHE_LEVELS)
			s->cache[c->level - 1] = c->size;
	}
	/* A level of unknown size bounds no band: the levels above it and DRAM get no row values. */
	s->dram_unbounded = unknown != 0;
	for (unsigned l = unknown; unknown && l <= SUMMARY_CACHE_LEVELS; l++)
		s->cache[l - 1] = 0;
}

uint64_t summary_muldiv(uint64_t a, uint64_t b, uint64_t c)
{
	if (!c)
		return 0;
	if (b && a > UINT64_MAX / b)
		return a / c * b;
	return a * b / c;
}

uint64_t summary_quantile(const uint64_t *sorted, uint64_t n, unsigned permille)
{
	uint64_t rank = (n * permille + 999) / 1000;

	if (!n)
		return 0;
	return sorted[(rank ? rank : 1) - 1];
}

uint64_t summary_median(const uint64_t *sorted, uint64_t n)
{
	return n ? sorted[(n - 1) / 2] : 0;
}

/* The value of `key` in a key, value, ..., NULL list, or "". */
static const char *param(const char *const *params, const char *key)
{
	for (const char *const *p = params; p && p[0] && p[1]; p += 2)
		if (str_eq(p[0], key))
			return p[1];
	return "";
}

/* The headline row a buffer of `size` bytes measures: 0..SUMMARY_CACHE_LEVELS-1 a cache level,
 * SUMMARY_CACHE_LEVELS DRAM, -1 none (between two levels' bands, or no cache sizes known). */
static int level_of(const struct summary_state *s, uint64_t size)
{
	uint64_t below = 0;
	int last = -1;

	for (int l = 0; l < SUMMARY_CACHE_LEVELS; l++) {
		if (!s->cache[l])
			continue;
		if (size >= 2 * below && size <= s->cache[l] / 2)
			return l;
		below = s->cache[l];
		last = l;
	}
	return last >= 0 && !s->dram_unbounded && size >= 4 * below ? SUMMARY_CACHE_LEVELS : -1;
}

/* Keep `value` for a level when its size is the largest seen there; at the same size the larger
 * value (bandwidth: the best width) or the smaller (latency: one chain per size anyway). */
static void keep(struct summary_cell *c, uint64_t size, uint64_t value, bool larger)
{
	if (!value || size < c->size)
		return;
	if (size == c->size && c->value && (larger ? value <= c->value : value >= c->value))
		return;
	c->size = size;
	c->value = value;
}

void summary_set(const char *probe, const char *const *params, uint64_t *samples, uint64_t n,
		 uint64_t iters, uint64_t overhead)
{
	struct summary_state *s = summary_st;
	bool bw = str_eq(probe, "membw") && str_eq(param(params, "kernel"), "read");
	uint64_t size, bytes, med;
	int l;

	if (emit_muted() || !s || !s->hz || !n || !iters || (!bw && !(str_eq(probe, "latency") && str_eq(param(params, "pattern"), "random"))))
		return;
	if (!parse_u64(param(params, "size"), &size) || (l = level_of(s, size)) < 0)
		return;
	sort_u64(samples, n);
	med = summary_median(samples, n);
	med = med > overhead ? med - overhead : 0;
	if (!med)
		return;
	if (bw) { /* MB/s = bytes x iters x hz / cycles / 10^6; bytes per cycle in millionths first */
		if (parse_u64(param(params, "bytes_per_op"), &bytes))
			keep(&s->bw[l], size, summary_muldiv(summary_muldiv(bytes * iters, 1000000, med),
							     s->hz / 1000, 1000000000), true);
		return;
	}
	/* tenths of a ns per load = cycles x 10^10 / (iters x hz); per load in thousandths first */
	keep(&s->lat[l], size, summary_muldiv(summary_muldiv(med, 1000, iters), 10000000, s->hz), false);
}

void summary_irq(const char *source, const char *wait, uint64_t *samples, uint64_t n)
{
	struct summary_state *s = summary_st;
	struct summary_irq *q = 0;
	bool spin = str_eq(wait, "spin");

	if (emit_muted() || !s || !n)
		return;
	for (unsigned i = 0; i < s->n_irq && !q; i++)
		if (str_eq(s->irq[i].source, source))
			q = &s->irq[i];
	if (!q && s->n_irq < SUMMARY_IRQ_SOURCES)
		q = &s->irq[s->n_irq++];
	if (!q || (q->source[0] && (q->spin || !spin)))
		return;
	str_copy(q->source, source, sizeof(q->source));
	str_copy(q->wait, wait, sizeof(q->wait));
	q->spin = spin;
	sort_u64(samples, n);
	q->median = summary_median(samples, n);
	q->p99 = summary_quantile(samples, n, 990);
	q->n = n;
}

void summary_destination(const char *text)
{
	struct summary_state *s = summary_st;

	named = true;
	if (s && s->n_dest < SUMMARY_DESTINATIONS)
		str_copy(s->dest[s->n_dest++], text, SUMMARY_DEST_MAX);
}

bool summary_only_copy(void)
{
	return !named;
}
