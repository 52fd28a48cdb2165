/* The `plat kind=system` and `plat kind=board` records: who made the machine and its board
 * (SMBIOS types 1 and 2 on bare metal, /sys/class/dmi/id hosted), so that the results store can
 * tell two machines of one CPU model apart. The serial number is never sent: only a SHA-256
 * prefix of it, and nothing for the placeholders vendors leave in the field. */
#ifndef BENCH_FACTS_IDENT_H
#define BENCH_FACTS_IDENT_H

#include <stdbool.h>
#include <stddef.h>

#define IDENT_SERIAL_HASH_BYTES 8 /* 16 hex digits: ample to tell a lab's machines apart */

struct ident_strings {
	const char *manufacturer, *product, *version, *serial; /* "" or NULL when unknown */
};

/* False for an empty serial, one of blanks or zeros, or a known placeholder ("Not Specified",
 * "To Be Filled By O.E.M.", "Default string", ...): those identify no machine. */
bool ident_serial_meaningful(const char *serial);

/* "none", or the first IDENT_SERIAL_HASH_BYTES of SHA-256(serial) in lower-case hex. */
void ident_serial_hash(const char *serial, char *out, size_t cap);

/* One record: kind ("system" or "board"), source ("smbios", "dmi_sysfs"), the strings ("none"
 * when empty) and serial_hash; with s NULL a record saying it is absent and why. */
void facts_emit_ident(const char *kind, const char *source, const struct ident_strings *s, const char *absent_why);

#endif
