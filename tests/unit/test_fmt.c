/* String builder, number formatting and parsing. */
#include "lib/fmt.h"
#include "tests/unit/test.h"

static void numbers(void)
{
	char buf[64];
	struct sbuf sb;

	sb_init(&sb, buf, sizeof(buf));
	sb_u64(&sb, 0);
	sb_putc(&sb, ' ');
	sb_u64(&sb, UINT64_MAX);
	sb_putc(&sb, ' ');
	sb_i64(&sb, -42);
	sb_putc(&sb, ' ');
	sb_hex(&sb, 0x3F8);
	sb_putc(&sb, ' ');
	sb_fixed(&sb, 2445123, 3);
	sb_putc(&sb, ' ');
	sb_fixed(&sb, 5, 2);
	CHECK_STR(buf, "0 18446744073709551615 -42 0x3f8 2445.123 0.05");
	CHECK(!sb.overflow);
}

static void overflow_is_bounded(void)
{
	char buf[8];
	struct sbuf sb;

	memset(buf, 'x', sizeof(buf));
	sb_init(&sb, buf, 6);
	sb_puts(&sb, "abcdefgh");
	CHECK_STR(buf, "abcde");
	CHECK(sb.overflow);
	CHECK(buf[6] == 'x' && buf[7] == 'x');
}

static void parsing(void)
{
	uint64_t v = 7;

	CHECK(parse_u64("115200", &v) && v == 115200);
	CHECK(parse_u64("0x3f8", &v) && v == 0x3F8);
	CHECK(parse_u64("18446744073709551615", &v) && v == UINT64_MAX);
	v = 7;
	CHECK(!parse_u64("18446744073709551616", &v) && v == 7);
	CHECK(!parse_u64("", &v));
	CHECK(!parse_u64("0x", &v));
	CHECK(!parse_u64("12a", &v));
	CHECK(!parse_u64("-1", &v));
	CHECK(!parse_u64(" 1", &v));
}

static void strings(void)
{
	char buf[4];

	CHECK(str_eq("abc", "abc"));
	CHECK(!str_eq("abc", "abcd"));
	CHECK(str_starts("io:0x3f8", "io:"));
	CHECK(!str_starts("io", "io:"));
	CHECK_EQ_U64(str_len("hello"), 5);
	str_copy(buf, "hello", sizeof(buf));
	CHECK_STR(buf, "hel");
}

TEST_SUITE(fmt) = {
	{ "numbers", numbers }, { "overflow_is_bounded", overflow_is_bounded },
	{ "parsing", parsing }, { "strings", strings }, { 0, 0 },
};
