/* Reading "key = value" settings, knowing nothing of what the keys mean: the two text forms (a
 * config file's lines with '#' comments; load options' whitespace-separated "key=value" words),
 * comma lists of names or numbers, and the message format of a complaint. The options themselves
 * (names, ranges, defaults, which probe reads which) are bench's: bench/core/options.h.
 *
 * Nothing is cut or dropped without a message naming its line (or word): a line is read whole
 * however long; a value longer than CONFIG_VALUE_MAX - 1 characters (a key longer than
 * CONFIG_KEY_MAX - 1), a line holding a NUL byte and a line without '=' are each reported and
 * ignored as a whole, and the reading goes on with the next line. The file's text: lines end with
 * LF, CRLF or a lone CR; a UTF-8 byte-order mark at the start is skipped (UTF-16 text gets the
 * NUL byte message on its lines); blanks around keys and values are removed; '#' starts a comment
 * anywhere on a line, so a value never contains '#'. */
#ifndef LIB_CONFIG_H
#define LIB_CONFIG_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/fmt.h"

#define CONFIG_VALUE_MAX 256 /* longest value, NUL included (a list of names) */
#define CONFIG_KEY_MAX 64    /* longest key, NUL included */
#define CONFIG_LIST_MAX 8    /* values in a numeric list */
#define CONFIG_FILE_NAME "baremetric.cfg"
#define CONFIG_FILE_NAME_W L"baremetric.cfg"

/* A numeric list ("0,10000,100000"): n values in the order given. */
struct config_u64_list {
	unsigned n;
	uint64_t v[CONFIG_LIST_MAX];
};

#define CONFIG_SHOWN_MAX 40   /* characters of a key, value or line quoted in a message */
#define CONFIG_ORIGIN_MAX 48  /* "load option word 4294967295", NUL included */
#define CONFIG_MESSAGE_MAX 256

typedef void (*config_warn_fn)(const char *message, void *ctx);

/* Where a setting comes from. */
enum config_source {
	CONFIG_SRC_NONE,  /* nowhere yet: the default */
	CONFIG_SRC_FILE,  /* line n of the config file */
	CONFIG_SRC_ARGS,  /* word n of the load options */
	CONFIG_SRC_OTHER, /* a caller's own origin text (tests, the defaults) */
};

struct config_origin {
	const char *text; /* "file line 3", "load option word 2": the origin of its messages */
	uint32_t n;       /* the line or word number (0 for NONE and OTHER) */
	uint8_t source;   /* enum config_source */
};

/* Where a reader hands what it finds: each pair, key and value with surrounding blanks removed and
 * NUL-terminated; and each complaint about the text itself, as a whole config_message (warn NULL:
 * the complaints are dropped). */
struct config_reader {
	void (*pair)(void *ctx, const char *key, const char *value, const struct config_origin *at);
	config_warn_fn warn;
	void *ctx;
};

/* A config file's text (need not be NUL-terminated): "key = value" lines, '#' to the end of a
 * line is a comment. */
void config_read_file(const struct config_reader *rd, const char *text, size_t len);
/* Load options: whitespace-separated words; words without '=' (the program name) are skipped. */
void config_read_args(const struct config_reader *rd, const char *text, size_t len);

/* Append fmt to sb, one message's text. Every argument is read as a 64-bit word: pass pointers,
 * size_t or uint64_t only. %s a string, %u a uint64_t, %q a text quoted (const char *, size_t):
 * whole ('abc') up to CONFIG_SHOWN_MAX characters, else its start and its length
 * ('timer,spin,...' (5000 characters)), %o an origin (uint64_t enum config_source, uint64_t
 * number): "file line 3", "load option word 2", else "an earlier setting". */
void config_vformat(struct sbuf *sb, const char *fmt, va_list ap);
void config_format(struct sbuf *sb, const char *fmt, ...);
/* "config <origin>: <fmt ...>" into buf: the one shape of every complaint. */
void config_vmessage(char *buf, size_t cap, const char *origin, const char *fmt, va_list ap);

/* Length of the first item of a comma list (up to the comma or the end). */
size_t config_item_len(const char *list);
/* Is `name` in the comma-separated list `list`? */
bool config_list_has(const char *list, const char *name);
/* Is name[0..len) one of the NULL-terminated `names`? (NULL names: every name is.) */
bool config_name_known(const char *const *names, const char *name, size_t len);
/* Index of `value` in the NULL-terminated `names`, or -1. */
int config_choice(const char *const *names, const char *value);
/* "v1,v2,...": 1..CONFIG_LIST_MAX distinct values in [min, max]; all or nothing (false: *out kept). */
bool config_parse_u64_list(const char *value, uint64_t min, uint64_t max, struct config_u64_list *out);
/* The list as the parser reads it; the empty list as "auto". */
void config_put_u64_list(struct sbuf *sb, const struct config_u64_list *l);

#endif
