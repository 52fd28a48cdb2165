/* Machine identity records: the serial is sent only as a SHA-256 prefix (Python's
 * hashlib.sha256(b"SN-0042").hexdigest()[:16]), never itself, and placeholders hash to "none". */
#include <string.h>

#include "bench/facts/ident.h"
#include "lib/emit.h"
#include "lib/record.h"
#include "tests/unit/test.h"

static char line[REC_MAX_LINE];

static void sink(const char *text, unsigned len)
{
	memcpy(line, text, len);
	line[len] = '\0';
}

static void serial_hash_prefix(void)
{
	char h[32];

	ident_serial_hash("SN-0042", h, sizeof(h));
	CHECK_STR(h, "769d998ed3af7486");
}

static void placeholders(void)
{
	static const char *const none[] = { "", "0", "00000000", "   ", "Not Specified", "to be filled by o.e.m.",
					    "Default string", "System Serial Number", "XXXXXXXX", "........" };
	char h[32];

	for (unsigned i = 0; i < sizeof(none) / sizeof(none[0]); i++) {
		CHECK(!ident_serial_meaningful(none[i]));
		ident_serial_hash(none[i], h, sizeof(h));
		CHECK_STR(h, "none");
	}
	CHECK(!ident_serial_meaningful(0));
	CHECK(ident_serial_meaningful("SN-0042"));
	CHECK(ident_serial_meaningful("0000001"));
}

static void record(void)
{
	const struct ident_strings s = { "Acme", "Model 9", "", "SN-0042" };

	emit_init(sink);
	facts_emit_ident("system", "smbios", &s, 0);
	CHECK(strstr(line, " plat kind=system source=smbios present=1 manufacturer=Acme product=Model%209 "
			   "version=none serial_hash=769d998ed3af7486 ") != 0);
	CHECK(strstr(line, "SN-0042") == 0);
	facts_emit_ident("board", "smbios", 0, "no SMBIOS type 2 structure");
	CHECK(strstr(line, " plat kind=board source=smbios present=0 reason=no%20SMBIOS%20type%202%20structure ") != 0);
	emit_init(0);
}

TEST_SUITE(ident) = {
	{ "serial_hash_prefix", serial_hash_prefix },
	{ "placeholders", placeholders },
	{ "record", record },
	{ 0, 0 },
};
