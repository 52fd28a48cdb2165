/* Record stream state and helpers (see emit.h). */
#include "lib/emit.h"

#include "lib/fmt.h"

static struct {
	emit_sink_fn sink;
	uint32_t seq;
	uint32_t skips; /* skip records emitted: what end skips= counts */
	bool muted;     /* emit_mute */
	bool drop;      /* the record being built is not sent */
	struct record rec;
} stream;

void emit_init(emit_sink_fn sink)
{
	stream.sink = sink;
	stream.seq = 0;
	stream.skips = 0;
	stream.muted = false;
}

struct record *emit_start(const char *type)
{
	/* A fault is news even in a muted run: the run it interrupted is not what the records say. */
	stream.drop = stream.muted && !str_eq(type, "fault");
	rec_start(&stream.rec, stream.seq, type);
	if (str_eq(type, "skip") && !stream.drop)
		stream.skips++;
	return &stream.rec;
}

void emit_finish(void)
{
	unsigned len = rec_finish(&stream.rec);

	if (stream.drop)
		return;
	if (stream.sink)
		stream.sink(stream.rec.buf, len);
	stream.seq++;
}

void emit_mute(bool on)
{
	stream.muted = on;
}

bool emit_muted(void)
{
	return stream.muted;
}

uint32_t emit_count(void)
{
	return stream.seq;
}

uint32_t emit_skip_count(void)
{
	return stream.skips;
}

void emit_msg(enum msg_level level, const char *text)
{
	static const char *const names[] = { "info", "warn", "error" };
	struct record *r = emit_start("msg");

	rec_str(r, "level", names[level]);
	rec_str(r, "text", text);
	emit_finish();
}

void emit_skip(const char *probe, const char *reason)
{
	struct record *r = emit_start("skip");

	rec_str(r, "probe", probe);
	rec_str(r, "reason", reason);
	emit_finish();
}

void emit_skip_kernel(const char *probe, const char *kernel, const char *width, const char *reason)
{
	struct record *r = emit_start("skip");

	rec_str(r, "probe", probe);
	rec_str(r, "kernel", kernel);
	rec_str(r, "width", width);
	rec_str(r, "reason", reason);
	emit_finish();
}

/* Version 2 digits (docs/protocol.md, "Sample values"). A number is written least significant
 * digit first: continuation digits (base 34) while it does not fit one final digit (base 52),
 * then the final digit, so a list needs no separators. Neither alphabet holds `%`, `|`, `*` (the
 * run mark), `@` (a value must never form the `@BM ` tag with the space after it) or the quoting
 * characters " ' ` and backslash. */
static const char digits_more[] = "!#$&()+,-./0123456789:;<=>?[]^_{}~";
static const char digits_final[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
#define DIGITS_MORE (sizeof(digits_more) - 1)
#define DIGITS_FINAL (sizeof(digits_final) - 1)
#define RUN_MARK '*'
/* A run of equal values is written as `*k` (k more copies) from this many more copies on: below
 * it, the one-digit zero deltas are as short. */
#define RUN_MIN_REPEATS 3
/* Longest text of one value: a 64-bit delta (13 digits), `*` and a count of up to 13 digits. */
#define VALUE_TEXT_MAX 27

void emit_encode_number(struct sbuf *sb, uint64_t x)
{
	while (x >= DIGITS_FINAL) {
		x -= DIGITS_FINAL;
		sb_putc(sb, digits_more[x % DIGITS_MORE]);
		x /= DIGITS_MORE;
	}
	sb_putc(sb, digits_final[x]);
}

/* The signed 64-bit difference cur - prev (modulo 2^64) folded onto the naturals: 0, -1, 1, -2 ->
 * 0, 1, 2, 3, so small steps either way take one digit. */
static uint64_t zigzag_delta(uint64_t cur, uint64_t prev)
{
	uint64_t d = cur - prev;

	return (d << 1) ^ (0 - (d >> 63));
}

size_t emit_encode_values(struct sbuf *sb, const uint64_t *values, size_t n, size_t max_values)
{
	uint64_t prev = 0; /* each record starts from 0: it decodes on its own */
	size_t used = 0;

	if (n > max_values)
		n = max_values;
	while (used < n) {
		size_t run = 1;

		if (sb->cap - sb->len <= VALUE_TEXT_MAX)
			break;
		while (used + run < n && values[used + run] == values[used])
			run++;
		emit_encode_number(sb, zigzag_delta(values[used], prev));
		if (run - 1 >= RUN_MIN_REPEATS) {
			sb_putc(sb, RUN_MARK);
			emit_encode_number(sb, run - 1);
		} else {
			run = 1; /* the next equal value follows as a zero delta */
		}
		prev = values[used];
		used += run;
	}
	return used;
}

void emit_samples(uint32_t set, const uint64_t *values, size_t n)
{
	emit_values("samples", set, 0, values, n);
}

void emit_values(const char *type, uint32_t set, const char *const *fields, const uint64_t *values, size_t n)
{
	size_t i = 0;

	while (i < n) {
		struct record *r = emit_start(type);
		char list[REC_MAX_LINE];
		struct sbuf sb;
		size_t used;

		rec_u64(r, "set", set);
		for (const char *const *f = fields; f && f[0] && f[1]; f += 2)
			rec_str(r, f[0], f[1]);
		rec_u64(r, "i", i);
		/* The count field comes before the list, so encode the list first into a side buffer
		 * sized to what the record has left (minus room for " n=NNN v="). */
		sb_init(&sb, list, rec_room(r) > 16 ? rec_room(r) - 16 : 1);
		used = emit_encode_values(&sb, values + i, n - i, EMIT_SAMPLES_PER_CHUNK);
		rec_u64(r, "n", used);
		rec_key(r, "v");
		rec_append_raw(r, list);
		emit_finish();
		i += used;
		if (!used)
			break; /* cannot happen with REC_MAX_LINE >> VALUE_TEXT_MAX; guards against a hang */
	}
}
