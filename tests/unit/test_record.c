/* Record encoding (docs/protocol.md) and the stream's sample chunking. */
#include <stdlib.h>

#include "lib/crc32.h"
#include "lib/emit.h"
#include "tests/unit/test.h"

/* Check that a finished line ends with " |" + the CRC of everything before it. */
static int trailer_ok(const char *line, unsigned len)
{
	char want[9];
	uint32_t crc;

	if (len < 11 || line[len - 10] != ' ' || line[len - 9] != '|')
		return 0;
	crc = crc32_update(0, line, len - 10);
	snprintf(want, sizeof(want), "%08x", crc);
	return memcmp(line + len - 8, want, 8) == 0;
}

static void encodes_fields(void)
{
	struct record r;
	unsigned len;

	rec_start(&r, 7, "plat");
	rec_str(&r, "vendor", "EDK II|100%");
	rec_u64(&r, "n", 42);
	rec_i64(&r, "d", -3);
	rec_hex(&r, "base", 0xFED00000);
	rec_bool(&r, "ok", true);
	len = rec_finish(&r);
	const char *want = "@BM 2 7 plat vendor=EDK%20II%7C100%25 n=42 d=-3 base=0xfed00000 ok=1 |";

	CHECK(strncmp(r.buf, want, strlen(want)) == 0);
	CHECK(trailer_ok(r.buf, len));
	CHECK_EQ_U64(strlen(r.buf), len);
}

static void escapes_control_and_high_bytes(void)
{
	struct record r;

	rec_start(&r, 0, "msg");
	rec_str(&r, "text", "a\tb\r\n\x80=");
	rec_finish(&r);
	CHECK(strstr(r.buf, "text=a%09b%0D%0A%80= |") != 0);
}

static void never_exceeds_line(void)
{
	struct record r;
	char big[3000];
	unsigned len;

	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = 0;
	rec_start(&r, 1, "msg");
	rec_str(&r, "text", big);
	len = rec_finish(&r);
	CHECK(len < REC_MAX_LINE);
	CHECK(rec_overflowed(&r));
	CHECK(trailer_ok(r.buf, len)); /* still a valid (truncated) record */
}

/* The version 2 digits, decoded independently of lib/emit.c (docs/protocol.md, "Sample values"). */
static const char more_digits[] = "!#$&()+,-./0123456789:;<=>?[]^_{}~";
static const char final_digits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/* One number at *p (advanced past it); 0 and *ok cleared on a bad digit or the end. */
static uint64_t read_number(const char **p, int *ok)
{
	unsigned more[16], n = 0;
	const char *f;
	uint64_t x;

	while (**p && strchr(more_digits, **p) && n < 16)
		more[n++] = (unsigned)(strchr(more_digits, *(*p)++) - more_digits);
	f = **p ? strchr(final_digits, **p) : 0;
	if (!f) {
		*ok = 0;
		return 0;
	}
	(*p)++;
	x = (uint64_t)(f - final_digits);
	while (n--)
		x = 52 + more[n] + 34 * x;
	return x;
}

/* Decode one v= list into out (at most cap values); returns the count, or cap + 1 on damage. */
static size_t decode_list(const char *v, uint64_t *out, size_t cap)
{
	uint64_t prev = 0;
	size_t count = 0;
	int ok = 1;

	while (*v && *v != ' ') {
		uint64_t k = 1;

		if (*v == '*') {
			v++;
			k = read_number(&v, &ok);
			if (!count || !k)
				ok = 0;
		} else {
			uint64_t z = read_number(&v, &ok);

			prev += (z >> 1) ^ (0 - (z & 1));
		}
		while (ok && k-- && count < cap)
			out[count++] = prev;
		if (!ok || count >= cap)
			return ok ? count : cap + 1;
	}
	return count;
}

/* A sink that collects lines and decodes samples records back. */
static uint64_t decoded[12000];
static size_t ndecoded, nlines, longest_chunk;
static int lines_ok = 1;

static void collect(const char *line, unsigned len)
{
	const char *v = strstr(line, " v=");
	const char *n = strstr(line, " n=");
	size_t count;

	nlines++;
	if (!trailer_ok(line, len) || len >= REC_MAX_LINE || strstr(line, "@BM ") != line ||
	    strstr(line + 1, "@BM"))
		lines_ok = 0;
	if (!v)
		return;
	count = decode_list(v + 3, decoded + ndecoded, sizeof(decoded) / sizeof(decoded[0]) - ndecoded);
	if (!n || strtoull(n + 3, 0, 10) != count || count > EMIT_SAMPLES_PER_CHUNK)
		lines_ok = 0;
	ndecoded += count;
	if (count > longest_chunk)
		longest_chunk = count;
}

/* Emit v[0..n) as a samples set and decode it back: every value, in lines that keep the limits. */
static void round_trip(const uint64_t *v, size_t n)
{
	ndecoded = nlines = longest_chunk = 0;
	lines_ok = 1;
	emit_init(collect);
	emit_samples(3, v, n);
	CHECK(lines_ok);
	CHECK_EQ_U64(ndecoded, n);
	CHECK(memcmp(decoded, v, n * sizeof(v[0])) == 0);
	CHECK_EQ_U64(emit_count(), nlines);
}

static void samples_round_trip(void)
{
	static uint64_t v[10000];
	uint64_t x = 88172645463325252ull, acc = 0;
	size_t i;

	for (i = 0; i < 1000; i++)
		v[i] = i < 300 ? 40 : (i * 2654435761u) % 100000000000ull; /* a run, then big values */
	round_trip(v, 1000);
	for (i = 0; i < 10000; i++) { /* a timer's few values: runs of every length */
		x ^= x << 13, x ^= x >> 7, x ^= x << 17; /* xorshift64 */
		v[i] = 24 + 25 * (x % 3 == 0) + 25 * (x % 7 == 0);
	}
	round_trip(v, 10000);
	for (i = 0; i < 4000; i++) { /* any 64-bit value, the extremes and wrapped deltas among them */
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		v[i] = i % 5 == 0 ? ~0ull : i % 5 == 1 ? 0 : i % 5 == 2 ? 1ull << 63 : x;
	}
	round_trip(v, 4000);
	for (i = 0; i < 4000; i++) { /* rising time stamps */
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		acc += x % 10000000;
		v[i] = acc;
	}
	round_trip(v, 4000);
	CHECK(nlines < 4000 / 96); /* denser than version 1's 96 values a record */
	for (i = 0; i < 5000; i++)
		v[i] = 5;
	round_trip(v, 5000);
	CHECK_EQ_U64(longest_chunk, EMIT_SAMPLES_PER_CHUNK); /* a run is cut at the chunk limit */
}

static void samples_run_length(void)
{
	uint64_t v[10] = { 31, 31, 31, 31, 32, 7, 7, 0, 0, 0 };
	char buf[128];
	struct sbuf sb;

	/* 31: zigzag 62 = 52 + 10: '/' 'A'; 3 more copies "*D"; +1: 'C'; -25: 'x'; 0: 'A'; -7: 'N' */
	sb_init(&sb, buf, sizeof(buf));
	CHECK_EQ_U64(emit_encode_values(&sb, v, 10, 96), 10);
	CHECK_STR(buf, "/A*DCxANAA");
	/* the chunk limit counts values, not run-length groups */
	sb_init(&sb, buf, sizeof(buf));
	CHECK_EQ_U64(emit_encode_values(&sb, v, 10, 3), 3);
	CHECK_STR(buf, "/AAA");
}

static void number_digits(void)
{
	char buf[32];
	struct sbuf sb;

	sb_init(&sb, buf, sizeof(buf));
	emit_encode_number(&sb, 0);
	emit_encode_number(&sb, 51);
	emit_encode_number(&sb, 52);
	emit_encode_number(&sb, 52 + 34 * 52 - 1);
	CHECK_STR(buf, "Az!A~z");
	sb_init(&sb, buf, sizeof(buf));
	emit_encode_number(&sb, ~0ull);
	CHECK_EQ_U64(strlen(buf), 13); /* the longest number */
}

static void sequence_numbers(void)
{
	nlines = 0;
	emit_init(collect);
	emit_msg(MSG_WARN, "one");
	emit_skip("timer", "two");
	CHECK_EQ_U64(emit_count(), 2);
	CHECK_EQ_U64(nlines, 2);
}

TEST_SUITE(record) = {
	{ "encodes_fields", encodes_fields },
	{ "escapes_control_and_high_bytes", escapes_control_and_high_bytes },
	{ "never_exceeds_line", never_exceeds_line },
	{ 0, 0 },
};

TEST_SUITE(emit) = {
	{ "samples_round_trip", samples_round_trip },
	{ "samples_run_length", samples_run_length },
	{ "number_digits", number_digits },
	{ "sequence_numbers", sequence_numbers },
	{ 0, 0 },
};
