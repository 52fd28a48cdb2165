/* The run options (see options.h): one table built from options.def, so that parsing, range
 * checks, messages, defaults and the `cfg` record all come from one description. Each kind of
 * value has one setter and one writer below; config_set finds the option and calls its setter. */
#include "bench/core/options.h"

#include "bench/core/registry_names.h"
#include "lib/fmt.h"

enum option_type { OPT_U64, OPT_BOOL, OPT_U64_LIST, OPT_U64_LIST_AUTO, OPT_CHOICE, OPT_SERIAL, OPT_PROBES,
		   OPT_PROFILE, OPT_NAMES_OR_ALL, OPT_EVENTS, OPT_NAME };

/* Packed small (offset, size and type in 5 bytes; the key, default and accepted values one string
 * behind one pointer): the table is in the .efi (docs/hacking.md: size). */
struct option_desc {
	const char *key;          /* "key\0default\0accepts": option_default(), option_accepts() */
	const char *const *names; /* the names a value may use, NULL-terminated */
	uint64_t min, max;        /* of a number (of each number of a list) */
	uint16_t offset, size;    /* of the field in struct config */
	uint8_t type;             /* enum option_type */
};

_Static_assert(sizeof(struct config) <= UINT16_MAX, "option offsets are 16-bit");

const char *const config_kernel_names[] = {
	"read", "write", "copy", "write_nt", "copy_nt", "memset", "memcpy", "rep_stosb", "rep_movsb", 0,
};

const char *const config_pmu_event_names[] = {
	"cycles", "instructions", "ref_cycles", "llc_references", "llc_misses", "branches", "branch_misses",
	"l1d_misses", "l1i_misses", "l2_misses", "dtlb_misses", "itlb_misses", "stall_cycles",
	"l1d_demand_misses", "l2_demand_misses",
	"aperf", "mperf", "energy_pkg", "energy_dram", "energy_core", 0,
};

static const char *const shutdown_names[] = { "auto", "debug-exit", "acpi", "reset", "halt", 0 }; /* enum shutdown_mode */
static const char *const save_names[] = { "auto", "usb", "off", 0 }; /* enum save_mode */
static const char *const after_names[] = { "poweroff", "reboot", "boot-os", "hold", 0 };     /* enum after_mode */
static const char *const apic_mode_names[] = { "auto", "xapic", "x2apic", 0 };                   /* enum apic_mode */
static const char *const el2_mode_names[] = { "leave", "stay", 0 };                              /* enum el2_mode */
static const char *const profile_source_names[] = { "auto", "pmu", "timer", 0 };                 /* enum profile_source_opt */

/* CHOICE options store the chosen name's index in an enum field. */
_Static_assert(sizeof(enum shutdown_mode) == sizeof(unsigned) && sizeof(enum apic_mode) == sizeof(unsigned) &&
		       sizeof(enum el2_mode) == sizeof(unsigned) && sizeof(enum after_mode) == sizeof(unsigned) &&
		       sizeof(enum profile_source_opt) == sizeof(unsigned),
	       "a CHOICE option's field is stored as unsigned");

/* The probe list's default is the registry's (registry_names.c): not a constant expression,
 * so the table holds "" and option_default() fills it in. */
#define PROBE_DEFAULT_LIST ""
#define OPTION(key_, type_, field_, min_, max_, names_, dflt_, accepts_, what_)                          \
	{ .key = #key_ "\0" dflt_ "\0" accepts_, .type = OPT_##type_,                                    \
	  .offset = __builtin_offsetof(struct config, field_), .size = sizeof(((struct config *)0)->field_), \
	  .min = (min_), .max = (max_), .names = (names_) },
static const struct option_desc options[] = {
#include "bench/core/options.def"
};
#undef OPTION

#define NUM_OPTIONS (sizeof(options) / sizeof(options[0]))
_Static_assert(NUM_OPTIONS <= CONFIG_OPTIONS_MAX, "struct config_parser's marks need room for every option");

/* The string after s in a "a\0b\0c" string. */
static const char *next_str(const char *s)
{
	return s + str_len(s) + 1;
}

static const char *option_default(const struct option_desc *o)
{
	const char *d = next_str(o->key);

	return *d ? d : probe_default_list;
}

static const char *option_accepts(const struct option_desc *o)
{
	return next_str(next_str(o->key));
}

static void *field(struct config *cfg, const struct option_desc *o)
{
	return (char *)cfg + o->offset;
}

static const void *field_c(const struct config *cfg, const struct option_desc *o)
{
	return (const char *)cfg + o->offset;
}

/* One message, "config <origin>: <fmt ...>" (lib/config's formats), counted and handed on. */
static void warn(struct config_parser *p, const char *origin, const char *fmt, ...)
{
	char buf[CONFIG_MESSAGE_MAX];
	va_list ap;

	va_start(ap, fmt);
	config_vmessage(buf, sizeof(buf), origin, fmt, ap);
	va_end(ap);
	p->warnings++;
	if (p->warn)
		p->warn(buf, p->warn_ctx);
}

#define KEPT_MAX 96

/* What a refused value leaves in place, the end of its message: "keeping the default", or the
 * value of the last setting that took effect, "keeping the value of file line 3". */
static const char *kept_text(char buf[KEPT_MAX], const struct config_parser *p, const struct option_desc *o)
{
	const struct config_mark *m = &p->took[o - options];
	struct sbuf sb;

	sb_init(&sb, buf, KEPT_MAX);
	config_format(&sb, m->source ? "keeping the value of %o" : "keeping the default", (uint64_t)m->source,
		      (uint64_t)m->n);
	return buf;
}

/* Warn of one unknown name of a list: "unknown probe 'x' in 'probes' skipped", or for a list
 * refused as a whole "unknown name 'x' in 'pmu_events': list refused, keeping the default auto". */
static void warn_unknown(struct config_parser *p, const struct option_desc *o, const char *origin,
			 const char *name, size_t n, bool skipped)
{
	char k[KEPT_MAX];

	warn(p, origin, skipped ? "unknown %s %q in '%s' skipped" : "unknown %s %q in '%s': list refused, %s",
	     o->names ? "name" : "probe", name, n, o->key, skipped ? "" : kept_text(k, p, o));
}

/* Name lists (keep_known): keep the known names and report each unknown one — a typo in one probe
 * name must not throw the list away (the default suite would then run for minutes); a list with
 * no known name at all is refused and the default kept. Counter event lists (!keep_known) are
 * refused as a whole on one bad name: they define which counters are compared. */
static bool set_list(struct config_parser *p, const struct option_desc *o, const char *value,
		     const char *origin, bool keep_known)
{
	const char *const *known = o->names ? o->names : p->known_probes;
	char kept[CONFIG_VALUE_MAX];
	struct sbuf out;
	unsigned good = 0;

	char k[KEPT_MAX];

	if (str_len(value) >= CONFIG_VALUE_MAX) {
		warn(p, origin, "list too long for '%s': %s", o->key, kept_text(k, p, o));
		return false;
	}
	sb_init(&out, kept, sizeof(kept));
	for (const char *s = value; *s; s += *s == ',') {
		size_t n = config_item_len(s);

		if (n == 0 || !config_name_known(known, s, n)) {
			warn_unknown(p, o, origin, s, n, keep_known);
			if (!keep_known)
				return false;
		} else {
			if (good++)
				sb_putc(&out, ',');
			for (size_t i = 0; i < n; i++)
				sb_putc(&out, s[i]);
		}
		s += n;
	}
	if (!good) {
		warn(p, origin, "no known name in '%s': %s", o->key, kept_text(k, p, o));
		return false;
	}
	str_copy(field(p->cfg, o), kept, o->size);
	return true;
}

/* Setters: true when the value took effect. Those of name lists warn themselves (per name); for
 * the others config_set states the bad value and what the option accepts. */
typedef bool (*option_setter)(struct config_parser *p, const struct option_desc *o, const char *value,
			      const char *origin);

static bool set_number(struct config_parser *p, const struct option_desc *o, const char *value, const char *origin)
{
	uint64_t v;

	(void)origin;
	if (!parse_u64(value, &v) || v < o->min || v > o->max)
		return false;
	if (o->type == OPT_BOOL)
		*(bool *)field(p->cfg, o) = v != 0;
	else
		*(uint64_t *)field(p->cfg, o) = v;
	return true;
}

static bool set_u64_list(struct config_parser *p, const struct option_desc *o, const char *value, const char *origin)
{
	struct config_u64_list *l = field(p->cfg, o);

	(void)origin;
	if (o->type == OPT_U64_LIST_AUTO && str_eq(value, "auto")) { /* the empty list: the probe chooses */
		l->n = 0;
		return true;
	}
	return config_parse_u64_list(value, o->min, o->max, l);
}

static bool set_choice(struct config_parser *p, const struct option_desc *o, const char *value, const char *origin)
{
	int i = config_choice(o->names, value);

	(void)origin;
	if (i < 0)
		return false;
	*(unsigned *)field(p->cfg, o) = (unsigned)i;
	return true;
}

static bool set_serial(struct config_parser *p, const struct option_desc *o, const char *v, const char *origin)
{
	struct config *cfg = p->cfg;
	uint64_t base;

	(void)o, (void)origin;
	if (str_eq(v, "auto") || str_eq(v, "none")) {
		cfg->serial_kind = str_eq(v, "auto") ? SERIAL_AUTO : SERIAL_NONE;
		return true;
	}
	if (str_starts(v, "io:") && parse_u64(v + 3, &base) && base > 0 && base <= 0xFFF8) {
		cfg->serial_kind = SERIAL_IO;
		cfg->serial_base = base;
		return true;
	}
	if (str_starts(v, "mmio:") && parse_u64(v + 5, &base) && base > 0) {
		cfg->serial_kind = SERIAL_MMIO;
		cfg->serial_base = base;
		return true;
	}
	return false;
}

/* Store one of an option's own words ("all", "auto", "none") as it is. */
static bool set_word(struct config_parser *p, const struct option_desc *o, const char *word)
{
	str_copy(field(p->cfg, o), word, o->size);
	return true;
}

static bool set_probes(struct config_parser *p, const struct option_desc *o, const char *value, const char *origin)
{
	return set_list(p, o, value, origin, true);
}

static bool set_profile(struct config_parser *p, const struct option_desc *o, const char *value, const char *origin)
{
	if (str_eq(value, "none"))
		return set_word(p, o, ""); /* "" means none (profile_wanted) */
	if (str_eq(value, "all"))
		return set_word(p, o, value);
	return set_list(p, o, value, origin, true);
}

static bool set_names_or_all(struct config_parser *p, const struct option_desc *o, const char *value,
			     const char *origin)
{
	if (str_eq(value, "all"))
		return set_word(p, o, value);
	return set_list(p, o, value, origin, true);
}

static bool set_events(struct config_parser *p, const struct option_desc *o, const char *value, const char *origin)
{
	if (str_eq(value, "auto") || str_eq(value, "none"))
		return set_word(p, o, value);
	return set_list(p, o, value, origin, false);
}

static bool set_name(struct config_parser *p, const struct option_desc *o, const char *value, const char *origin)
{
	(void)origin;
	if (!config_name_known(o->names, value, str_len(value)))
		return false;
	return set_word(p, o, value);
}

static const option_setter setters[] = {
	[OPT_U64] = set_number,
	[OPT_BOOL] = set_number,
	[OPT_U64_LIST] = set_u64_list,
	[OPT_U64_LIST_AUTO] = set_u64_list,
	[OPT_CHOICE] = set_choice,
	[OPT_SERIAL] = set_serial,
	[OPT_PROBES] = set_probes,
	[OPT_PROFILE] = set_profile,
	[OPT_NAMES_OR_ALL] = set_names_or_all,
	[OPT_EVENTS] = set_events,
	[OPT_NAME] = set_name,
};

/* The name-list setters state each bad name themselves. */
static bool warns_itself(enum option_type t)
{
	return t == OPT_PROBES || t == OPT_PROFILE || t == OPT_NAMES_OR_ALL || t == OPT_EVENTS;
}

static const struct option_desc *find(const char *key)
{
	for (unsigned i = 0; i < NUM_OPTIONS; i++)
		if (str_eq(options[i].key, key))
			return &options[i];
	return 0;
}

/* "timer_samples given again (first on line 3); the later value counts" */
static void warn_repeat(struct config_parser *p, const struct option_desc *o, const struct config_origin *at,
			uint32_t first)
{
	warn(p, at->text, "%s given again (first %s %u); the later value counts", o->key,
	     at->source == CONFIG_SRC_FILE ? "on line" : "in word", (uint64_t)first);
}

bool config_set_at(struct config_parser *p, const char *key, const char *value, const struct config_origin *at)
{
	const struct option_desc *o = find(key);
	struct config_mark *given, here = { .n = at->n, .source = at->source };
	bool ok, numbered = at->source == CONFIG_SRC_FILE || at->source == CONFIG_SRC_ARGS;

	if (!o) {
		warn(p, at->text, "unknown key '%s' ignored", key);
		return false;
	}
	ok = setters[o->type](p, o, value, at->text);
	if (!ok && !warns_itself(o->type)) {
		char k[KEPT_MAX];

		warn(p, at->text, "bad value %q for '%s' (want %s), %s", value, str_len(value), o->key, option_accepts(o),
		     kept_text(k, p, o));
	}
	given = &p->given[o - options];
	if (numbered && given->source == at->source) {
		if (ok) /* a refused value's message says what it keeps */
			warn_repeat(p, o, at, given->n);
	} else if (numbered) {
		*given = here;
	}
	if (ok)
		p->took[o - options] = here;
	return ok;
}

bool config_set(struct config_parser *p, const char *key, const char *value, const char *origin)
{
	const struct config_origin at = { .text = origin, .source = CONFIG_SRC_OTHER };

	return config_set_at(p, key, value, &at);
}

/* Every default goes through its option's own setter, so a default is a value a user could write.
 * No known-probe list: the registry's default probes are known by construction (the registry
 * tests check each default is accepted with the real list). */
void config_defaults(struct config *cfg)
{
	struct config_parser p = { .cfg = cfg };

	*cfg = (struct config){ .serial_kind = SERIAL_AUTO };
	for (unsigned i = 0; i < NUM_OPTIONS; i++)
		(void)config_set(&p, options[i].key, option_default(&options[i]), "default");
}

static void parsed_pair(void *ctx, const char *key, const char *value, const struct config_origin *at)
{
	(void)config_set_at(ctx, key, value, at);
}

/* A complaint of the reader about the text itself (a line too long, a NUL byte, no '='). */
static void parsed_complaint(const char *message, void *ctx)
{
	struct config_parser *p = ctx;

	p->warnings++;
	if (p->warn)
		p->warn(message, p->warn_ctx);
}

void config_parse_file(struct config_parser *p, const char *text, size_t len)
{
	const struct config_reader rd = { .pair = parsed_pair, .warn = parsed_complaint, .ctx = p };

	config_read_file(&rd, text, len);
}

void config_parse_args(struct config_parser *p, const char *text, size_t len)
{
	const struct config_reader rd = { .pair = parsed_pair, .warn = parsed_complaint, .ctx = p };

	config_read_args(&rd, text, len);
}

/* One option's value as the parser reads it (the `cfg` record's field). */
static void put_value(struct sbuf *sb, const struct config *cfg, const struct option_desc *o)
{
	const void *f = field_c(cfg, o);

	switch ((enum option_type)o->type) {
	case OPT_U64:
		sb_u64(sb, *(const uint64_t *)f);
		break;
	case OPT_BOOL:
		sb_u64(sb, *(const bool *)f);
		break;
	case OPT_U64_LIST:
	case OPT_U64_LIST_AUTO:
		config_put_u64_list(sb, f);
		break;
	case OPT_CHOICE:
		sb_puts(sb, o->names[*(const unsigned *)f]);
		break;
	case OPT_SERIAL:
		if (cfg->serial_kind == SERIAL_AUTO || cfg->serial_kind == SERIAL_NONE) {
			sb_puts(sb, cfg->serial_kind == SERIAL_AUTO ? "auto" : "none");
		} else {
			sb_puts(sb, cfg->serial_kind == SERIAL_IO ? "io:" : "mmio:");
			sb_hex(sb, cfg->serial_base);
		}
		break;
	case OPT_PROFILE:
		sb_puts(sb, *(const char *)f ? f : "none");
		break;
	case OPT_PROBES:
	case OPT_NAMES_OR_ALL:
	case OPT_EVENTS:
	case OPT_NAME:
		sb_puts(sb, f);
		break;
	}
}

void config_to_record(const struct config *cfg, struct record *r)
{
	for (unsigned i = 0; i < NUM_OPTIONS; i++) {
		const struct option_desc *o = &options[i];
		char text[CONFIG_VALUE_MAX];
		struct sbuf sb;

		if (o->type == OPT_U64) { /* numbers stay numbers in the record */
			rec_u64(r, o->key, *(const uint64_t *)field_c(cfg, o));
			continue;
		}
		if (o->type == OPT_BOOL) {
			rec_bool(r, o->key, *(const bool *)field_c(cfg, o));
			continue;
		}
		sb_init(&sb, text, sizeof(text));
		put_value(&sb, cfg, o);
		rec_str(r, o->key, text);
	}
}

unsigned config_option_count(void)
{
	return NUM_OPTIONS;
}

const char *config_option_key(unsigned i)
{
	return i < NUM_OPTIONS ? options[i].key : 0;
}

const char *config_option_default(unsigned i)
{
	return i < NUM_OPTIONS ? option_default(&options[i]) : 0;
}

bool config_option_exists(const char *key)
{
	return find(key) != 0;
}
