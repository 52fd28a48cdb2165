/* Machine identity records (see ident.h). */
#include "bench/facts/ident.h"

#include "lib/emit.h"
#include "lib/fmt.h"
#include "lib/sha256.h"

/* Seen in SMBIOS serial fields of boards and systems that were never given one (dmidecode's and
 * fwupd's lists of the same kind); compared without case. */
static const char *const placeholders[] = {
	"Not Specified", "Not Applicable", "N/A", "None", "To Be Filled By O.E.M.", "To be filled by O.E.M.",
	"Default string", "System Serial Number", "Base Board Serial Number", "Chassis Serial Number",
	"Type2 - Board Serial Number", "SerialNumber", "0123456789", "123456789", "Unknown", "INVALID",
};

static char lower(char c)
{
	return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

static bool same_nocase(const char *a, const char *b)
{
	while (*a && lower(*a) == lower(*b)) {
		a++;
		b++;
	}
	return *a == *b;
}

bool ident_serial_meaningful(const char *serial)
{
	bool other = false;

	if (!serial)
		return false;
	for (const char *p = serial; *p; p++)
		other |= *p != ' ' && *p != '0' && *p != '.' && *p != '-' && *p != 'x' && *p != 'X';
	if (!other)
		return false; /* "", "0", "00000000", "........", "XXXXXXXX" */
	for (size_t i = 0; i < sizeof(placeholders) / sizeof(placeholders[0]); i++)
		if (same_nocase(serial, placeholders[i]))
			return false;
	return true;
}

void ident_serial_hash(const char *serial, char *out, size_t cap)
{
	static const char digits[] = "0123456789abcdef";
	uint8_t d[SHA256_DIGEST_LEN];
	struct sbuf sb;

	sb_init(&sb, out, cap);
	if (!ident_serial_meaningful(serial)) {
		sb_puts(&sb, "none");
		return;
	}
	sha256(serial, str_len(serial), d);
	for (unsigned i = 0; i < IDENT_SERIAL_HASH_BYTES; i++) {
		sb_putc(&sb, digits[d[i] >> 4]);
		sb_putc(&sb, digits[d[i] & 0xF]);
	}
}

static void rec_text(struct record *r, const char *key, const char *v)
{
	rec_str(r, key, v && v[0] ? v : "none");
}

void facts_emit_ident(const char *kind, const char *source, const struct ident_strings *s, const char *absent_why)
{
	struct record *r = emit_start("plat");
	char hash[2 * IDENT_SERIAL_HASH_BYTES + 1];

	rec_str(r, "kind", kind);
	rec_str(r, "source", source);
	rec_bool(r, "present", s != 0);
	if (!s) {
		rec_str(r, "reason", absent_why ? absent_why : "not described");
		emit_finish();
		return;
	}
	rec_text(r, "manufacturer", s->manufacturer);
	rec_text(r, "product", s->product);
	rec_text(r, "version", s->version);
	ident_serial_hash(s->serial, hash, sizeof(hash));
	rec_str(r, "serial_hash", hash);
	emit_finish();
}
