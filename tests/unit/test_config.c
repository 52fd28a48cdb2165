/* Option parsing: file syntax, load options, bad keys and values keep defaults with a message. */
#include "bench/core/options.h"
#include "tests/unit/test.h"

static const char *const known[] = { "timer", "spin", "fault_ud2", 0 };
static char last_msg[256];
static unsigned nmsgs;

static void warn(const char *m, void *ctx)
{
	(void)ctx;
	nmsgs++;
	strncpy(last_msg, m, sizeof(last_msg) - 1);
}

static struct config_parser parser(struct config *c)
{
	struct config_parser p = { .cfg = c, .known_probes = known, .warn = warn };

	config_defaults(c);
	nmsgs = 0;
	last_msg[0] = 0;
	return p;
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
	CHECK_STR(last_msg, "config file line 5: no known name in 'probes': default kept");
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
	CHECK(strstr(r.buf, " probes=timer,spin,pmu_check,pmu_cost,membw,latency,cachefill,smp_hello,membw_mc,irq_latency,irq_exception,irq_displace,irq_footprint,noise ") != 0);
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
	CHECK(strstr(last_msg, "unknown name 'l3_misses' in 'pmu_events'") != 0);
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
	CHECK(strstr(last_msg, "keeping the default") != 0);
	rec_start(&r, 3, "cfg");
	config_to_record(&c, &r);
	rec_finish(&r);
	CHECK(strstr(r.buf, " irq_disp_work=0,2000,3000000 ") != 0);
}

TEST_SUITE(config) = {
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
