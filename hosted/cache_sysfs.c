/* The kernel's cache description as cache_desc entries (see cache_sysfs.h). Sizes in sysfs are
 * "<n>K" or "<n>M" (the kernel's cacheinfo prints KiB); a field that is missing or unreadable stays
 * 0, and a size that is not line x ways x sets keeps the size the kernel gave (its cacheinfo may
 * come from the device tree or ACPI PPTT, not from the cache's own registers). */
#include "hosted/cache_sysfs.h"

#include <stdio.h>
#include <stdlib.h>

#include "hosted/text_file.h"
#include "lib/fmt.h"

#define CPU_SYSFS "/sys/devices/system/cpu"
#define KIB 1024ull

static bool read_num(const char *dir, const char *name, uint64_t *v)
{
	char path[192], buf[64], *end;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (!read_line(path, buf, sizeof(buf)) || !buf[0])
		return false;
	*v = strtoull(buf, &end, 10);
	if (end == buf)
		return false;
	if (*end == 'K')
		*v *= KIB;
	else if (*end == 'M')
		*v *= KIB * KIB;
	return true;
}

/* How many CPUs a shared_cpu_list ("0-3,8") names; 0 when unreadable. */
static unsigned count_list(const char *dir)
{
	char path[192], buf[256];
	const char *p = buf;
	unsigned n = 0;

	snprintf(path, sizeof(path), "%s/shared_cpu_list", dir);
	if (!read_line(path, buf, sizeof(buf)))
		return 0;
	while (*p >= '0' && *p <= '9') {
		char *end;
		unsigned long a = strtoul(p, &end, 10), b = a;

		if (*end == '-')
			b = strtoul(end + 1, &end, 10);
		n += b >= a ? (unsigned)(b - a + 1) : 0;
		p = *end == ',' ? end + 1 : end;
	}
	return n;
}

static enum cache_type type_of(const char *dir)
{
	char path[192], buf[32];

	snprintf(path, sizeof(path), "%s/type", dir);
	if (!read_line(path, buf, sizeof(buf)))
		return CACHE_UNIFIED;
	return str_eq(buf, "Data") ? CACHE_DATA : str_eq(buf, "Instruction") ? CACHE_INST : CACHE_UNIFIED;
}

unsigned hosted_caches_from_sysfs(int cpu, struct cpu_info *ci)
{
	unsigned added = 0;

	if (cpu < 0)
		return 0;
	for (unsigned idx = 0; ci->num_caches < CPU_MAX_CACHES; idx++) {
		char dir[128];
		uint64_t level, v;
		struct cache_desc *c;

		snprintf(dir, sizeof(dir), CPU_SYSFS "/cpu%d/cache/index%u", cpu, idx);
		if (!read_num(dir, "level", &level))
			break;
		c = &ci->caches[ci->num_caches++];
		*c = (struct cache_desc){ .level = (unsigned)level, .type = type_of(dir), .source = "sysfs" };
		c->size = read_num(dir, "size", &v) ? v : 0;
		c->line = read_num(dir, "coherency_line_size", &v) ? (unsigned)v : 0;
		c->ways = read_num(dir, "ways_of_associativity", &v) ? (unsigned)v : 0;
		c->sets = read_num(dir, "number_of_sets", &v) ? (unsigned)v : 0;
		c->shared_by = count_list(dir);
		if (!c->size)
			c->geometry_unknown = "the kernel's cacheinfo gives no size";
		added++;
	}
	return added;
}

/* The cache of ci at this level and type, or a new one; NULL when full. */
static struct cache_desc *slot(struct cpu_info *ci, unsigned level, enum cache_type t)
{
	for (unsigned i = 0; i < ci->num_caches; i++)
		if (ci->caches[i].level == level && ci->caches[i].type == t)
			return &ci->caches[i];
	return ci->num_caches < CPU_MAX_CACHES ? &ci->caches[ci->num_caches++] : 0;
}

unsigned hosted_caches_fill_from_sysfs(int cpu, struct cpu_info *ci)
{
	struct cpu_info kernel = { 0 };
	unsigned taken = 0;

	(void)hosted_caches_from_sysfs(cpu, &kernel);
	for (unsigned i = 0; i < kernel.num_caches; i++) {
		const struct cache_desc *k = &kernel.caches[i];
		struct cache_desc *d;

		if (k->geometry_unknown || !k->line || k->size % k->line)
			continue; /* nothing a probe could size from */
		d = slot(ci, k->level, k->type);
		if (!d || (d->size && !d->geometry_unknown && d->source))
			continue; /* CPUID's own description stands */
		*d = *k;
		taken++;
	}
	return taken;
}
