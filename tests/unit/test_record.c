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
	const char *want = "@BM 1 7 plat vendor=EDK%20II%7C100%25 n=42 d=-3 base=0xfed00000 ok=1 |";

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

/* A sink that collects lines and decodes samples records back. */
static uint64_t decoded[5000];
static size_t ndecoded, nlines;
static int lines_ok = 1;

static void collect(const char *line, unsigned len)
{
	const char *v = strstr(line, " v=");
	const char *n = strstr(line, " n=");
	size_t count = 0;

	nlines++;
	if (!trailer_ok(line, len) || len >= REC_MAX_LINE)
		lines_ok = 0;
	if (!v)
		return;
	v += 3;
	while (*v && *v != ' ') {
		char *end;
		uint64_t x = strtoull(v, &end, 10), k = 1;

		if (*end == '*')
			k = strtoull(end + 1, &end, 10);
		while (k--) {
			decoded[ndecoded++] = x;
			count++;
		}
		v = *end == ',' ? end + 1 : end;
	}
	if (!n || strtoull(n + 3, 0, 10) != count)
		lines_ok = 0;
	if (count > EMIT_SAMPLES_PER_CHUNK)
		lines_ok = 0;
}

static void samples_round_trip(void)
{
	static uint64_t v[1000];

	for (size_t i = 0; i < 1000; i++)
		v[i] = i < 300 ? 40 : (i * 2654435761u) % 100000000000ull; /* a run, then big values */
	ndecoded = nlines = 0;
	lines_ok = 1;
	emit_init(collect);
	emit_samples(3, v, 1000);
	CHECK(lines_ok);
	CHECK_EQ_U64(ndecoded, 1000);
	CHECK(memcmp(decoded, v, sizeof(v)) == 0);
	CHECK_EQ_U64(emit_count(), nlines);
}

static void samples_run_length(void)
{
	uint64_t v[10] = { 31, 31, 31, 31, 32, 7, 7, 0, 0, 0 };
	char buf[128];
	struct sbuf sb;

	sb_init(&sb, buf, sizeof(buf));
	CHECK_EQ_U64(emit_encode_values(&sb, v, 10, 96), 10);
	CHECK_STR(buf, "31*4,32,7*2,0*3");
	/* the chunk limit counts values, not run-length groups */
	sb_init(&sb, buf, sizeof(buf));
	CHECK_EQ_U64(emit_encode_values(&sb, v, 10, 3), 3);
	CHECK_STR(buf, "31*3");
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
	{ "sequence_numbers", sequence_numbers },
	{ 0, 0 },
};
