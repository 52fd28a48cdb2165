/* The run summary's headline (see summary.h): the record stream's checks and skips counted as the
 * lines are sent, and the headline text from what summary.c collected. */
#include "bench/core/summary.h"

#define REC_TYPE_FIELD 3   /* "@BM <ver> <seq> <type>": spaces before the type */
#define HEX_DIGIT_VALUE 10 /* 'a'..'f' */
#define NS_PER_S 1000000000ull
#define KIB 1024ull
#define MIB (1024ull * 1024)
#define GIB (1024ull * 1024 * 1024)
/* The tables' columns: where a right-aligned value ends, where a left-aligned one starts. */
#define COL_BW_END 20
#define COL_BW_AT 22
#define COL_LAT_END 36
#define COL_LAT_AT 38
#define COL_IRQ_MEDIAN_END 32
#define COL_IRQ_P99_END 42
#define COL_IRQ_WAIT 44

static bool same(const char *a, const char *b, unsigned n)
{
	while (n--)
		if (*a++ != *b++)
			return false;
	return true;
}

/* The value of field `key` in a record line (after " key=", up to the next space), or NULL. */
static const char *field(const char *l, unsigned len, const char *key, unsigned *vlen)
{
	unsigned k = (unsigned)str_len(key), e;

	for (unsigned i = 0; i + k + 2 <= len; i++) {
		if (l[i] != ' ' || !same(l + i + 1, key, k) || l[i + 1 + k] != '=')
			continue;
		for (e = i + k + 2; e < len && l[e] != ' '; e++)
			;
		*vlen = e - (i + k + 2);
		return l + i + k + 2;
	}
	return 0;
}

static int hex_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'A' && c <= 'F')
		return c - 'A' + HEX_DIGIT_VALUE;
	return -1;
}

/* A field's value with its %XX escapes undone, cut to cap (NUL-terminated); "" when absent. */
static void value_copy(char *dst, size_t cap, const char *v, unsigned n)
{
	size_t o = 0;

	for (unsigned i = 0; v && i < n && o + 1 < cap; i++) {
		int hi = v[i] == '%' && i + 2 < n ? hex_value(v[i + 1]) : -1;
		int lo = hi >= 0 ? hex_value(v[i + 2]) : -1;

		if (lo >= 0) {
			dst[o++] = (char)(hi * 16 + lo);
			i += 2;
		} else {
			dst[o++] = v[i];
		}
	}
	dst[o] = 0;
}

void summary_record(const char *l, unsigned len)
{
	struct summary_state *s = summary_st;
	const char *v;
	unsigned i = 0, spaces = 0, n = 0;

	if (!s)
		return;
	while (i < len && spaces < REC_TYPE_FIELD)
		spaces += l[i++] == ' ';
	if (i + 6 <= len && same(l + i, "check ", 6)) {
		v = field(l, len, "status", &n);
		if (v && n == 4 && same(v, "pass", 4))
			s->checks_pass++;
		else if (v && n == 4 && same(v, "fail", 4))
			s->checks_fail++;
		else
			s->checks_other++;
	} else if (i + 5 <= len && same(l + i, "skip ", 5)) {
		s->skip_records++;
		v = field(l, len, "probe", &n);
		value_copy(s->skip_probe, sizeof(s->skip_probe), v, n);
		v = field(l, len, "reason", &n);
		value_copy(s->skip_reason, sizeof(s->skip_reason), v, n);
	}
}

/* Spaces up to column `col` of the line that starts at `start` (at least one after text). */
static void pad(struct sbuf *sb, size_t start, size_t col)
{
	do
		sb_putc(sb, ' ');
	while (sb->len - start < col && !sb->overflow);
}

/* `text` right-aligned to end at column `end`. */
static void right(struct sbuf *sb, size_t start, size_t end, const char *text)
{
	size_t n = str_len(text);

	if (sb->len - start + n < end)
		pad(sb, start, end - n);
	else
		sb_putc(sb, ' ');
	sb_puts(sb, text);
}

static void put_size(struct sbuf *sb, uint64_t v)
{
	static const struct { uint64_t unit; char c; } units[] = { { GIB, 'G' }, { MIB, 'M' }, { KIB, 'K' } };

	for (unsigned i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (v >= units[i].unit && v % units[i].unit == 0) {
			sb_u64(sb, v / units[i].unit);
			sb_putc(sb, units[i].c);
			return;
		}
	}
	sb_u64(sb, v);
}

/* One memory row's value: the number right-aligned at `end`, its buffer size at `at`. */
static void mem_cell(struct sbuf *sb, size_t start, const struct summary_cell *c, unsigned decimals,
		     size_t end, size_t at)
{
	char num[24];
	struct sbuf t;

	sb_init(&t, num, sizeof(num));
	if (c->value)
		sb_fixed(&t, c->value, decimals);
	else
		sb_putc(&t, '-');
	right(sb, start, end, num);
	if (!c->value)
		return;
	pad(sb, start, at);
	put_size(sb, c->size);
}

static void memory_table(struct sbuf *sb, const struct summary_state *s)
{
	bool any = false;

	for (int l = 0; l <= SUMMARY_CACHE_LEVELS; l++)
		any = any || s->bw[l].value || s->lat[l].value;
	if (!any) {
		sb_puts(sb, "memory: not measured (membw read, latency random)\n");
		return;
	}
	sb_puts(sb, "memory     read MB/s  at     load ns  at\n"); /* the COL_ constants' columns */
	for (int l = 0; l <= SUMMARY_CACHE_LEVELS; l++) {
		size_t start = sb->len;

		if (l < SUMMARY_CACHE_LEVELS && !s->cache[l])
			continue;
		if (l < SUMMARY_CACHE_LEVELS) {
			sb_puts(sb, "  L");
			sb_u64(sb, (uint64_t)l + 1);
			sb_putc(sb, ' ');
			put_size(sb, s->cache[l]);
		} else {
			sb_puts(sb, "  DRAM");
		}
		mem_cell(sb, start, &s->bw[l], 0, COL_BW_END, COL_BW_AT);
		mem_cell(sb, start, &s->lat[l], 1, COL_LAT_END, COL_LAT_AT);
		sb_putc(sb, '\n');
	}
}

static void irq_table(struct sbuf *sb, const struct summary_state *s)
{
	char num[24];
	struct sbuf t;

	if (!s->n_irq) {
		sb_puts(sb, "interrupt latency: not measured (irq_latency)\n");
		return;
	}
	sb_puts(sb, "interrupt latency      median ns    p99 ns  wait, samples\n");
	for (unsigned i = 0; i < s->n_irq; i++) {
		const struct summary_irq *q = &s->irq[i];
		size_t start = sb->len;

		sb_puts(sb, "  ");
		sb_puts(sb, q->source);
		sb_init(&t, num, sizeof(num));
		sb_u64(&t, summary_muldiv(q->median, NS_PER_S, s->hz));
		right(sb, start, COL_IRQ_MEDIAN_END, num);
		sb_init(&t, num, sizeof(num));
		sb_u64(&t, summary_muldiv(q->p99, NS_PER_S, s->hz));
		right(sb, start, COL_IRQ_P99_END, num);
		pad(sb, start, COL_IRQ_WAIT);
		sb_puts(sb, q->wait);
		sb_puts(sb, ", ");
		sb_u64(sb, q->n);
		sb_putc(sb, '\n');
	}
}

static void count(struct sbuf *sb, const char *before, unsigned n, const char *after)
{
	sb_puts(sb, before);
	sb_u64(sb, n);
	sb_puts(sb, after);
}

static void outcomes(struct sbuf *sb, const struct summary_state *s)
{
	count(sb, "checks: ", s->checks_pass, " passed, ");
	count(sb, "", s->checks_fail, s->checks_fail ? " FAILED" : " failed");
	if (s->checks_other)
		count(sb, ", ", s->checks_other, " not judged");
	count(sb, "\nprobes: ", s->outcomes[PROBE_OK], " ok, ");
	count(sb, "", s->outcomes[PROBE_SKIPPED], " skipped, ");
	count(sb, "", s->outcomes[PROBE_FAILED], s->outcomes[PROBE_FAILED] ? " FAILED\n" : " failed\n");
	sb_puts(sb, s->skipped_text);
	if (s->skip_records > s->probe_skips)
		count(sb, "  ", s->skip_records - s->probe_skips, " skip records for parts of probes (see the records)\n");
}

void summary_headline(char *buf, size_t cap, const char *counter_name)
{
	const struct summary_state *s = summary_st;
	struct sbuf sb;

	sb_init(&sb, buf, cap);
	if (!s) {
		sb_puts(&sb, "no memory for the summary: see the records\n");
		return;
	}
	sb_puts(&sb, "counter: ");
	sb_puts(&sb, counter_name);
	sb_puts(&sb, " at ");
	sb_fixed(&sb, s->hz / 1000, 3);
	sb_puts(&sb, " MHz\n");
	memory_table(&sb, s);
	irq_table(&sb, s);
	outcomes(&sb, s);
	for (unsigned i = 0; i < s->n_dest; i++) {
		sb_puts(&sb, "results: ");
		sb_puts(&sb, s->dest[i]);
		sb_putc(&sb, '\n');
	}
	if (!s->n_dest)
		sb_puts(&sb, "results: NOT SAVED: no serial port answered and nothing was written\n");
}
