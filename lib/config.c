/* Reading "key = value" settings and comma lists (see config.h). */
#include "lib/config.h"

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/* Copy text[a..b) into dst with surrounding blanks removed (cut to cap - 1 characters). */
static void copy_trimmed(char *dst, size_t cap, const char *text, size_t a, size_t b)
{
	size_t i;

	while (a < b && is_space(text[a]))
		a++;
	while (b > a && is_space(text[b - 1]))
		b--;
	if (b - a >= cap)
		b = a + cap - 1;
	for (i = 0; a + i < b; i++)
		dst[i] = text[a + i];
	dst[i] = '\0';
}

static void origin_line(char *buf, size_t cap, const char *what, unsigned n)
{
	struct sbuf sb;

	sb_init(&sb, buf, cap);
	sb_puts(&sb, what);
	sb_u64(&sb, n);
}

void config_read_file(const struct config_reader *rd, const char *text, size_t len)
{
	size_t pos = 0;
	unsigned line = 0;

	while (pos < len) {
		size_t end = pos, eq, stop;
		char key[CONFIG_KEY_MAX], value[CONFIG_VALUE_MAX], origin[48];

		while (end < len && text[end] != '\n')
			end++;
		line++;
		stop = pos;
		while (stop < end && text[stop] != '#')
			stop++;
		for (eq = pos; eq < stop && text[eq] != '='; eq++)
			;
		copy_trimmed(key, sizeof(key), text, pos, eq);
		origin_line(origin, sizeof(origin), "file line ", line);
		if (eq < stop) {
			copy_trimmed(value, sizeof(value), text, eq + 1, stop);
			rd->pair(rd->ctx, key, value, origin);
		} else if (key[0] && rd->not_pair) {
			rd->not_pair(rd->ctx, key, origin);
		}
		pos = end + 1;
	}
}

void config_read_args(const struct config_reader *rd, const char *text, size_t len)
{
	size_t pos = 0;
	unsigned word = 0;

	while (pos < len) {
		size_t start, end, eq;
		char key[CONFIG_KEY_MAX], value[CONFIG_VALUE_MAX], origin[48];

		while (pos < len && is_space(text[pos]))
			pos++;
		if (pos >= len || !text[pos])
			break;
		start = pos;
		while (pos < len && text[pos] && !is_space(text[pos]))
			pos++;
		end = pos;
		word++;
		for (eq = start; eq < end && text[eq] != '='; eq++)
			;
		if (eq == end)
			continue; /* the program name, or a stray word */
		copy_trimmed(key, sizeof(key), text, start, eq);
		copy_trimmed(value, sizeof(value), text, eq + 1, end);
		origin_line(origin, sizeof(origin), "load option word ", word);
		rd->pair(rd->ctx, key, value, origin);
	}
}

void config_message(char *buf, size_t cap, const char *origin, const char *a, const char *b, const char *c)
{
	struct sbuf sb;

	sb_init(&sb, buf, cap);
	sb_puts(&sb, "config ");
	sb_puts(&sb, origin);
	sb_puts(&sb, ": ");
	sb_puts(&sb, a);
	sb_puts(&sb, b);
	sb_puts(&sb, c);
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
