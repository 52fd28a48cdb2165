/* The run summary's headline (bench/core/summary.c, summary_head.c): order statistics on known
 * samples, the cache-level bands, the MB/s and ns arithmetic, the per-source interrupt rows, the
 * checks and skips counted from record lines made by the real encoder, and the destinations. */
#include "test.h"

#include "bench/core/summary.h"
#include "lib/record.h"

#define HZ 2000000000ull /* 2 GHz: one cycle is half a ns */
#define OVERHEAD 40

static char mem[SUMMARY_MAX];
static char head[SUMMARY_HEADLINE_MAX];

static void start(void)
{
	static struct cpu_info cpu;
	struct probe_env env = { .counter_hz = HZ, .cpu = &cpu };

	cpu = (struct cpu_info){ .num_caches = 4 };
	cpu.caches[0] = (struct cache_desc){ .level = 1, .type = CACHE_DATA, .size = 32 * 1024 };
	cpu.caches[1] = (struct cache_desc){ .level = 1, .type = CACHE_INST, .size = 64 * 1024 };
	cpu.caches[2] = (struct cache_desc){ .level = 2, .type = CACHE_UNIFIED, .size = 1024 * 1024 };
	cpu.caches[3] = (struct cache_desc){ .level = 3, .type = CACHE_UNIFIED, .size = 8 * 1024 * 1024 };
	summary_init(mem, sizeof(mem));
	summary_begin(&env);
}

/* The headline's line that starts with `prefix`, or "" (so CHECK_STR shows what was there). */
static const char *line_of(const char *prefix)
{
	static char line[128];
	const char *p = head;
	size_t n = strlen(prefix);

	while (*p) {
		const char *e = strchr(p, '\n');
		size_t len = e ? (size_t)(e - p) : strlen(p);

		if (len >= n && !strncmp(p, prefix, n) && len < sizeof(line)) {
			memcpy(line, p, len);
			line[len] = 0;
			return line;
		}
		p += len + (e != 0);
	}
	return "";
}

static void set_of(const char *probe, const char *key, const char *val, const char *size, const char *bytes,
		   uint64_t per_sample, uint64_t iters)
{
	const char *params[] = { key, val, "size", size, "bytes_per_op", bytes, 0 };
	uint64_t v[5] = { per_sample + OVERHEAD + 9, per_sample + OVERHEAD, per_sample + OVERHEAD - 1,
			  per_sample + OVERHEAD - 3, per_sample + OVERHEAD + 500 };

	summary_set(probe, params, v, 5, iters, OVERHEAD); /* median: per_sample + OVERHEAD */
}

static void feed(const char *type, const char *k1, const char *v1, const char *k2, const char *v2)
{
	struct record r;
	unsigned len;

	rec_start(&r, 7, type);
	rec_str(&r, k1, v1);
	if (k2)
		rec_str(&r, k2, v2);
	len = rec_finish(&r);
	summary_record(r.buf, len);
}

static void quantiles_of_known_samples(void)
{
	uint64_t v[200];

	for (unsigned i = 0; i < 200; i++)
		v[i] = i + 1;
	CHECK_EQ_U64(summary_median(v, 100), 50);  /* the lower middle */
	CHECK_EQ_U64(summary_median(v, 99), 50);
	CHECK_EQ_U64(summary_quantile(v, 100, 990), 99); /* rank ceil(99) */
	CHECK_EQ_U64(summary_quantile(v, 200, 990), 198);
	CHECK_EQ_U64(summary_quantile(v, 10, 990), 10);  /* rank ceil(9.9) = 10: the maximum */
	CHECK_EQ_U64(summary_quantile(v, 1, 990), 1);
	CHECK_EQ_U64(summary_quantile(v, 0, 990), 0);
	CHECK_EQ_U64(summary_median(v, 0), 0);
	CHECK_EQ_U64(summary_muldiv(10, 3, 4), 7);
	CHECK_EQ_U64(summary_muldiv(1ull << 62, 8, 4), 1ull << 63); /* a x b overflows: divided first */
	CHECK_EQ_U64(summary_muldiv(5, 5, 0), 0);
}

static void memory_rows_per_level(void)
{
	start();
	/* L1 band [0, 16K]: 8192 bytes x 100 passes in 10000 cycles = 81.92 B/cycle = 163840 MB/s */
	set_of("membw", "kernel", "read", "8192", "8192", 10000, 100);
	set_of("membw", "kernel", "read", "8192", "8192", 20000, 100);  /* same size, slower width */
	set_of("membw", "kernel", "read", "4096", "4096", 1000, 100);   /* smaller: not the level's */
	set_of("membw", "kernel", "copy", "16384", "32768", 100, 100);  /* not a read */
	/* 5 cycles per load at 2 GHz = 2.5 ns */
	set_of("latency", "pattern", "random", "16384", "0", 5000, 1000);
	set_of("latency", "pattern", "stride", "16384", "0", 1000, 1000); /* not the random chain */
	/* L2 band [64K, 512K]; 40K is between L1 and L2: in no row */
	set_of("latency", "pattern", "random", "524288", "0", 24000, 1000); /* 24 cycles = 12.0 ns */
	set_of("latency", "pattern", "random", "40960", "0", 9000, 1000);
	/* L3 band [2M, 4M]; DRAM from 32M */
	set_of("latency", "pattern", "random", "4194304", "0", 80000, 1000);  /* 40.0 ns */
	set_of("latency", "pattern", "random", "33554432", "0", 200000, 1000); /* 100.0 ns */
	set_of("membw", "kernel", "read", "33554432", "33554432", 16777216, 1); /* 2 B/cycle: 4000 MB/s */
	summary_headline(head, sizeof(head), "TSC");
	CHECK_STR(line_of("counter:"), "counter: TSC at 2000.000 MHz");
	CHECK_STR(line_of("memory "), "memory     read MB/s  at     load ns  at");
	CHECK_STR(line_of("  L1 "), "  L1 32K      163840  8K         2.5  16K");
	CHECK_STR(line_of("  L2 "), "  L2 1M            -            12.0  512K");
	CHECK_STR(line_of("  L3 "), "  L3 8M            -            40.0  4M");
	CHECK_STR(line_of("  DRAM"), "  DRAM          4000  32M      100.0  32M");
	CHECK_STR(line_of("interrupt"), "interrupt latency: not measured (irq_latency)");
}

/* A data cache of unknown geometry (AArch64 under KVM: cpu_info's geometry_unknown, size 0): no
 * band above it is known, so neither the levels above it nor DRAM get values; those below do. */
static void unknown_level_bounds_nothing_above(void)
{
	static struct cpu_info cpu;
	struct probe_env env = { .counter_hz = HZ, .cpu = &cpu };

	cpu = (struct cpu_info){ .num_caches = 3 };
	cpu.caches[0] = (struct cache_desc){ .level = 1, .type = CACHE_DATA, .size = 32 * 1024 };
	cpu.caches[1] = (struct cache_desc){ .level = 2, .type = CACHE_UNIFIED, .geometry_unknown = "stand-in" };
	cpu.caches[2] = (struct cache_desc){ .level = 3, .type = CACHE_UNIFIED, .size = 8 * 1024 * 1024 };
	summary_init(mem, sizeof(mem));
	summary_begin(&env);
	set_of("latency", "pattern", "random", "16384", "0", 5000, 1000);     /* L1: 2.5 ns */
	set_of("latency", "pattern", "random", "4194304", "0", 80000, 1000);  /* was L3's band */
	set_of("latency", "pattern", "random", "33554432", "0", 200000, 1000); /* was DRAM's */
	summary_headline(head, sizeof(head), "TSC");
	CHECK_STR(line_of("  L1 "), "  L1 32K           -             2.5  16K");
	CHECK_STR(line_of("  L3 "), "");
	CHECK_STR(line_of("  DRAM"), "  DRAM             -               -");
}

static void interrupt_rows_per_source(void)
{
	uint64_t v[100], w[100];

	start();
	for (unsigned i = 0; i < 100; i++) {
		v[i] = 2 * (100 - i); /* 200, 198, .., 2 cycles: sorted here */
		w[i] = 1000;
	}
	summary_irq("hpet", "hlt", w, 100);
	summary_irq("hpet", "spin", v, 100);      /* the spin set replaces the hlt one */
	summary_irq("hpet", "l1d", w, 100);       /* and stays */
	summary_irq("self_ipi", "l2", w, 50);     /* no spin set: the first one stays */
	summary_irq("self_ipi", "l1d", v, 100);
	summary_headline(head, sizeof(head), "TSC");
	CHECK_STR(line_of("interrupt"), "interrupt latency      median ns    p99 ns  wait, samples");
	/* median 100 cycles = 50 ns, p99 (rank 99) 198 cycles = 99 ns */
	CHECK_STR(line_of("  hpet"), "  hpet                        50        99  spin, 100");
	CHECK_STR(line_of("  self_ipi"), "  self_ipi                   500       500  l2, 50");
	CHECK_STR(line_of("memory"), "memory: not measured (membw read, latency random)");
}

static void checks_skips_and_destinations(void)
{
	start();
	feed("check", "name", "a", "status", "pass");
	feed("check", "name", "b", "status", "pass");
	feed("check", "name", "c", "status", "fail");
	feed("check", "name", "d", "status", "saturated");
	feed("msg", "level", "info", "status", "fail"); /* not a check */
	summary_probe("timer", PROBE_OK);
	feed("skip", "probe", "membw", "reason", "no AVX-512");     /* a part of membw */
	summary_probe("membw", PROBE_OK);
	feed("skip", "probe", "membw_mc", "reason", "only one CPU%"); /* escaped: "%20", "%25" */
	summary_probe("membw_mc", PROBE_SKIPPED);
	summary_probe("irq_latency", PROBE_FAILED);
	summary_headline(head, sizeof(head), "generic timer");
	CHECK_STR(line_of("checks:"), "checks: 2 passed, 1 FAILED, 1 not judged");
	CHECK_STR(line_of("probes:"), "probes: 2 ok, 1 skipped, 1 FAILED");
	CHECK_STR(line_of("  skipped"), "  skipped membw_mc: only one CPU%");
	CHECK_STR(line_of("  FAILED"), "  FAILED irq_latency");
	CHECK_STR(line_of("  1 skip"), "  1 skip records for parts of probes (see the records)");
	CHECK(summary_only_copy());
	CHECK_STR(line_of("results:"), "results: NOT SAVED: no serial port answered and nothing was written");
	summary_destination("serial 0x3f8 (I/O port) at 115200 baud");
	summary_destination("\\BAREMETRIC\\RUN_007.LOG on the boot stick");
	CHECK(!summary_only_copy());
	summary_headline(head, sizeof(head), "TSC");
	CHECK_STR(line_of("results: s"), "results: serial 0x3f8 (I/O port) at 115200 baud");
	CHECK_STR(line_of("results: \\"), "results: \\BAREMETRIC\\RUN_007.LOG on the boot stick");
}

static void details_share_the_memory(void)
{
	start();
	summary_value("TSC MHz", 2445416, 3, "hpet");
	summary_status("ok", 12);
	CHECK_STR(summary_text(), "TSC MHz: 2445.416 hpet\nstatus: ok, 12 records sent\n");
	summary_init(0, 0); /* no memory: nothing kept, nothing breaks */
	summary_headline(head, sizeof(head), "TSC");
	CHECK(strstr(head, "no memory") != 0);
}

TEST_SUITE(summary) = {
	{ "quantiles_of_known_samples", quantiles_of_known_samples },
	{ "memory_rows_per_level", memory_rows_per_level },
	{ "unknown_level_bounds_nothing_above", unknown_level_bounds_nothing_above },
	{ "interrupt_rows_per_source", interrupt_rows_per_source },
	{ "checks_skips_and_destinations", checks_skips_and_destinations },
	{ "details_share_the_memory", details_share_the_memory },
	{ 0, 0 },
};
