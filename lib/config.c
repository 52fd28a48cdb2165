/* Reading "key = value" settings and comma lists (see config.h). */
#include "lib/config.h"

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/* The span text[a..b) with surrounding blanks removed. */
static void trim(const char *text, size_t *a, size_t *b)
{
	while (*a < *b && is_space(text[*a]))
		(*a)++;
	while (*b > *a && is_space(text[*b - 1]))
		(*b)--;
}

static void copy_span(char *dst, const char *text, size_t a, size_t b)
{
	size_t i;

	for (i = 0; a + i < b; i++)
		dst[i] = text[a + i];
	dst[i] = '\0';
}

static void put_origin(struct sbuf *sb, unsigned source, uint32_t n)
{
	if (source != CONFIG_SRC_FILE && source != CONFIG_SRC_ARGS) {
		sb_puts(sb, "an earlier setting");
		return;
	}
	sb_puts(sb, source == CONFIG_SRC_FILE ? "file line " : "load option word ");
	sb_u64(sb, n);
}

static void put_shown(struct sbuf *sb, const char *text, size_t len)
{
	size_t shown = len <= CONFIG_SHOWN_MAX ? len : CONFIG_SHOWN_MAX;

	sb_putc(sb, '\'');
	for (size_t i = 0; i < shown; i++)
		sb_putc(sb, text[i]);
	sb_putc(sb, shown < len ? '.' : '\'');
	if (shown < len)
		config_format(sb, "..' (%u characters)", (uint64_t)len);
}

/* Every argument of a format is read as one 64-bit word: a single va_arg in the code. */
__attribute__((noinline)) static uint64_t next_arg(va_list *ap)
{
	return va_arg(*ap, uint64_t);
}

void config_vformat(struct sbuf *sb, const char *fmt, va_list ap)
{
	va_list args;

	va_copy(args, ap);
	for (; *fmt; fmt++) {
		uint64_t a;

		if (*fmt != '%') {
			sb_putc(sb, *fmt);
			continue;
		}
		a = next_arg(&args);
		switch (*++fmt) {
		case 's':
			sb_puts(sb, (const char *)(uintptr_t)a);
			break;
		case 'u':
			sb_u64(sb, a);
			break;
		case 'q':
			put_shown(sb, (const char *)(uintptr_t)a, next_arg(&args));
			break;
		case 'o':
			put_origin(sb, (unsigned)a, (uint32_t)next_arg(&args));
			break;
		}
	}
	va_end(args);
}

void config_format(struct sbuf *sb, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	config_vformat(sb, fmt, ap);
	va_end(ap);
}

void config_vmessage(char *buf, size_t cap, const char *origin, const char *fmt, va_list ap)
{
	struct sbuf sb;

	sb_init(&sb, buf, cap);
	config_format(&sb, "config %s: ", origin);
	config_vformat(&sb, fmt, ap);
}

static void origin_text(char *buf, size_t cap, enum config_source source, uint32_t n)
{
	struct sbuf sb;

	sb_init(&sb, buf, cap);
	put_origin(&sb, source, n);
}

/* A complaint about the text itself: "config <at>: <fmt ...>". */
static void complain(const struct config_reader *rd, const struct config_origin *at, const char *fmt, ...)
{
	char msg[CONFIG_MESSAGE_MAX];
	va_list ap;

	if (!rd->warn)
		return;
	va_start(ap, fmt);
	config_vmessage(msg, sizeof(msg), at->text, fmt, ap);
	va_end(ap);
	rd->warn(msg, rd->ctx);
}

/* Hand on the pair key = text[ka..kb), value = text[va..vb), or say why not: a key or value too
 * long to hold is never cut, the whole line (word) is ignored with a message. */
static void hand_pair(const struct config_reader *rd, const char *text, size_t ka, size_t kb, size_t va,
		      size_t vb, const struct config_origin *at)
{
	char key[CONFIG_KEY_MAX], value[CONFIG_VALUE_MAX];

	trim(text, &ka, &kb);
	trim(text, &va, &vb);
	if (kb - ka >= CONFIG_KEY_MAX) {
		complain(rd, at, "key %q too long; line ignored", text + ka, kb - ka);
		return;
	}
	copy_span(key, text, ka, kb);
	if (vb - va >= CONFIG_VALUE_MAX) {
		complain(rd, at, "value of '%s' over 255 characters (%u); line ignored", key, (uint64_t)(vb - va));
		return;
	}
	copy_span(value, text, va, vb);
	rd->pair(rd->ctx, key, value, at);
}

/* One piece, text[pos..end): a file line without its line end, or a load-option word (words
 * have no comments, hold no NUL and without '=' are skipped: the program name). */
static void read_piece(const struct config_reader *rd, const char *text, size_t pos, size_t end,
		       const struct config_origin *at, bool words)
{
	size_t stop = end, eq = end, a = pos, b, i;

	for (i = pos; i < end; i++) {
		if (!text[i]) {
			complain(rd, at, "a NUL byte (column %u); line ignored", (uint64_t)(i - pos + 1));
			return;
		}
		if (text[i] == '#' && stop == end && !words)
			stop = i;
		if (text[i] == '=' && eq == end)
			eq = i;
	}
	if (eq < stop) {
		hand_pair(rd, text, pos, eq, eq + 1, stop, at);
		return;
	}
	b = stop;
	trim(text, &a, &b);
	if (a < b && !words)
		complain(rd, at, "%q is not of the form key = value; ignored", text + a, b - a);
}

#define UTF8_BOM "\xEF\xBB\xBF"
#define UTF8_BOM_LEN 3

/* Both forms: file lines (LF, CRLF or a lone CR end one; a UTF-8 byte-order mark is skipped) or
 * load-option words (separated by blanks, ended by a NUL), numbered from 1. */
static void read_text(const struct config_reader *rd, const char *text, size_t len, bool words)
{
	char origin[CONFIG_ORIGIN_MAX];
	struct config_origin at = { .text = origin, .source = words ? CONFIG_SRC_ARGS : CONFIG_SRC_FILE };
	size_t pos = 0, end;

	if (!words && len >= UTF8_BOM_LEN && text[0] == UTF8_BOM[0] && text[1] == UTF8_BOM[1] &&
	    text[2] == UTF8_BOM[2])
		pos = UTF8_BOM_LEN;
	for (; pos < len; pos = end + 1) {
		if (words) {
			while (pos < len && is_space(text[pos]))
				pos++;
			if (pos >= len || !text[pos])
				return;
			for (end = pos; end < len && text[end] && !is_space(text[end]); end++)
				;
		} else {
			for (end = pos; end < len && text[end] != '\n' && text[end] != '\r'; end++)
				;
		}
		at.n++;
		origin_text(origin, sizeof(origin), (enum config_source)at.source, at.n);
		read_piece(rd, text, pos, end, &at, words);
		if (!words && end + 1 < len && text[end] == '\r' && text[end + 1] == '\n')
			end++; /* CRLF: one line end */
		if (words && end < len && !text[end])
			return;
	}
}

void config_read_file(const struct config_reader *rd, const char *text, size_t len)
{
	read_text(rd, text, len, false);
}

void config_read_args(const struct config_reader *rd, const char *text, size_t len)
{
	read_text(rd, text, len, true);
}

size_t config_item_len(const char *list)
{
	size_t n = 0;

	while (list[n] && list[n] != ',')
		n++;
	return n;
}

bool config_name_known(const char *const *names, const char *name, size_t len)
{
	if (!names)
		return true;
	for (const char *const *k = names; *k; k++) {
		size_t i = 0;

		while (i < len && (*k)[i] == name[i])
			i++;
		if (i == len && (*k)[i] == '\0')
			return true;
	}
	return false;
}

bool config_list_has(const char *list, const char *name)
{
	const char *const one[] = { name, 0 };

	while (*list) {
		size_t n = config_item_len(list);

		if (config_name_known(one, list, n))
			return true;
		list += n;
		if (*list == ',')
			list++;
	}
	return false;
}

int config_choice(const char *const *names, const char *value)
{
	for (int i = 0; names[i]; i++)
		if (str_eq(value, names[i]))
			return i;
	return -1;
}

bool config_parse_u64_list(const char *value, uint64_t min, uint64_t max, struct config_u64_list *out)
{
	struct config_u64_list l = { .n = 0 };
	const char *s = value;

	for (;;) {
		char item[24];
		size_t n = config_item_len(s);

		if (n == 0 || n >= sizeof(item) || l.n == CONFIG_LIST_MAX)
			return false;
		str_copy(item, s, n + 1);
		if (!parse_u64(item, &l.v[l.n]) || l.v[l.n] < min || l.v[l.n] > max)
			return false;
		for (unsigned i = 0; i < l.n; i++)
			if (l.v[i] == l.v[l.n])
				return false;
		l.n++;
		s += n;
		if (!*s)
			break;
		s++;
	}
	*out = l;
	return true;
}

void config_put_u64_list(struct sbuf *sb, const struct config_u64_list *l)
{
	if (!l->n)
		sb_puts(sb, "auto");
	for (unsigned k = 0; k < l->n; k++) {
		if (k)
			sb_putc(sb, ',');
		sb_u64(sb, l->v[k]);
	}
}
