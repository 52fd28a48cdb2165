/* The hosted (Linux user-space) platform: what main.c gathers about the process and the OS before
 * the record stream starts (pinning, the arena, memory locking), and the OS facts it emits as
 * `plat` records (kind=os, cache_sysfs, alloc). */
#ifndef HOSTED_HOSTED_H
#define HOSTED_HOSTED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/emit.h"

#define HOSTED_MAX_MSGS 32
#define HOSTED_MSG_LEN 240

/* Messages gathered before the stream exists (config warnings, setup problems), emitted after
 * `begin` in the order they came. */
struct hosted_msgs {
	unsigned count, dropped;
	enum msg_level level[HOSTED_MAX_MSGS];
	char text[HOSTED_MAX_MSGS][HOSTED_MSG_LEN];
};

void msgs_add(struct hosted_msgs *m, enum msg_level level, const char *a, const char *b, const char *c);
void msgs_emit(const struct hosted_msgs *m);

/* The CPU the process runs on. */
struct hosted_pin {
	int cpu;             /* -1 if nothing could be determined */
	bool pinned;         /* sched_setaffinity to that one CPU succeeded */
	char allowed[128];   /* the affinity set we started with, as a cpu list ("0-3,6") */
	const char *source;  /* "env" (BAREMETRIC_CPU) or "default" (last allowed CPU) */
};

/* Pin to BAREMETRIC_CPU if set and allowed, else to the last CPU of the allowed set. */
void hosted_pin(struct hosted_pin *pin, struct hosted_msgs *msgs);
/* After hosted_pin and the TSC calibration: one pinned worker thread per other CPU the process
 * started with (option smp=0: none), behind the arch/smp.h interface. Returns the CPUs online. */
unsigned hosted_smp_start(const struct hosted_pin *pin, bool enabled, uint64_t counter_hz);

struct hosted_arena {
	void *base;
	size_t size;           /* bytes mapped (0 = no arena) */
	uint64_t requested;    /* bytes asked for (arena_mb) */
	const char *page;      /* "2M" (hugetlb), "4K-thp" (MADV_HUGEPAGE accepted), "4K" */
	char hugetlb[32];      /* "ok" or why MAP_HUGETLB failed (errno name) */
	uint64_t thp_bytes;    /* AnonHugePages of the mapping after pre-faulting (smaps) */
	bool thp_known;
	uint64_t prefault_ns;
	void *exec_base;       /* executable memory for generated code (I-cache fill chain) */
	size_t exec_size;      /* 0 = the kernel refused an executable mapping */
};

/* The page size mapping the arena in the protocol's terms ("2M", "4K", "unknown" when THP backs
 * only part of it), or NULL without an arena: what probes put in their `page` parameter. */
const char *hosted_arena_page(const struct hosted_arena *a);

/* Map arena_mb MiB (halving down to 4 MiB on failure), 2M hugetlb first, else a 2M-aligned normal
 * mapping with MADV_HUGEPAGE; every page touched. Also maps HOSTED_EXEC_ARENA_MB of read-write-
 * execute memory for generated code. */
#define HOSTED_EXEC_ARENA_MB 4
void hosted_arena_map(struct hosted_arena *a, uint64_t arena_mb, struct hosted_msgs *msgs);

/* mlockall(MCL_CURRENT | MCL_FUTURE); false (with a warning) when not permitted. */
bool hosted_lock_memory(struct hosted_msgs *msgs, char *err, size_t cap);

/* Read the huge-page pools now (before the arena is mapped); facts_emit_os reports this state. */
void facts_snapshot_hugepages(void);
/* plat kind=os: kernel, pinning, isolation hints, memory locking, huge pages (as snapshotted),
 * clock source, the kernel's TSC rate, microcode as /proc/cpuinfo gives it. */
void facts_emit_os(const struct hosted_pin *pin, bool mlocked, const char *mlock_err);
/* plat kind=system and kind=board from /sys/class/dmi/id (bench/facts/ident.h). */
void facts_emit_dmi(void);
/* plat kind=cache_sysfs, one per /sys/devices/system/cpu/cpuN/cache/index*; returns how many. */
unsigned facts_emit_cache_sysfs(int cpu);
/* plat kind=alloc. */
void facts_emit_alloc(const struct hosted_arena *a);

/* The kernel's TSC rate in kHz and where it came from ("sysfs", "kmsg_refined", "kmsg_detected");
 * 0 / "none" when not readable (the kernel log needs root or dmesg_restrict=0). Read once. */
uint64_t facts_kernel_tsc_khz(const char **source);
/* Current clock source ("tsc", "kvm-clock", ...) into buf; "unknown" when unreadable. */
void facts_clocksource(char *buf, size_t cap);

#endif
