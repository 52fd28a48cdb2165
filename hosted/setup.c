/* Process setup for the hosted build: pinning, the sample arena, memory locking (see hosted.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "hosted/hosted.h"
#include "hosted/smp.h"
#include "hosted/text_file.h"
#include "lib/fmt.h"

#define MIB (1024ull * 1024)
#define HUGE_2M (2 * MIB)
#define SMALL_PAGE 4096u
#define ARENA_MIN_MB 4
#ifndef MAP_HUGE_SHIFT
#define MAP_HUGE_SHIFT 26
#endif
#define MAP_HUGE_2M_FLAG (21 << MAP_HUGE_SHIFT)

void msgs_add(struct hosted_msgs *m, enum msg_level level, const char *a, const char *b, const char *c)
{
	struct sbuf sb;

	if (m->count >= HOSTED_MAX_MSGS) {
		m->dropped++;
		return;
	}
	sb_init(&sb, m->text[m->count], HOSTED_MSG_LEN);
	sb_puts(&sb, a);
	sb_puts(&sb, b ? b : "");
	sb_puts(&sb, c ? c : "");
	m->level[m->count++] = level;
	/* Problems also on stderr right away: the records may go to a file read only later. */
	if (level != MSG_INFO)
		fprintf(stderr, "baremetric: %s\n", m->text[m->count - 1]);
}

void msgs_emit(const struct hosted_msgs *m)
{
	for (unsigned i = 0; i < m->count; i++)
		emit_msg(m->level[i], m->text[i]);
	if (m->dropped)
		emit_msg(MSG_WARN, "more setup messages than could be kept; some were dropped");
}

/* "0-3,6" for a cpu set. */
static void cpulist(const cpu_set_t *set, char *buf, size_t cap)
{
	struct sbuf sb;
	bool first = true;

	sb_init(&sb, buf, cap);
	for (int c = 0; c < CPU_SETSIZE; c++) {
		int e = c;

		if (!CPU_ISSET(c, set))
			continue;
		while (e + 1 < CPU_SETSIZE && CPU_ISSET(e + 1, set))
			e++;
		if (!first)
			sb_putc(&sb, ',');
		first = false;
		sb_u64(&sb, (uint64_t)c);
		if (e > c) {
			sb_putc(&sb, '-');
			sb_u64(&sb, (uint64_t)e);
		}
		c = e;
	}
	if (first)
		sb_puts(&sb, "none");
}

/* The affinity the process started with: the CPUs the SMP worker threads may use. */
static cpu_set_t allowed;
static bool allowed_valid;

void hosted_pin(struct hosted_pin *pin, struct hosted_msgs *msgs)
{
	cpu_set_t one;
	const char *want = getenv("BAREMETRIC_CPU");
	int last = -1;

	pin->cpu = sched_getcpu();
	pin->pinned = false;
	pin->source = "default";
	str_copy(pin->allowed, "unknown", sizeof(pin->allowed));
	if (sched_getaffinity(0, sizeof(allowed), &allowed) != 0) {
		msgs_add(msgs, MSG_WARN, "cannot read the CPU affinity (", strerror(errno), "): not pinned");
		return;
	}
	allowed_valid = true;
	cpulist(&allowed, pin->allowed, sizeof(pin->allowed));
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &allowed))
			last = c;
	if (last < 0)
		return;
	pin->cpu = last;
	if (want && *want) {
		uint64_t v;

		if (!parse_u64(want, &v) || v >= CPU_SETSIZE || !CPU_ISSET((int)v, &allowed))
			msgs_add(msgs, MSG_WARN, "BAREMETRIC_CPU=", want,
				 " is not a CPU this process may run on; using the last allowed CPU");
		else {
			pin->cpu = (int)v;
			pin->source = "env";
		}
	}
	CPU_ZERO(&one);
	CPU_SET(pin->cpu, &one);
	if (sched_setaffinity(0, sizeof(one), &one) != 0) {
		msgs_add(msgs, MSG_WARN, "cannot pin to one CPU (", strerror(errno), "): samples may migrate");
		pin->cpu = sched_getcpu();
		return;
	}
	pin->pinned = true;
	sched_yield(); /* be running on the new CPU before anything is measured */
}

unsigned hosted_smp_start(const struct hosted_pin *pin, bool enabled, uint64_t counter_hz)
{
	if (!enabled) {
		smp_start_none("disabled by option smp=0");
		return 1;
	}
	if (!allowed_valid || !pin->pinned) {
		smp_start_none("the main thread is not pinned: no per-CPU threads");
		return 1;
	}
	return smp_hosted_start(pin->cpu, &allowed, SMP_MAX_CPUS, counter_hz);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* AnonHugePages of the mapping that starts at base, from /proc/self/smaps. */
static bool smaps_thp_bytes(const void *base, uint64_t *bytes)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	char line[512];
	bool in = false, found = false;

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		unsigned long lo, hi, kb;

		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, '-') < strchr(line, ' ')) {
			in = lo == (unsigned long)(uintptr_t)base;
			continue;
		}
		if (in && sscanf(line, "AnonHugePages: %lu kB", &kb) == 1) {
			*bytes = (uint64_t)kb * 1024;
			found = true;
			break;
		}
	}
	fclose(f);
	return found;
}

/* A normal mapping of `size` bytes aligned to 2 MiB, so THP can back all of it. */
static void *map_aligned(size_t size)
{
	size_t span = size + HUGE_2M;
	uint8_t *p = mmap(0, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uintptr_t start, end;

	if (p == MAP_FAILED)
		return 0;
	start = ((uintptr_t)p + HUGE_2M - 1) & ~(uintptr_t)(HUGE_2M - 1);
	end = start + size;
	if (start > (uintptr_t)p)
		munmap(p, start - (uintptr_t)p);
	if ((uintptr_t)p + span > end)
		munmap((void *)end, (uintptr_t)p + span - end);
	return (void *)start;
}

/* Generated code needs memory that is writable and executable at once (it is written by the
 * probe right before it runs); a kernel that enforces W^X refuses it and the I-cache fill skips. */
static void map_exec(struct hosted_arena *a, struct hosted_msgs *msgs)
{
	size_t size = HOSTED_EXEC_ARENA_MB * MIB;
	void *p = mmap(0, size, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		msgs_add(msgs, MSG_WARN, "no executable memory for generated code (", strerror(errno),
			 "): the instruction-cache fill will be skipped");
		return;
	}
	for (size_t off = 0; off < size; off += SMALL_PAGE)
		((volatile uint8_t *)p)[off] = 0;
	a->exec_base = p;
	a->exec_size = size;
}

void hosted_arena_map(struct hosted_arena *a, uint64_t arena_mb, struct hosted_msgs *msgs)
{
	uint64_t mb = arena_mb;
	char thp_mode[128] = "";

	memset(a, 0, sizeof(*a));
	a->requested = arena_mb * MIB;
	a->page = "4K";
	str_copy(a->hugetlb, "not tried", sizeof(a->hugetlb));
	read_line("/sys/kernel/mm/transparent_hugepage/enabled", thp_mode, sizeof(thp_mode));
	for (; mb >= ARENA_MIN_MB; mb /= 2) {
		size_t size = (size_t)((mb * MIB + HUGE_2M - 1) & ~(HUGE_2M - 1));
		void *p = mmap(0, size, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB | MAP_HUGE_2M_FLAG, -1, 0);

		if (p != MAP_FAILED) {
			a->base = p;
			a->size = size;
			a->page = "2M";
			str_copy(a->hugetlb, "ok", sizeof(a->hugetlb));
			break;
		}
		str_copy(a->hugetlb, strerrorname_np(errno) ? strerrorname_np(errno) : "error",
			 sizeof(a->hugetlb));
		p = map_aligned(size);
		if (!p)
			continue;
		a->base = p;
		a->size = size;
		/* In "never" mode the advice is accepted but changes nothing. */
		if (madvise(p, size, MADV_HUGEPAGE) == 0 && !strstr(thp_mode, "[never]"))
			a->page = "4K-thp";
		break;
	}
	if (!a->base) {
		msgs_add(msgs, MSG_ERROR, "could not map a sample arena: probes will be skipped", 0, 0);
		return;
	}
	if (mb < arena_mb)
		msgs_add(msgs, MSG_WARN, "sample arena smaller than arena_mb: the mapping was refused", 0, 0);
	/* Write every small page now, so no sample pays for a first-touch page fault. */
	{
		uint64_t t0 = now_ns();
		volatile uint8_t *b = a->base;

		for (size_t off = 0; off < a->size; off += SMALL_PAGE)
			b[off] = 0;
		a->prefault_ns = now_ns() - t0;
	}
	if (!str_eq(a->page, "2M"))
		a->thp_known = smaps_thp_bytes(a->base, &a->thp_bytes);
	map_exec(a, msgs);
}

const char *hosted_arena_page(const struct hosted_arena *a)
{
	if (!a->size)
		return 0;
	if (str_eq(a->page, "2M") || (a->thp_known && a->thp_bytes == a->size))
		return "2M";
	if (str_eq(a->page, "4K") || (a->thp_known && a->thp_bytes == 0))
		return "4K";
	return "unknown";
}

bool hosted_lock_memory(struct hosted_msgs *msgs, char *err, size_t cap)
{
	if (mlockall(MCL_CURRENT | MCL_FUTURE) == 0) {
		str_copy(err, "none", cap);
		return true;
	}
	str_copy(err, strerrorname_np(errno) ? strerrorname_np(errno) : "error", cap);
	msgs_add(msgs, MSG_WARN, "memory not locked (mlockall: ", strerror(errno),
		 "): pages may be reclaimed or migrated during the run (run as root or raise RLIMIT_MEMLOCK)");
	return false;
}
