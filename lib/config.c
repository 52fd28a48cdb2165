/* Run options (see config.h). Options are described by a table so that parsing, range checks,
 * messages and the cfg record all come from one place. */
#include "lib/config.h"

#include "lib/fmt.h"

enum opt_type { OPT_U64, OPT_BOOL, OPT_PROBES, OPT_SERIAL, OPT_SHUTDOWN, OPT_KERNELS, OPT_EVENTS,
		OPT_APIC_MODE, OPT_U64_LIST, OPT_U64_LIST_AUTO, OPT_PROFILE, OPT_PROF_EVENT,
		OPT_PROF_SOURCE };

struct option_desc {
	const char *key;
	enum opt_type type;
	size_t offset; /* of the field in struct config (OPT_U64, OPT_BOOL, OPT_U64_LIST) */
	uint64_t min, max; /* of a value (of each value of a list) */
	const char *help;
};

#define FIELD(f) __builtin_offsetof(struct config, f)

static const struct option_desc options[] = {
	{ "probes", OPT_PROBES, 0, 0, 0, "comma-separated probe names" },
	{ "samples", OPT_U64, FIELD(samples), 1, 100000, "integer 1..100000" },
	{ "timer_samples", OPT_U64, FIELD(timer_samples), 1, 1000000, "integer 1..1000000" },
	{ "target_ns", OPT_U64, FIELD(target_ns), 0, 10000000000ull, "nanoseconds 0..10^10 (0 = auto)" },
	{ "tsc_cal_ms", OPT_U64, FIELD(tsc_cal_ms), 10, 5000, "milliseconds 10..5000" },
	{ "tsc_cal_windows", OPT_U64, FIELD(tsc_cal_windows), 1, 32, "integer 1..32" },
	{ "serial", OPT_SERIAL, 0, 0, 0, "auto, none, io:PORT or mmio:ADDRESS" },
	{ "serial_baud", OPT_U64, FIELD(serial_baud), 300, 115200, "baud 300..115200" },
	{ "shutdown", OPT_SHUTDOWN, 0, 0, 0, "auto, debug-exit, acpi, reset or halt" },
	{ "debug_exit_port", OPT_U64, FIELD(debug_exit_port), 1, 0xFFFF, "I/O port 0x1..0xffff" },
	{ "hold_s", OPT_U64, FIELD(hold_s), 0, 3600, "seconds 0..3600" },
	{ "wait_key", OPT_BOOL, FIELD(wait_key), 0, 1, "0 or 1" },
	{ "arena_mb", OPT_U64, FIELD(arena_mb), 1, 4096, "MiB 1..4096" },
	{ "mem_min_kb", OPT_U64, FIELD(mem_min_kb), 4, 1048576, "KiB 4..1048576" },
	{ "mem_max_mb", OPT_U64, FIELD(mem_max_mb), 0, 65536, "MiB 0..65536 (0 = auto)" },
	{ "mem_kernels", OPT_KERNELS, 0, 0, 0, "all, or a comma list of bandwidth kernels" },
	{ "seed", OPT_U64, FIELD(seed), 0, UINT64_MAX, "an unsigned integer" },
	{ "smp", OPT_BOOL, FIELD(smp), 0, 1, "0 or 1" },
	{ "apic_mode", OPT_APIC_MODE, FIELD(apic_mode), 0, 0, "auto, xapic or x2apic" },
	{ "pmu_events", OPT_EVENTS, 0, 0, 0, "auto, none, or a comma list of counter events" },
	{ "irq_samples", OPT_U64, FIELD(irq_samples), 1, 1000000, "integer 1..1000000" },
	{ "irq_set_ms", OPT_U64, FIELD(irq_set_ms), 1, 600000, "milliseconds 1..600000" },
	{ "irq_delay_us", OPT_U64, FIELD(irq_delay_us), 1, 1000000, "microseconds 1..1000000" },
	{ "irq_timeout_ms", OPT_U64, FIELD(irq_timeout_ms), 1, 60000, "milliseconds 1..60000" },
	{ "irq_disp_samples", OPT_U64, FIELD(irq_disp_samples), 1, 10000, "integer 1..10000" },
	{ "irq_disp_ms", OPT_U64, FIELD(irq_disp_ms), 1, 10000, "milliseconds 1..10000" },
	{ "irq_disp_period_us", OPT_U64, FIELD(irq_disp_period_us), 10, 1000000, "microseconds 10..1000000" },
	{ "irq_fp_samples", OPT_U64, FIELD(irq_fp_samples), 1, 100000, "integer 1..100000" },
	{ "irq_fp_ms", OPT_U64, FIELD(irq_fp_ms), 1, 600000, "milliseconds 1..600000" },
	{ "irq_fp_k", OPT_U64_LIST_AUTO, FIELD(irq_fp_k), 1, CONFIG_FP_K_MAX,
	  "auto, or a comma list of at most 8 distinct integers 1..262144" },
	{ "irq_fp_inst", OPT_BOOL, FIELD(irq_fp_inst), 0, 1, "0 or 1" },
	{ "irq_disp_work", OPT_U64_LIST, FIELD(irq_disp_work), 0, 1000000000,
	  "a comma list of 1..8 distinct cycle counts 0..10^9" },
	{ "noise_ms", OPT_U64, FIELD(noise_ms), 1, 600000, "milliseconds 1..600000" },
	{ "noise_threshold_ns", OPT_U64, FIELD(noise_threshold_ns), 0, 1000000000, "nanoseconds 0..10^9 (0 = 10x the median loop)" },
	{ "profile", OPT_PROFILE, 0, 0, 0, "none, all, or a comma list of probes" },
	{ "profile_event", OPT_PROF_EVENT, 0, 0, 0, "one counter event name" },
	{ "profile_period", OPT_U64, FIELD(profile_period), 0, 1000000000000ull,
	  "events or nanoseconds 0..10^12 (0 = the source's default)" },
	{ "profile_source", OPT_PROF_SOURCE, 0, 0, 0, "auto, pmu or timer" },
};

const char *const config_kernel_names[] = {
	"read", "write", "copy", "write_nt", "copy_nt", "memset", "memcpy", "rep_stosb", "rep_movsb", 0,
};

const char *const config_pmu_event_names[] = {
	"cycles", "instructions", "ref_cycles", "llc_references", "llc_misses", "branches", "branch_misses",
	"l1d_misses", "l1i_misses", "l2_misses", "dtlb_misses", "itlb_misses", "stall_cycles",
	"l1d_demand_misses", "l2_demand_misses",
	"aperf", "mperf", "energy_pkg", "energy_dram", "energy_core", 0,
};

#define NUM_OPTIONS (sizeof(options) / sizeof(options[0]))

static const char *const shutdown_names[] = { "auto", "debug-exit", "acpi", "reset", "halt" };
static const char *const apic_mode_names[] = { "auto", "xapic", "x2apic" }; /* enum apic_mode */
static const char *const profile_source_names[] = { "auto", "pmu", "timer" }; /* enum profile_source_opt */

void config_defaults(struct config *cfg)
{
	str_copy(cfg->probes, "timer,spin,pmu_check,pmu_cost,membw,latency,cachefill,smp_hello,membw_mc,irq_latency,irq_exception,irq_displace,irq_footprint,noise", sizeof(cfg->probes));
	cfg->samples = 16;
	cfg->timer_samples = 4096;
	cfg->target_ns = 0;
	cfg->tsc_cal_ms = 100;
	cfg->tsc_cal_windows = 3;
	cfg->serial_kind = SERIAL_AUTO;
	cfg->serial_base = 0;
	cfg->serial_baud = 115200;
	cfg->shutdown = SHUTDOWN_AUTO;
	cfg->debug_exit_port = 0xF4;
	cfg->hold_s = 0;
	cfg->wait_key = false;
	cfg->arena_mb = 640;
	cfg->mem_min_kb = 4;
	cfg->mem_max_mb = 0;
	str_copy(cfg->mem_kernels, "all", sizeof(cfg->mem_kernels));
	cfg->seed = 1;
	cfg->smp = true;
	cfg->apic_mode = APIC_MODE_AUTO;
	str_copy(cfg->pmu_events, "auto", sizeof(cfg->pmu_events));
	cfg->irq_samples = 10000;
	cfg->irq_set_ms = 1000;
	cfg->irq_delay_us = 50;
	cfg->irq_timeout_ms = 50;
	cfg->irq_disp_samples = 16;
	cfg->irq_disp_ms = 20;
	cfg->irq_disp_period_us = 200;
	cfg->irq_fp_samples = 64;
	cfg->irq_fp_ms = 3000;
	cfg->irq_fp_k = (struct config_u64_list){ 0, { 0 } }; /* auto */
	cfg->irq_fp_inst = false;
	cfg->irq_disp_work = (struct config_u64_list){ 4, { 0, 10000, 100000, 4000000 } };
	cfg->noise_ms = 5000;
	cfg->noise_threshold_ns = 0;
	cfg->profile[0] = 0;
	str_copy(cfg->profile_event, "cycles", sizeof(cfg->profile_event));
	cfg->profile_period = 0;
	cfg->profile_source = PROFILE_SOURCE_AUTO;
}

bool config_list_has(const char *list, const char *name)
{
	size_t n = str_len(name);

	while (*list) {
		size_t i = 0;

		while (list[i] && list[i] != ',')
			i++;
		if (i == n) {
			size_t k = 0;

			while (k < n && list[k] == name[k])
				k++;
			if (k == n)
				return true;
		}
		list += i;
		if (*list == ',')
			list++;
	}
	return false;
}

static bool name_known(const char *const *known, const char *name, size_t len)
{
	const char *const *k;

	if (!known)
		return true;
	for (k = known; *k; k++) {
		size_t i = 0;

		while (i < len && (*k)[i] == name[i])
			i++;
		if (i == len && (*k)[i] == '\0')
			return true;
	}
	return false;
}

static void warn(struct config_parser *p, const char *origin, const char *a, const char *b,
		 const char *c)
{
	char buf[256];
	struct sbuf sb;

	sb_init(&sb, buf, sizeof(buf));
	sb_puts(&sb, "config ");
	sb_puts(&sb, origin);
	sb_puts(&sb, ": ");
	sb_puts(&sb, a);
	sb_puts(&sb, b);
	sb_puts(&sb, c);
	p->warnings++;
	if (p->warn)
		p->warn(buf, p->warn_ctx);
}

/* Probe and kernel lists (keep_known): keep the known names and report each unknown one — a typo
 * in one probe name must not throw the list away (the default suite would then run for minutes);
 * a list with no known name at all is refused and the default kept. Counter event lists
 * (!keep_known) are refused as a whole on one bad name: they define which counters are compared. */
static bool set_list(struct config_parser *p, const char *key, const char *value, const char *origin,
		     const char *const *known, char *dst, bool keep_known)
{
	char kept[CONFIG_PROBES_MAX];
	struct sbuf out;
	const char *s = value;
	unsigned good = 0;

	if (str_len(value) >= CONFIG_PROBES_MAX) {
		warn(p, origin, "list too long for '", key, "'");
		return false;
	}
	sb_init(&out, kept, sizeof(kept));
	while (*s) {
		size_t n = 0;

		while (s[n] && s[n] != ',')
			n++;
		if (n == 0 || !name_known(known, s, n)) {
			char name[64], where[48];
			struct sbuf sb;

			str_copy(name, s, n + 1 < sizeof(name) ? n + 1 : sizeof(name));
			sb_init(&sb, where, sizeof(where));
			sb_puts(&sb, "' in '");
			sb_puts(&sb, key);
			sb_puts(&sb, keep_known ? "' skipped" : "'");
			warn(p, origin, known == p->known_probes ? "unknown probe '" : "unknown name '", name, where);
			if (!keep_known)
				return false;
		} else {
			if (good++)
				sb_putc(&out, ',');
			for (size_t i = 0; i < n; i++)
				sb_putc(&out, s[i]);
		}
		s += n;
		if (*s == ',')
			s++;
	}
	if (!good) {
		warn(p, origin, "no known name in '", key, "': default kept");
		return false;
	}
	str_copy(dst, kept, CONFIG_PROBES_MAX);
	return true;
}

/* "v1,v2,...": 1..CONFIG_LIST_MAX distinct values in [min, max]; all or nothing. */
static bool set_u64_list(const struct option_desc *o, const char *value, struct config_u64_list *dst)
{
	struct config_u64_list l = { 0, { 0 } };
	const char *s = value;

	for (;;) {
		char item[24];
		size_t n = 0;

		while (s[n] && s[n] != ',')
			n++;
		if (n == 0 || n >= sizeof(item) || l.n == CONFIG_LIST_MAX)
			return false;
		str_copy(item, s, n + 1);
		if (!parse_u64(item, &l.v[l.n]) || l.v[l.n] < o->min || l.v[l.n] > o->max)
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
	*dst = l;
	return true;
}

static bool set_serial(struct config *cfg, const char *v)
{
	uint64_t base;

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

static bool set_shutdown(struct config *cfg, const char *v)
{
	unsigned i;

	for (i = 0; i < sizeof(shutdown_names) / sizeof(shutdown_names[0]); i++) {
		if (str_eq(v, shutdown_names[i])) {
			cfg->shutdown = (enum shutdown_mode)i;
			return true;
		}
	}
	return false;
}

bool config_set(struct config_parser *p, const char *key, const char *value, const char *origin)
{
	const struct option_desc *o = 0;
	unsigned i;
	uint64_t v;
	bool ok = false;

	for (i = 0; i < NUM_OPTIONS; i++)
		if (str_eq(options[i].key, key))
			o = &options[i];
	if (!o) {
		warn(p, origin, "unknown key '", key, "' ignored");
		return false;
	}
	switch (o->type) {
	case OPT_U64:
	case OPT_BOOL:
		ok = parse_u64(value, &v) && v >= o->min && v <= o->max;
		if (ok && o->type == OPT_U64)
			*(uint64_t *)((char *)p->cfg + o->offset) = v;
		else if (ok)
			*(bool *)((char *)p->cfg + o->offset) = v != 0;
		break;
	case OPT_PROBES:
		return set_list(p, key, value, origin, p->known_probes, p->cfg->probes, true);
	case OPT_KERNELS:
		if (str_eq(value, "all")) {
			str_copy(p->cfg->mem_kernels, value, sizeof(p->cfg->mem_kernels));
			return true;
		}
		return set_list(p, key, value, origin, config_kernel_names, p->cfg->mem_kernels, true);
	case OPT_EVENTS:
		if (str_eq(value, "auto") || str_eq(value, "none")) {
			str_copy(p->cfg->pmu_events, value, sizeof(p->cfg->pmu_events));
			return true;
		}
		return set_list(p, key, value, origin, config_pmu_event_names, p->cfg->pmu_events, false);
	case OPT_U64_LIST:
	case OPT_U64_LIST_AUTO: { /* "auto": the empty list, the probe chooses */
		struct config_u64_list *l = (struct config_u64_list *)((char *)p->cfg + o->offset);

		ok = o->type == OPT_U64_LIST_AUTO && str_eq(value, "auto");
		if (ok)
			l->n = 0;
		else
			ok = set_u64_list(o, value, l);
		break;
	}
	case OPT_SERIAL:
		ok = set_serial(p->cfg, value);
		break;
	case OPT_SHUTDOWN:
		ok = set_shutdown(p->cfg, value);
		break;
	case OPT_APIC_MODE:
		for (i = 0; i < sizeof(apic_mode_names) / sizeof(apic_mode_names[0]) && !ok; i++)
			if ((ok = str_eq(value, apic_mode_names[i])))
				p->cfg->apic_mode = (enum apic_mode)i;
		break;
	case OPT_PROFILE:
		if (str_eq(value, "none") || str_eq(value, "all")) {
			str_copy(p->cfg->profile, str_eq(value, "all") ? "all" : "", sizeof(p->cfg->profile));
			return true;
		}
		return set_list(p, key, value, origin, p->known_probes, p->cfg->profile, true);
	case OPT_PROF_EVENT:
		ok = name_known(config_pmu_event_names, value, str_len(value));
		if (ok)
			str_copy(p->cfg->profile_event, value, sizeof(p->cfg->profile_event));
		break;
	case OPT_PROF_SOURCE:
		for (i = 0; i < sizeof(profile_source_names) / sizeof(profile_source_names[0]) && !ok; i++)
			if ((ok = str_eq(value, profile_source_names[i])))
				p->cfg->profile_source = (enum profile_source_opt)i;
		break;
	}
	if (!ok) {
		char buf[160];
		struct sbuf sb;

		sb_init(&sb, buf, sizeof(buf));
		sb_puts(&sb, "bad value '");
		sb_puts(&sb, value);
		sb_puts(&sb, "' for '");
		sb_puts(&sb, key);
		sb_puts(&sb, "' (want ");
		sb_puts(&sb, o->help);
		warn(p, origin, buf, "), keeping the default", "");
	}
	return ok;
}

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/* Copy text[a..b) into dst with surrounding blanks removed. */
static void copy_trimmed(char *dst, size_t cap, const char *text, size_t a, size_t b)
{
	while (a < b && is_space(text[a]))
		a++;
	while (b > a && is_space(text[b - 1]))
		b--;
	if (b - a >= cap)
		b = a + cap - 1;
	str_copy(dst, "", cap);
	for (size_t i = 0; a + i < b; i++) {
		dst[i] = text[a + i];
		dst[i + 1] = '\0';
	}
}

static void origin_line(char *buf, size_t cap, const char *what, unsigned n)
{
	struct sbuf sb;

	sb_init(&sb, buf, cap);
	sb_puts(&sb, what);
	sb_u64(&sb, n);
}

void config_parse_file(struct config_parser *p, const char *text, size_t len)
{
	size_t pos = 0;
	unsigned line = 0;

	while (pos < len) {
		size_t end = pos, eq, stop;
		char key[64], value[CONFIG_PROBES_MAX], origin[48];

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
			config_set(p, key, value, origin);
		} else if (key[0]) {
			warn(p, origin, "'", key, "' is not of the form key = value; ignored");
		}
		pos = end + 1;
	}
}

void config_parse_args(struct config_parser *p, const char *text, size_t len)
{
	size_t pos = 0;
	unsigned word = 0;

	while (pos < len) {
		size_t start, end, eq;
		char key[64], value[CONFIG_PROBES_MAX], origin[48];

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
		config_set(p, key, value, origin);
	}
}

void config_to_record(const struct config *cfg, struct record *r)
{
	char buf[32];
	struct sbuf sb;
	unsigned i;

	for (i = 0; i < NUM_OPTIONS; i++) {
		const struct option_desc *o = &options[i];

		switch (o->type) {
		case OPT_U64:
			rec_u64(r, o->key, *(const uint64_t *)((const char *)cfg + o->offset));
			break;
		case OPT_BOOL:
			rec_bool(r, o->key, *(const bool *)((const char *)cfg + o->offset));
			break;
		case OPT_PROBES:
			rec_str(r, o->key, cfg->probes);
			break;
		case OPT_KERNELS:
			rec_str(r, o->key, cfg->mem_kernels);
			break;
		case OPT_EVENTS:
			rec_str(r, o->key, cfg->pmu_events);
			break;
		case OPT_U64_LIST:
		case OPT_U64_LIST_AUTO: {
			const struct config_u64_list *l = (const void *)((const char *)cfg + o->offset);
			char text[CONFIG_LIST_MAX * 21];

			sb_init(&sb, text, sizeof(text));
			if (!l->n)
				sb_puts(&sb, "auto");
			for (unsigned k = 0; k < l->n; k++) {
				if (k)
					sb_putc(&sb, ',');
				sb_u64(&sb, l->v[k]);
			}
			rec_str(r, o->key, text);
			break;
		}
		case OPT_SERIAL:
			sb_init(&sb, buf, sizeof(buf));
			if (cfg->serial_kind == SERIAL_AUTO || cfg->serial_kind == SERIAL_NONE) {
				sb_puts(&sb, cfg->serial_kind == SERIAL_AUTO ? "auto" : "none");
			} else {
				sb_puts(&sb, cfg->serial_kind == SERIAL_IO ? "io:" : "mmio:");
				sb_hex(&sb, cfg->serial_base);
			}
			rec_str(r, o->key, buf);
			break;
		case OPT_SHUTDOWN:
			rec_str(r, o->key, shutdown_names[cfg->shutdown]);
			break;
		case OPT_APIC_MODE:
			rec_str(r, o->key, apic_mode_names[cfg->apic_mode]);
			break;
		case OPT_PROFILE:
			rec_str(r, o->key, cfg->profile[0] ? cfg->profile : "none");
			break;
		case OPT_PROF_EVENT:
			rec_str(r, o->key, cfg->profile_event);
			break;
		case OPT_PROF_SOURCE:
			rec_str(r, o->key, profile_source_names[cfg->profile_source]);
			break;
		}
	}
}
