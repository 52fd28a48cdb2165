/* Reading "key = value" settings, knowing nothing of what the keys mean: the two text forms (a
 * config file's lines with '#' comments; load options' whitespace-separated "key=value" words),
 * comma lists of names or numbers, and the message format of a complaint. The options themselves
 * (names, ranges, defaults, which probe reads which) are bench's: bench/core/options.h. */
#ifndef LIB_CONFIG_H
#define LIB_CONFIG_H

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

typedef void (*config_warn_fn)(const char *message, void *ctx);

/* Where a reader hands what it finds. `origin` says where in the text ("file line 3",
 * "load option word 2"); both keys and values arrive with surrounding blanks removed. */
struct config_reader {
	void (*pair)(void *ctx, const char *key, const char *value, const char *origin);
	/* A file line with text but no '=' (NULL: ignore it). */
	void (*not_pair)(void *ctx, const char *text, const char *origin);
	void *ctx;
};

/* A config file's text (need not be NUL-terminated): "key = value" lines, '#' to the end of a
 * line is a comment. */
void config_read_file(const struct config_reader *rd, const char *text, size_t len);
/* Load options: whitespace-separated words; words without '=' (the program name) are skipped. */
void config_read_args(const struct config_reader *rd, const char *text, size_t len);

/* "config <origin>: <a><b><c>" into buf: the one shape of every complaint. */
void config_message(char *buf, size_t cap, const char *origin, const char *a, const char *b, const char *c);

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
