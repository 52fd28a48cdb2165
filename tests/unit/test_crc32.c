/* CRC-32 against the standard check value and zlib's results. */
#include "lib/crc32.h"
#include "tests/unit/test.h"

static void check_value(void)
{
	CHECK_EQ_U64(crc32_update(0, "123456789", 9), 0xCBF43926u); /* the CRC-32 check value */
	CHECK_EQ_U64(crc32_update(0, "", 0), 0);
	/* zlib.crc32(b"@BM 1 0 begin") */
	CHECK_EQ_U64(crc32_update(0, "@BM 1 0 begin", 13), 0xEF74DDD5u);
}

static void incremental(void)
{
	uint32_t c = crc32_update(0, "1234", 4);

	CHECK_EQ_U64(crc32_update(c, "56789", 5), 0xCBF43926u);
}

TEST_SUITE(crc32) = { { "check_value", check_value }, { "incremental", incremental }, { 0, 0 } };
