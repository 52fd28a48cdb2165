/* The kernel's cache description (/sys/devices/system/cpu/cpuN/cache/indexI) in the hosted build:
 * reported as it is (plat kind=cache_sysfs), and the fallback for the levels CPUID cannot
 * describe. CPUID stays the first source, the same code as the firmware's, so a hosted run checks
 * the firmware's discovery; where it has no level or judged one implausible (a hypervisor's,
 * arch/x86_64/cache_judge.c) and the kernel describes that level, the kernel's values are taken
 * with source=sysfs. Where sysfs has no cache directory (a hypervisor leaving 0x8000001D empty:
 * the kernel's cacheinfo finds nothing either), CPUID's description is all there is. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "hosted/hosted.h"
#include "hosted/text_file.h"
#include "lib/emit.h"
#include "lib/fmt.h"

#define CACHE_SYSFS "/sys/devices/system/cpu/cpu%d/cache/index%u"
#define MAX_INDEX 16

/* One index directory. */
struct sysfs_cache {
	unsigned level;
	const char *type;           /* "data", "inst", "unified", "unknown" */
	uint64_t size, line, ways, sets;
	char shared[256];           /* shared_cpu_list, "unknown" when absent */
};

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

static uint64_t read_num(const char *dir, const char *name, bool size)
{
	char path[256], buf[64];
	uint64_t v = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (!read_line(path, buf, sizeof(buf)))
		return 0;
	if (size)
		return parse_size(buf, &v) ? v : 0;
	return parse_u64(buf, &v) ? v : 0;
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

/* index `idx` of `cpu`; false when there is none (the end of the list). */
static bool read_index(int cpu, unsigned idx, struct sysfs_cache *c)
{
	char dir[128], path[192], buf[64];

	snprintf(dir, sizeof(dir), CACHE_SYSFS, cpu, idx);
	c->level = (unsigned)read_num(dir, "level", false);
	if (!c->level)
		return false;
	snprintf(path, sizeof(path), "%s/type", dir);
	c->type = read_line(path, buf, sizeof(buf)) ? cache_type(buf) : "unknown";
	c->size = read_num(dir, "size", true);
	c->line = read_num(dir, "coherency_line_size", false);
	c->ways = read_num(dir, "ways_of_associativity", false);
	c->sets = read_num(dir, "number_of_sets", false);
	snprintf(path, sizeof(path), "%s/shared_cpu_list", dir);
	if (!read_line(path, c->shared, sizeof(c->shared)) || !c->shared[0])
		str_copy(c->shared, "unknown", sizeof(c->shared));
	return true;
}

unsigned facts_emit_cache_sysfs(int cpu)
{
	struct sysfs_cache c;
	unsigned n = 0;

	for (unsigned idx = 0; cpu >= 0 && idx < MAX_INDEX && read_index(cpu, idx, &c); idx++, n++) {
		struct record *r = emit_start("plat");

		rec_str(r, "kind", "cache_sysfs");
		rec_u64(r, "cpu", (uint64_t)cpu);
		rec_u64(r, "index", idx);
		rec_u64(r, "level", c.level);
		rec_str(r, "type", c.type);
		rec_u64(r, "size", c.size);
		rec_u64(r, "line", c.line);
		rec_u64(r, "ways", c.ways);
		rec_u64(r, "sets", c.sets);
		rec_str(r, "shared_cpu_list", c.shared);
		emit_finish();
	}
	return n;
}

/* CPUs in a list such as "0-3,8,10-11"; 0 when it cannot be read. */
unsigned facts_cpu_list_count(const char *list)
{
	unsigned n = 0;
	const char *p = list;

	while (*p) {
		char *end;
		unsigned long a = strtoul(p, &end, 10), b = a;

		if (end == p)
			return 0;
		p = end;
		if (*p == '-') {
			b = strtoul(p + 1, &end, 10);
			if (end == p + 1 || b < a)
				return 0;
			p = end;
		}
		n += (unsigned)(b - a + 1);
		if (*p == ',')
			p++;
		else if (*p)
			return 0;
	}
	return n;
}

static enum cache_type desc_type(const char *t)
{
	return str_eq(t, "data") ? CACHE_DATA : str_eq(t, "inst") ? CACHE_INST : CACHE_UNIFIED;
}

/* The cache of ci at this level and type, or a new one; NULL when full. */
static struct cache_desc *slot(struct cpu_info *ci, unsigned level, enum cache_type t)
{
	for (unsigned i = 0; i < ci->num_caches; i++)
		if (ci->caches[i].level == level && ci->caches[i].type == t)
			return &ci->caches[i];
	return ci->num_caches < CPU_MAX_CACHES ? &ci->caches[ci->num_caches++] : 0;
}

unsigned facts_caches_fill_from_sysfs(int cpu, struct cpu_info *ci)
{
	struct sysfs_cache c;
	unsigned taken = 0;

	for (unsigned idx = 0; cpu >= 0 && idx < MAX_INDEX && read_index(cpu, idx, &c); idx++) {
		struct cache_desc *d;

		if (str_eq(c.type, "unknown") || !c.size || !c.line || c.size % c.line)
			continue; /* nothing a probe could use */
		d = slot(ci, c.level, desc_type(c.type));
		if (!d || (d->size && !d->geometry_unknown))
			continue; /* CPUID's own description stands */
		*d = (struct cache_desc){ .level = c.level, .type = desc_type(c.type), .size = c.size,
					  .line = (unsigned)c.line, .ways = (unsigned)c.ways,
					  .sets = (unsigned)c.sets, .shared_by = facts_cpu_list_count(c.shared),
					  .source = "sysfs", .reported_size = d->reported_size };
		taken++;
	}
	return taken;
}
