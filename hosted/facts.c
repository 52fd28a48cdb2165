/* OS facts of the hosted build as `plat` records (see hosted.h). Everything is read from /proc and
 * /sys; what cannot be read is reported as "unknown" (or left out), never guessed. */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "bench/facts/ident.h"
#include "hosted/hosted.h"
#include "hosted/text_file.h"
#include "lib/fmt.h"

#define CPU_SYSFS "/sys/devices/system/cpu"
#define HUGEPAGES_SYSFS "/sys/kernel/mm/hugepages"
#define THP_SYSFS "/sys/kernel/mm/transparent_hugepage"
#define KMSG_MAX_RECORDS 200000

/* Kernel command-line parameters that say how the machine was set up for quiet measurement. */
static const char *const cmdline_hints[] = {
	"isolcpus", "nohz_full", "nohz", "rcu_nocbs", "rcu_nocb_poll", "irqaffinity", "idle", "nosmt",
	"mitigations", "processor.max_cstate", "intel_idle.max_cstate", "intel_pstate", "amd_pstate",
	"cpufreq.off", "nmi_watchdog", "nowatchdog", "nosoftlockup", "skew_tick", "tsc", "clocksource",
	"transparent_hugepage", "hugepages", "hugepagesz", "default_hugepagesz", "numa_balancing", 0,
};

static bool read_u64_file(const char *path, uint64_t *v)
{
	char buf[64];

	return read_line(path, buf, sizeof(buf)) && parse_u64(buf, v);
}

/* The word in brackets of a sysfs choice file ("always [madvise] never" -> "madvise"). */
static void sysfs_choice(const char *path, char *out, size_t cap)
{
	char buf[256];
	char *a, *b;

	str_copy(out, "unknown", cap);
	if (!read_line(path, buf, sizeof(buf)))
		return;
	a = strchr(buf, '[');
	b = a ? strchr(a, ']') : 0;
	if (a && b) {
		*b = '\0';
		str_copy(out, a + 1, cap);
	} else if (buf[0]) {
		str_copy(out, buf, cap);
	}
}

void facts_clocksource(char *buf, size_t cap)
{
	if (!read_line("/sys/devices/system/clocksource/clocksource0/current_clocksource", buf, cap) || !buf[0])
		str_copy(buf, "unknown", cap);
}

/* "2596.122 MHz" at p -> kHz. */
static uint64_t mhz_text_to_khz(const char *p)
{
	uint64_t khz = 0;
	unsigned frac = 0;

	while (*p == ' ')
		p++;
	if (!isdigit((unsigned char)*p))
		return 0;
	while (isdigit((unsigned char)*p))
		khz = khz * 10 + (uint64_t)(*p++ - '0');
	khz *= 1000;
	if (*p == '.') {
		p++;
		for (unsigned scale = 100; scale && isdigit((unsigned char)*p); scale /= 10)
			frac += (unsigned)(*p++ - '0') * scale;
	}
	return khz + frac;
}

/* The TSC lines of the kernel log (/dev/kmsg: readable by root, or when dmesg_restrict is 0). */
static uint64_t kmsg_tsc_khz(const char **source)
{
	static const char refined[] = "tsc: Refined TSC clocksource calibration:";
	static const char detected[] = "tsc: Detected ";
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	uint64_t khz_refined = 0, khz_detected = 0;
	char rec[2048];

	if (fd < 0)
		return 0;
	for (unsigned i = 0; i < KMSG_MAX_RECORDS; i++) {
		ssize_t n = read(fd, rec, sizeof(rec) - 1);
		char *text, *p;

		if (n < 0 && errno == EPIPE)
			continue; /* records overwritten while reading: go on with the next */
		if (n <= 0)
			break;
		rec[n] = '\0';
		text = strchr(rec, ';'); /* "prio,seq,usec,flags;text" */
		if (!text)
			continue;
		text++;
		if ((p = strstr(text, refined)))
			khz_refined = mhz_text_to_khz(p + sizeof(refined) - 1);
		else if ((p = strstr(text, detected)) && strstr(p, "MHz"))
			khz_detected = mhz_text_to_khz(p + sizeof(detected) - 1);
	}
	close(fd);
	if (khz_refined) {
		*source = "kmsg_refined";
		return khz_refined;
	}
	if (khz_detected)
		*source = "kmsg_detected";
	return khz_detected;
}

uint64_t facts_kernel_tsc_khz(const char **source)
{
	static bool done;
	static uint64_t khz;
	static const char *from = "none";

	if (!done) {
		done = true;
		/* Not upstream, but some kernels export it. */
		if (read_u64_file(CPU_SYSFS "/cpu0/tsc_freq_khz", &khz) && khz)
			from = "sysfs";
		else
			khz = kmsg_tsc_khz(&from);
	}
	*source = from;
	return khz;
}

/* The "microcode" line of /proc/cpuinfo for `cpu`. */
static bool cpuinfo_microcode(int cpu, char *out, size_t cap)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[512];
	int current = -1;
	bool found = false;

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');

		if (!colon)
			continue;
		if (!strncmp(line, "processor", 9))
			current = atoi(colon + 1);
		else if (current == cpu && !strncmp(line, "microcode", 9)) {
			colon++;
			while (*colon == ' ')
				colon++;
			colon[strcspn(colon, "\n")] = '\0';
			str_copy(out, colon, cap);
			found = true;
		}
	}
	fclose(f);
	return found;
}

/* A sysfs file as a record field, "none" when empty, "unknown" when absent. */
static void rec_sysfs(struct record *r, const char *key, const char *path)
{
	char buf[256];

	if (!read_line(path, buf, sizeof(buf)))
		rec_str(r, key, "unknown");
	else
		rec_str(r, key, buf[0] ? buf : "none");
}

static void rec_cmdline_hints(struct record *r)
{
	char buf[4096];
	char *save = 0, *tok;
	unsigned found = 0;

	if (!read_line("/proc/cmdline", buf, sizeof(buf))) {
		rec_str(r, "cmdline", "unknown");
		return;
	}
	for (tok = strtok_r(buf, " ", &save); tok; tok = strtok_r(0, " ", &save)) {
		char *eq = strchr(tok, '=');
		size_t klen = eq ? (size_t)(eq - tok) : strlen(tok);

		if (str_eq(tok, "--"))
			break; /* the rest is for init */
		for (const char *const *h = cmdline_hints; *h; h++) {
			char key[48];

			if (strlen(*h) != klen || strncmp(*h, tok, klen))
				continue;
			snprintf(key, sizeof(key), "cmdline.%s", *h);
			rec_str(r, key, eq ? eq + 1 : "1");
			found++;
		}
	}
	rec_u64(r, "cmdline_hints", found);
}

/* Huge-page pools as they were before the arena took its share (facts_snapshot_hugepages). */
#define HUGE_SIZES_MAX 4
static struct {
	unsigned n;
	char unit[HUGE_SIZES_MAX][24];
	uint64_t total[HUGE_SIZES_MAX], free[HUGE_SIZES_MAX];
	bool have_total[HUGE_SIZES_MAX], have_free[HUGE_SIZES_MAX];
} huge;

/* hugepages-2048kB -> unit "2m", for every size the kernel offers. */
void facts_snapshot_hugepages(void)
{
	DIR *d = opendir(HUGEPAGES_SYSFS);
	struct dirent *e;

	huge.n = 0;
	if (!d)
		return;
	while ((e = readdir(d)) && huge.n < HUGE_SIZES_MAX) {
		unsigned long kb;
		char path[512];
		unsigned i = huge.n;

		if (sscanf(e->d_name, "hugepages-%lukB", &kb) != 1)
			continue;
		if (kb % (1024 * 1024) == 0)
			snprintf(huge.unit[i], sizeof(huge.unit[i]), "%lug", kb / (1024 * 1024));
		else if (kb % 1024 == 0)
			snprintf(huge.unit[i], sizeof(huge.unit[i]), "%lum", kb / 1024);
		else
			snprintf(huge.unit[i], sizeof(huge.unit[i]), "%luk", kb);
		snprintf(path, sizeof(path), HUGEPAGES_SYSFS "/%s/nr_hugepages", e->d_name);
		huge.have_total[i] = read_u64_file(path, &huge.total[i]);
		snprintf(path, sizeof(path), HUGEPAGES_SYSFS "/%s/free_hugepages", e->d_name);
		huge.have_free[i] = read_u64_file(path, &huge.free[i]);
		huge.n++;
	}
	closedir(d);
}

/* huge_<size>_total / huge_<size>_free. */
static void rec_hugepages(struct record *r)
{
	for (unsigned i = 0; i < huge.n; i++) {
		char key[48];

		snprintf(key, sizeof(key), "huge_%s_total", huge.unit[i]);
		if (huge.have_total[i])
			rec_u64(r, key, huge.total[i]);
		snprintf(key, sizeof(key), "huge_%s_free", huge.unit[i]);
		if (huge.have_free[i])
			rec_u64(r, key, huge.free[i]);
	}
}

/* The machine's SMBIOS system and board strings as Linux exports them (product_serial and
 * board_serial are readable by root only: without them the serial is "none"). */
#define DMI_SYSFS "/sys/class/dmi/id"

static void emit_dmi(const char *kind, const char *prefix_vendor, const char *prefix)
{
	char path[128], maker[128], product[128], version[128], serial[128];
	struct ident_strings s = { maker, product, version, serial };
	bool any;

	snprintf(path, sizeof(path), DMI_SYSFS "/%s", prefix_vendor);
	any = read_line(path, maker, sizeof(maker));
	snprintf(path, sizeof(path), DMI_SYSFS "/%s_name", prefix);
	any |= read_line(path, product, sizeof(product));
	snprintf(path, sizeof(path), DMI_SYSFS "/%s_version", prefix);
	any |= read_line(path, version, sizeof(version));
	snprintf(path, sizeof(path), DMI_SYSFS "/%s_serial", prefix);
	any |= read_line(path, serial, sizeof(serial));
	facts_emit_ident(kind, "dmi_sysfs", any ? &s : 0, "no readable " DMI_SYSFS);
}

void facts_emit_dmi(void)
{
	emit_dmi("system", "sys_vendor", "product");
	emit_dmi("board", "board_vendor", "board");
}

void facts_emit_os(const struct hosted_pin *pin, bool mlocked, const char *mlock_err)
{
	struct record *r = emit_start("plat");
	struct utsname u;
	char buf[256], path[256];
	const char *tsc_source;
	uint64_t tsc_khz = facts_kernel_tsc_khz(&tsc_source);

	rec_str(r, "kind", "os");
	if (uname(&u) == 0) {
		rec_str(r, "sysname", u.sysname);
		rec_str(r, "release", u.release);
		rec_str(r, "machine", u.machine);
		rec_str(r, "kversion", u.version);
	}
	rec_i64(r, "cpu", pin->cpu);
	rec_bool(r, "pinned", pin->pinned);
	rec_str(r, "cpu_source", pin->source);
	rec_str(r, "cpus_allowed", pin->allowed);
	rec_sysfs(r, "cpus_online", CPU_SYSFS "/online");
	rec_sysfs(r, "isolated", CPU_SYSFS "/isolated");
	rec_sysfs(r, "nohz_full", CPU_SYSFS "/nohz_full");
	rec_sysfs(r, "smt", CPU_SYSFS "/smt/control");
	snprintf(path, sizeof(path), CPU_SYSFS "/cpu%d/cpufreq/scaling_governor", pin->cpu);
	rec_sysfs(r, "governor", path);
	rec_cmdline_hints(r);
	rec_bool(r, "mlocked", mlocked);
	rec_str(r, "mlock_err", mlock_err);
	sysfs_choice(THP_SYSFS "/enabled", buf, sizeof(buf));
	rec_str(r, "thp", buf);
	sysfs_choice(THP_SYSFS "/defrag", buf, sizeof(buf));
	rec_str(r, "thp_defrag", buf);
	rec_hugepages(r);
	facts_clocksource(buf, sizeof(buf));
	rec_str(r, "clocksource", buf);
	rec_u64(r, "tsc_khz", tsc_khz);
	rec_str(r, "tsc_khz_source", tsc_source);
	rec_str(r, "ucode_os", cpuinfo_microcode(pin->cpu, buf, sizeof(buf)) ? buf : "unknown");
	if (rec_overflowed(r))
		fprintf(stderr, "baremetric: plat kind=os did not fit in one record; fields were cut\n");
	emit_finish();
}

/* "48K" -> 49152; plain numbers are bytes. */
static bool parse_size(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s)
		return false;
	switch (*end) {
	case 'K': v <<= 10; break;
	case 'M': v <<= 20; break;
	case 'G': v <<= 30; break;
	case '\0': break;
	default: return false;
	}
	*out = v;
	return true;
}

static const char *cache_type(const char *sysfs_type)
{
	if (str_eq(sysfs_type, "Data"))
		return "data";
	if (str_eq(sysfs_type, "Instruction"))
		return "inst";
	if (str_eq(sysfs_type, "Unified"))
		return "unified";
	return "unknown";
}

unsigned facts_emit_cache_sysfs(int cpu)
{
	unsigned n = 0;

	if (cpu < 0)
		return 0;
	for (unsigned idx = 0;; idx++) {
		char dir[128], path[192], buf[256];
		uint64_t v;
		struct record *r;

		snprintf(dir, sizeof(dir), CPU_SYSFS "/cpu%d/cache/index%u", cpu, idx);
		snprintf(path, sizeof(path), "%s/level", dir);
		if (!read_u64_file(path, &v))
			break;
		r = emit_start("plat");
		rec_str(r, "kind", "cache_sysfs");
		rec_u64(r, "cpu", (uint64_t)cpu);
		rec_u64(r, "index", idx);
		rec_u64(r, "level", v);
		snprintf(path, sizeof(path), "%s/type", dir);
		rec_str(r, "type", read_line(path, buf, sizeof(buf)) ? cache_type(buf) : "unknown");
		snprintf(path, sizeof(path), "%s/size", dir);
		rec_u64(r, "size", read_line(path, buf, sizeof(buf)) && parse_size(buf, &v) ? v : 0);
		snprintf(path, sizeof(path), "%s/coherency_line_size", dir);
		rec_u64(r, "line", read_u64_file(path, &v) ? v : 0);
		snprintf(path, sizeof(path), "%s/ways_of_associativity", dir);
		rec_u64(r, "ways", read_u64_file(path, &v) ? v : 0);
		snprintf(path, sizeof(path), "%s/number_of_sets", dir);
		rec_u64(r, "sets", read_u64_file(path, &v) ? v : 0);
		snprintf(path, sizeof(path), "%s/shared_cpu_list", dir);
		rec_str(r, "shared_cpu_list", read_line(path, buf, sizeof(buf)) && buf[0] ? buf : "unknown");
		emit_finish();
		n++;
	}
	return n;
}

void facts_emit_alloc(const struct hosted_arena *a)
{
	struct record *r = emit_start("plat");

	rec_str(r, "kind", "alloc");
	rec_u64(r, "arena", a->size);
	rec_hex(r, "base", (uint64_t)(uintptr_t)a->base);
	rec_u64(r, "requested", a->requested);
	rec_u64(r, "exec_arena", a->exec_size);
	rec_str(r, "page", a->size ? a->page : "none");
	rec_str(r, "page_effective", hosted_arena_page(a) ? hosted_arena_page(a) : "none");
	rec_str(r, "hugetlb", a->hugetlb);
	if (a->thp_known)
		rec_u64(r, "thp_bytes", a->thp_bytes);
	else
		rec_str(r, "thp_bytes", str_eq(a->page, "2M") ? "0" : "unknown");
	rec_u64(r, "prefault_us", a->prefault_ns / 1000);
	emit_finish();
}
