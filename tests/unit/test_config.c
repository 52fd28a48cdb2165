/* Option parsing: file syntax, load options; bad keys, values and lines are reported with their
 * line (word) and say what is kept; nothing is cut or dropped silently; the image's template. */
#include <stdlib.h>

#include "bench/core/options.h"
#include "bench/core/registry_names.h"
#include "tests/unit/test.h"

#define MSGS_KEPT 16
#define MSG_CAP 256

static const char *const known[] = { "timer", "spin", "fault_ud2", 0 };
static char msgs[MSGS_KEPT][MSG_CAP];
static char last_msg[MSG_CAP];
static unsigned nmsgs;

static void warn(const char *m, void *ctx)
{
	(void)ctx;
	if (nmsgs < MSGS_KEPT)
		snprintf(msgs[nmsgs], MSG_CAP, "%s", m);
	nmsgs++;
	snprintf(last_msg, sizeof(last_msg), "%s", m);
}

static struct config_parser parser(struct config *c)
{
	struct config_parser p = { .cfg = c, .known_probes = known, .warn = warn };

	config_defaults(c);
	nmsgs = 0;
	last_msg[0] = 0;
	return p;
}

static void parse_text(struct config_parser *p, const char *text)
{
	config_parse_file(p, text, strlen(text));
}

static void file_syntax(void)
{
	struct config c;
	struct config_parser p = parser(&c);
	const char text[] = "# comment\n  samples = 32  \r\nprobes=spin,timer # trailing\n\n"
			    "shutdown = acpi\nserial = io:0x2f8\nwait_key = 1";

	config_parse_file(&p, text, sizeof(text) - 1);
	CHECK_EQ_U64(c.samples, 32);
	CHECK_STR(c.probes, "spin,timer");
	CHECK(c.shutdown == SHUTDOWN_ACPI);
	CHECK(c.serial_kind == SERIAL_IO && c.serial_base == 0x2F8);
	CHECK(c.wait_key);
	CHECK_EQ_U64(nmsgs, 0);
}

static void bad_input_keeps_default(void)
{
	struct config c;
	struct config_parser p = parser(&c);
	const char text[] = "samples = lots\nnosuchkey = 1\nprobes = timer,bogus\nsamples = 0\n"
			    "shutdown = explode\njust words\ntsc_cal_ms = 999999\n";

	config_parse_file(&p, text, sizeof(text) - 1);
	CHECK_EQ_U64(c.samples, 16);
	CHECK_STR(c.probes, "timer"); /* the unknown name is skipped, the known one kept */
	CHECK(c.shutdown == SHUTDOWN_AUTO);
	CHECK_EQ_U64(c.tsc_cal_ms, 100);
	CHECK_EQ_U64(nmsgs, 7);
	CHECK_EQ_U64(p.warnings, 7);
	CHECK(strstr(last_msg, "file line 7") != 0);
	CHECK(strstr(last_msg, "tsc_cal_ms") != 0);
}

static void messages_are_clear(void)
{
	struct config c;
	struct config_parser p = parser(&c);

	config_set(&p, "samples", "abc", "file line 3");
	CHECK_STR(last_msg, "config file line 3: bad value 'abc' for 'samples' (want integer 1..100000), keeping the default");
	CHECK(config_set(&p, "probes", "timer,nope,spin", "file line 4"));
	CHECK_STR(last_msg, "config file line 4: unknown probe 'nope' in 'probes' skipped");
	CHECK_STR(c.probes, "timer,spin"); /* the known ones run; not the default suite */
	CHECK(!config_set(&p, "probes", "nope,,zilch", "file line 5"));
	CHECK_STR(last_msg, "config file line 5: no known name in 'probes': keeping the value of an earlier setting");
	CHECK_STR(c.probes, "timer,spin");
	config_set(&p, "colour", "red", "load option word 2");
	CHECK_STR(last_msg, "config load option word 2: unknown key 'colour' ignored");
}

static void load_options(void)
{
	struct config c;
	struct config_parser p = parser(&c);
	const char args[] = "baremetric.efi samples=8  timer_samples=100\tserial=none";

	config_parse_args(&p, args, sizeof(args) - 1);
	CHECK_EQ_U64(c.samples, 8);
	CHECK_EQ_U64(c.timer_samples, 100);
	CHECK(c.serial_kind == SERIAL_NONE);
	CHECK_EQ_U64(nmsgs, 0);
}

static void record_lists_every_option(void)
{
	struct config c;
	struct record r;

	config_defaults(&c);
	rec_start(&r, 3, "cfg");
	config_to_record(&c, &r);
	rec_finish(&r);
	CHECK(strstr(r.buf, " probes=timer,spin,pmu_check,pmu_cost,membw,latency,cachefill,flops,smp_hello,membw_mc,irq_latency,irq_exception,irq_displace,irq_footprint,noise ") != 0);
	CHECK(strstr(r.buf, " serial=auto ") != 0);
	CHECK(strstr(r.buf, " shutdown=auto ") != 0);
	CHECK(strstr(r.buf, " arena_mb=640 ") != 0);
	CHECK(strstr(r.buf, " wait_key=0 ") != 0);
	CHECK(strstr(r.buf, " smp=1") != 0);
}

static void list_membership(void)
{
	CHECK(config_list_has("timer,spin", "spin"));
	CHECK(config_list_has("timer", "timer"));
	CHECK(!config_list_has("timers,spin", "timer"));
	CHECK(!config_list_has("", "timer"));
}

static void pmu_events_option(void)
{
	struct config c;
	struct config_parser p = parser(&c);

	CHECK_STR(c.pmu_events, "auto");
	CHECK(config_set(&p, "pmu_events", "cycles,l2_misses,energy_pkg", "test"));
	CHECK_STR(c.pmu_events, "cycles,l2_misses,energy_pkg");
	CHECK(!config_set(&p, "pmu_events", "cycles,l3_misses", "test")); /* one bad name refuses all */
	CHECK_STR(c.pmu_events, "cycles,l2_misses,energy_pkg");
	CHECK_STR(last_msg, "config test: unknown name 'l3_misses' in 'pmu_events': list refused, "
			    "keeping the value of an earlier setting");
	CHECK(config_set(&p, "pmu_events", "none", "test"));
	CHECK_STR(c.pmu_events, "none");
}

/* irq_disp_work: a numeric list, all or nothing, with the reason in the message. */
static void disp_work_list_option(void)
{
	struct config c;
	struct config_parser p = parser(&c);
	static const char *const bad[] = { "", "1,,2", "5,x", "1,2,1", "2000000000", "1,2,3,4,5,6,7,8,9", "-1", "3," };
	struct record r;

	CHECK_EQ_U64(c.irq_disp_work.n, 4);
	CHECK_EQ_U64(c.irq_disp_work.v[3], 4000000);
	CHECK(config_set(&p, "irq_disp_work", "0,2000,3000000", "test"));
	CHECK_EQ_U64(c.irq_disp_work.n, 3);
	CHECK_EQ_U64(c.irq_disp_work.v[2], 3000000);
	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CHECK(!config_set(&p, "irq_disp_work", bad[i], "test"));
		CHECK_EQ_U64(c.irq_disp_work.n, 3); /* unchanged */
	}
	CHECK(strstr(last_msg, "bad value '3,' for 'irq_disp_work' (want a comma list of 1..8 distinct cycle counts") != 0);
	CHECK(strstr(last_msg, "keeping the value of an earlier setting") != 0);
	rec_start(&r, 3, "cfg");
	config_to_record(&c, &r);
	rec_finish(&r);
	CHECK(strstr(r.buf, " irq_disp_work=0,2000,3000000 ") != 0);
}

/* A line is read whole: a comment of any length after a value, a value of 255 characters; a value
 * too long to hold is refused as a whole with its line and length, never cut, and the lines after
 * it are read. */
static void long_lines(void)
{
	struct config c;
	struct config_parser p = parser(&c);
	size_t big = 5000, n = 0;
	char *text = malloc(2 * big + 512), full[CONFIG_VALUE_MAX];

	/* line 1: samples = 8 and a comment of 5000 characters */
	n += (size_t)sprintf(text + n, "samples = 8 #");
	memset(text + n, 'c', big), n += big;
	/* line 2: probes = timer,timer,...,spin of 5000 characters (the list of the issue) */
	n += (size_t)sprintf(text + n, "\nprobes = timer");
	for (size_t i = 0; i < 830; i++)
		n += (size_t)sprintf(text + n, ",timer");
	n += (size_t)sprintf(text + n, ",spin,spin,spin");
	/* line 3: read after it; line 4: a key of 300 characters */
	n += (size_t)sprintf(text + n, "\ntimer_samples = 64\n");
	memset(text + n, 'k', 300), n += 300;
	n += (size_t)sprintf(text + n, " = 1\n");
	config_parse_file(&p, text, n);
	free(text);
	CHECK_EQ_U64(c.samples, 8);
	CHECK_STR(c.probes, probe_default_list);
	CHECK_EQ_U64(c.timer_samples, 64);
	CHECK_EQ_U64(nmsgs, 2);
	CHECK_STR(msgs[0], "config file line 2: value of 'probes' over 255 characters (5000); line ignored");
	CHECK_STR(msgs[1], "config file line 4: key 'kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk...' (300 characters) "
			   "too long; line ignored");
	/* the longest value that fits: 255 characters of names, all kept */
	p = parser(&c);
	n = 0;
	while (n + 6 < sizeof(full))
		n += (size_t)sprintf(full + n, n ? ",timer" : "timer");
	full[n++] = ','; /* then an unknown name up to 255 characters, reported */
	while (n < sizeof(full) - 1)
		full[n++] = 'x';
	full[n] = 0;
	CHECK_EQ_U64(strlen(full), CONFIG_VALUE_MAX - 1);
	text = malloc(n + 16);
	n = (size_t)sprintf(text, "probes=%s\n", full);
	config_parse_file(&p, text, n);
	free(text);
	CHECK_EQ_U64(nmsgs, 1);
	CHECK_STR(last_msg, "config file line 1: unknown probe 'xxx' in 'probes' skipped");
	CHECK_EQ_U64(strlen(c.probes), CONFIG_VALUE_MAX - 1 - 4); /* 42 x timer */
	CHECK(strstr(c.probes, "x") == 0);
}

/* A NUL byte: its line is ignored with a message (line and column), the rest of the file is read. */
static void nul_byte(void)
{
	struct config c;
	struct config_parser p = parser(&c);
	const char text[] = "samples = 32\nprobes = ti\0mer\ntimer_samples = 64\n";

	config_parse_file(&p, text, sizeof(text) - 1);
	CHECK_EQ_U64(c.samples, 32);
	CHECK_STR(c.probes, probe_default_list);
	CHECK_EQ_U64(c.timer_samples, 64);
	CHECK_EQ_U64(nmsgs, 1);
	CHECK_STR(last_msg, "config file line 2: a NUL byte (column 12); line ignored");
}

/* A key given twice in the file (or in the load options): both numbers, the later value counts. */
static void repeated_key(void)
{
	struct config c;
	struct config_parser p = parser(&c);

	parse_text(&p, "# comment\n\ntimer_samples = 10\nsamples = 3\n\n\ntimer_samples = 20\nsamples = 3\n"
		       "timer_samples = 30\n");
	CHECK_EQ_U64(c.timer_samples, 30);
	CHECK_EQ_U64(nmsgs, 3);
	CHECK_STR(msgs[0], "config file line 7: timer_samples given again (first on line 3); the later value counts");
	CHECK_STR(msgs[1], "config file line 8: samples given again (first on line 4); the later value counts");
	CHECK_STR(msgs[2], "config file line 9: timer_samples given again (first on line 3); the later value counts");
	/* load options override the file without a word; repeated among themselves, they are reported */
	nmsgs = 0;
	config_parse_args(&p, "x.efi samples=5 timer_samples=40 samples=6", 42);
	CHECK_EQ_U64(c.samples, 6);
	CHECK_EQ_U64(c.timer_samples, 40);
	CHECK_EQ_U64(nmsgs, 1);
	CHECK_STR(last_msg, "config load option word 4: samples given again (first in word 2); the later value counts");
}

/* A refused value says what stays: the default when nothing set the option before, else the value
 * and the line of the setting that took effect (the issue's timer_samples=1000000000000). */
static void bad_value_says_what_is_kept(void)
{
	struct config c;
	struct config_parser p = parser(&c);

	parse_text(&p, "timer_samples = 1000000000000\n");
	CHECK_EQ_U64(c.timer_samples, 4096);
	CHECK_STR(last_msg, "config file line 1: bad value '1000000000000' for 'timer_samples' (want integer "
			    "1..1000000), keeping the default");
	p = parser(&c);
	parse_text(&p, "timer_samples = 2048\ntimer_samples = 1000000000000\n");
	CHECK_EQ_U64(c.timer_samples, 2048);
	CHECK_EQ_U64(nmsgs, 1); /* no "given again": the bad value's message says what counts */
	CHECK_STR(last_msg, "config file line 2: bad value '1000000000000' for 'timer_samples' (want integer "
			    "1..1000000), keeping the value of file line 1");
	config_parse_args(&p, "x.efi timer_samples=0", 21);
	CHECK_EQ_U64(c.timer_samples, 2048);
	CHECK_STR(last_msg, "config load option word 2: bad value '0' for 'timer_samples' (want integer "
			    "1..1000000), keeping the value of file line 1");
	p = parser(&c);
	parse_text(&p, "probes = spin\nprobes = nope\nshutdown = acpi\nshutdown = off\n");
	CHECK_STR(c.probes, "spin");
	CHECK(c.shutdown == SHUTDOWN_ACPI);
	CHECK_EQ_U64(nmsgs, 3);
	CHECK_STR(msgs[0], "config file line 2: unknown probe 'nope' in 'probes' skipped");
	CHECK_STR(msgs[1], "config file line 2: no known name in 'probes': keeping the value of file line 1");
	CHECK_STR(msgs[2], "config file line 4: bad value 'off' for 'shutdown' (want auto, debug-exit, acpi, "
			   "reset or halt), keeping the value of file line 3");
	/* a long bad value is quoted in part, with its length */
	p = parser(&c);
	parse_text(&p, "seed = 123456789012345678901234567890123456789012345678901234567890\n");
	CHECK_STR(last_msg, "config file line 1: bad value '1234567890123456789012345678901234567890...' (60 "
			    "characters) for 'seed' (want an unsigned integer), keeping the default");
}

/* CRLF and lone-CR line ends, a UTF-8 byte-order mark, blanks around keys and values, comments
 * after values: all read without a message; line numbers count every kind of line end. */
static void text_forms(void)
{
	struct config c;
	struct config_parser p = parser(&c);

	parse_text(&p, "\xEF\xBB\xBFsamples = 32 \t\r\nprobes=spin,timer# after a value\r\n\r\n  # indented\r"
		       "shutdown\t=\tacpi   \rwait_key = 1 #\n  \t\nbogus line\r\n");
	CHECK_EQ_U64(c.samples, 32);
	CHECK_STR(c.probes, "spin,timer");
	CHECK(c.shutdown == SHUTDOWN_ACPI);
	CHECK(c.wait_key);
	CHECK_EQ_U64(nmsgs, 1);
	CHECK_STR(last_msg, "config file line 8: 'bogus line' is not of the form key = value; ignored");
}

/* UTF-16 (Windows "Unicode") text: its NUL bytes are reported, line by line; nothing is read. */
static void utf16_file(void)
{
	struct config c;
	struct config_parser p = parser(&c);
	const char text[] = "\xFF\xFEs\0a\0m\0p\0l\0e\0s\0=\0""3\0""2\0\n\0";

	config_parse_file(&p, text, sizeof(text) - 1);
	CHECK_EQ_U64(c.samples, 16);
	CHECK_EQ_U64(nmsgs, 2);
	CHECK_STR(msgs[0], "config file line 1: a NUL byte (column 4); line ignored");
	CHECK_STR(msgs[1], "config file line 2: a NUL byte (column 1); line ignored");
}

/* The template the image carries (docs/baremetric.cfg, scripts/gen_docs.py): as it is it changes
 * nothing and says nothing; with every `# key=default` line uncommented it still gives the
 * defaults, without a message (every default shown is one the parser accepts). */
static void template_changes_nothing(void)
{
	static const char *const paths[] = { "docs/baremetric.cfg", "../docs/baremetric.cfg", "../../docs/baremetric.cfg" };
	struct config c, def;
	struct config_parser p = { .cfg = &c, .warn = warn }; /* every probe name known */
	struct record r_def, r;
	char *text = 0, *line;
	size_t len = 0, settings = 0;
	FILE *f = 0;

	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]) && !f; i++)
		f = fopen(paths[i], "rb");
	CHECK(f != 0);
	if (!f)
		return;
	text = calloc(1, 1 << 16);
	len = fread(text, 1, (1 << 16) - 1, f);
	fclose(f);
	CHECK(len > 1000 && len < 16384); /* the firmware reads 16 KiB */
	config_defaults(&def);
	rec_start(&r_def, 3, "cfg");
	config_to_record(&def, &r_def);
	rec_finish(&r_def);
	for (int pass = 0; pass < 2; pass++) {
		config_defaults(&c);
		nmsgs = 0;
		memset(p.given, 0, sizeof(p.given));
		config_parse_file(&p, text, len);
		CHECK_EQ_U64(nmsgs, 0);
		rec_start(&r, 3, "cfg");
		config_to_record(&c, &r);
		rec_finish(&r);
		CHECK_STR(r.buf, r_def.buf);
		/* uncomment "# key=default" (keeps the length: "# " becomes "  ") */
		for (line = text; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : 0) {
			size_t k = 2;

			if (line[0] != '#' || line[1] != ' ')
				continue;
			while (line[k] == '_' || (line[k] >= 'a' && line[k] <= 'z') || (line[k] >= '0' && line[k] <= '9'))
				k++;
			if (k > 2 && line[k] == '=') {
				line[0] = line[1] = ' ';
				settings++;
			}
		}
	}
	CHECK_EQ_U64(settings, config_option_count());
	free(text);
}

TEST_SUITE(config) = {
	{ "long_lines", long_lines },
	{ "nul_byte", nul_byte },
	{ "repeated_key", repeated_key },
	{ "bad_value_says_what_is_kept", bad_value_says_what_is_kept },
	{ "text_forms", text_forms },
	{ "utf16_file", utf16_file },
	{ "template_changes_nothing", template_changes_nothing },
	{ "disp_work_list_option", disp_work_list_option },
	{ "pmu_events_option", pmu_events_option },
	{ "file_syntax", file_syntax },
	{ "bad_input_keeps_default", bad_input_keeps_default },
	{ "messages_are_clear", messages_are_clear },
	{ "load_options", load_options },
	{ "record_lists_every_option", record_lists_every_option },
	{ "list_membership", list_membership },
	{ 0, 0 },
};
