/* Tests for drivers/fw/smbios.c on synthetic entry points and structure tables built in memory:
 * SMBIOS 3 / 2.x / legacy entry points, checksum and anchor rejection, type 17 decoding across
 * structure versions, and corrupt or truncated tables. Tables that must not be over-read are
 * placed right before an inaccessible page, so an over-read crashes the test. */
#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS under -std=c11 */
#endif
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#include "drivers/fw/smbios.h"
#include "test.h"

/* ---- table builder ---- */

struct tbuf {
	uint8_t b[2048];
	size_t n;
};

static void put8(struct tbuf *t, uint8_t v)
{
	if (t->n < sizeof(t->b))
		t->b[t->n++] = v;
}

static void put_bytes(struct tbuf *t, const void *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		put8(t, ((const uint8_t *)p)[i]);
}

static void le16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static void le32(uint8_t *p, uint32_t v)
{
	le16(p, (uint16_t)v);
	le16(p + 2, (uint16_t)(v >> 16));
}

static void le64(uint8_t *p, uint64_t v)
{
	le32(p, (uint32_t)v);
	le32(p + 4, (uint32_t)(v >> 32));
}

/* A type 17 structure: the full SMBIOS 3.3 layout (0x5C bytes) is filled in, then only the
 * first `len` bytes are emitted, which is exactly what an older-version structure looks like. */
struct md {
	uint8_t len;
	uint16_t handle, total_w, data_w, size;
	uint8_t type;
	uint16_t speed, conf;
	uint32_t ext_size, ext_speed, ext_conf;
	const char *loc, *bank, *mfr, *part;
};

#define MD_LEN_2_1 0x15
#define MD_LEN_2_3 0x1B
#define MD_LEN_2_7 0x22
#define MD_LEN_3_3 0x5C
#define TYPE_DDR4 0x1A
#define TYPE_DDR5 0x22

static void put_strings(struct tbuf *t, const char *const *strs, int nstrs)
{
	int any = 0;

	for (int i = 0; i < nstrs; i++) {
		if (strs[i]) {
			put_bytes(t, strs[i], strlen(strs[i]) + 1);
			any = 1;
		}
	}
	if (!any)
		put8(t, 0);
	put8(t, 0);
}

static void add_memdev(struct tbuf *t, const struct md *m)
{
	uint8_t f[MD_LEN_3_3] = { 0 };
	const char *strs[4] = { m->loc, m->bank, m->mfr, m->part };
	const uint8_t str_off[4] = { 0x10, 0x11, 0x17, 0x1A };
	uint8_t next_str = 1;

	f[0] = 17;
	f[1] = m->len;
	le16(f + 0x02, m->handle);
	le16(f + 0x04, 0x1000);  /* physical memory array handle */
	le16(f + 0x06, 0xFFFE);  /* no error information */
	le16(f + 0x08, m->total_w);
	le16(f + 0x0A, m->data_w);
	le16(f + 0x0C, m->size);
	f[0x0E] = 0x09;          /* DIMM */
	f[0x12] = m->type;
	le16(f + 0x15, m->speed);
	le32(f + 0x1C, m->ext_size);
	le16(f + 0x20, m->conf);
	le32(f + 0x54, m->ext_speed);
	le32(f + 0x58, m->ext_conf);
	for (int i = 0; i < 4; i++)
		if (strs[i])
			f[str_off[i]] = next_str++;
	put_bytes(t, f, m->len);
	put_strings(t, strs, 4);
}

static void add_other(struct tbuf *t, uint8_t type, uint16_t handle, const char *str)
{
	uint8_t f[8] = { type, sizeof(f), 0, 0, 1, 2, 3, 4 };
	const char *strs[1] = { str };

	le16(f + 2, handle);
	put_bytes(t, f, sizeof(f));
	put_strings(t, strs, 1);
}

static void add_end(struct tbuf *t)
{
	const uint8_t end[] = { 127, 4, 0xFF, 0xFE, 0, 0 };

	put_bytes(t, end, sizeof(end));
}

static uint8_t checksum_byte(const uint8_t *p, size_t n, size_t csum_off)
{
	uint8_t sum = 0;

	for (size_t i = 0; i < n; i++)
		if (i != csum_off)
			sum = (uint8_t)(sum + p[i]);
	return (uint8_t)(0x100 - sum);
}

static void make_sm3(uint8_t ep[0x18], const void *table, uint32_t max_size)
{
	memset(ep, 0, 0x18);
	memcpy(ep, "_SM3_", 5);
	ep[0x06] = 0x18;
	ep[0x07] = 3;
	ep[0x08] = 3;
	ep[0x0A] = 1;
	le32(ep + 0x0C, max_size);
	le64(ep + 0x10, (uint64_t)(uintptr_t)table);
	ep[0x05] = checksum_byte(ep, 0x18, 0x05);
}

static void fix_sm2_checksums(uint8_t ep[0x1F])
{
	ep[0x15] = checksum_byte(ep + 0x10, 0x0F, 0x05);
	ep[0x04] = checksum_byte(ep, 0x1F, 0x04);
}

/* 2.x entry points hold a 32-bit table address: the table must live below 4 GiB. */
static void make_sm2(uint8_t ep[0x1F], uint32_t addr, uint16_t len)
{
	memset(ep, 0, 0x1F);
	memcpy(ep, "_SM_", 4);
	ep[0x05] = 0x1F;
	ep[0x06] = 2;
	ep[0x07] = 8;
	le16(ep + 0x08, 0x5C);
	memcpy(ep + 0x10, "_DMI_", 5);
	le16(ep + 0x16, len);
	le32(ep + 0x18, addr);
	le16(ep + 0x1C, 3);
	ep[0x1E] = 0x28;
	fix_sm2_checksums(ep);
}

static void make_legacy_dmi(uint8_t ep[0x0F], uint32_t addr, uint16_t len)
{
	memset(ep, 0, 0x0F);
	memcpy(ep, "_DMI_", 5);
	le16(ep + 0x06, len);
	le32(ep + 0x08, addr);
	le16(ep + 0x0C, 3);
	ep[0x0E] = 0x21;
	ep[0x05] = checksum_byte(ep, 0x0F, 0x05);
}

/* An info as smbios_parse_entry would produce it, for tables that sit above 4 GiB on the host. */
static struct smbios_info info_for(const void *table, uint32_t len)
{
	struct smbios_info info = { 1, 3, 3, (uint64_t)(uintptr_t)table, len, 1 };

	return info;
}

/* ---- guarded buffers: [data][PROT_NONE page] ---- */

struct guarded {
	uint8_t *map;
	size_t map_len;
	uint8_t *data;
};

static int guarded_copy(struct guarded *g, const void *src, size_t n)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	g->map_len = 2 * page;
	g->map = mmap(NULL, g->map_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (g->map == MAP_FAILED || n > page)
		return -1;
	if (mprotect(g->map + page, page, PROT_NONE) != 0)
		return -1;
	g->data = g->map + page - n;
	memcpy(g->data, src, n);
	return 0;
}

static void guarded_free(struct guarded *g)
{
	munmap(g->map, g->map_len);
}

/* ---- collecting callback ---- */

#define MAX_DEVS 8

struct collect {
	int n;
	struct smbios_memdev dev[MAX_DEVS];
};

static void collect_cb(const struct smbios_memdev *dev, void *ctx)
{
	struct collect *c = ctx;

	if (c->n < MAX_DEVS)
		c->dev[c->n] = *dev;
	c->n++;
}

/* Two DDR4 DIMMs and one empty slot, as a typical SMBIOS 3.3 table has them. */
static void build_typical(struct tbuf *t)
{
	const struct md a = { MD_LEN_3_3, 0x1100, 72, 64, 16384, TYPE_DDR4, 3200, 2933, 0, 0, 0,
			      "DIMM_A1", "BANK 0", "Samsung", "M393A2K43DB3-CWE    " };
	const struct md empty = { MD_LEN_3_3, 0x1101, 0xFFFF, 0xFFFF, 0, 0x02, 0, 0, 0, 0, 0,
				  "DIMM_A2", "BANK 0", NULL, NULL };
	const struct md b = { MD_LEN_3_3, 0x1102, 72, 64, 8192, TYPE_DDR4, 3200, 2933, 0, 0, 0,
			      "DIMM_B1", "BANK 1", "Micron", "18ASF1G72PDZ-3G2E1" };

	t->n = 0;
	add_other(t, 0, 0x0000, "BIOS vendor");
	add_other(t, 16, 0x1000, NULL);
	add_memdev(t, &a);
	add_memdev(t, &empty);
	add_other(t, 19, 0x1300, NULL);
	add_memdev(t, &b);
	add_end(t);
}

/* ---- entry points ---- */

static void test_entry_sm3(void)
{
	static uint8_t table[64];
	uint8_t ep[0x18];
	struct smbios_info info;

	make_sm3(ep, table, sizeof(table));
	CHECK_EQ_U64(smbios_parse_entry(ep, &info), 0);
	CHECK_EQ_U64(info.present, 1);
	CHECK_EQ_U64(info.major, 3);
	CHECK_EQ_U64(info.minor, 3);
	CHECK_EQ_U64(info.is_64bit_entry, 1);
	CHECK_EQ_U64(info.table_addr, (uintptr_t)table);
	CHECK_EQ_U64(info.table_len, sizeof(table));
}

static void test_entry_sm2(void)
{
	uint8_t ep[0x1F];
	struct smbios_info info;

	make_sm2(ep, 0x000F0000u, 0x0ABC);
	CHECK_EQ_U64(smbios_parse_entry(ep, &info), 0);
	CHECK_EQ_U64(info.present, 1);
	CHECK_EQ_U64(info.major, 2);
	CHECK_EQ_U64(info.minor, 8);
	CHECK_EQ_U64(info.is_64bit_entry, 0);
	CHECK_EQ_U64(info.table_addr, 0x000F0000u);
	CHECK_EQ_U64(info.table_len, 0x0ABC);

	/* SMBIOS 2.1 said the length is 0x1E; accept that too. */
	ep[0x05] = 0x1E;
	ep[0x04] = checksum_byte(ep, 0x1E, 0x04);
	CHECK_EQ_U64(smbios_parse_entry(ep, &info), 0);
}

static void test_entry_legacy_dmi(void)
{
	uint8_t ep[0x0F];
	struct smbios_info info;

	make_legacy_dmi(ep, 0x000E1000u, 0x0200);
	CHECK_EQ_U64(smbios_parse_entry(ep, &info), 0);
	CHECK_EQ_U64(info.major, 2);
	CHECK_EQ_U64(info.minor, 1);
	CHECK_EQ_U64(info.is_64bit_entry, 0);
	CHECK_EQ_U64(info.table_addr, 0x000E1000u);
	CHECK_EQ_U64(info.table_len, 0x0200);
}

static void test_entry_rejects(void)
{
	static uint8_t table[64];
	uint8_t ep3[0x18], ep2[0x1F], dmi[0x0F];
	struct smbios_info info;

	make_sm3(ep3, table, sizeof(table));
	ep3[0x10] ^= 0x40; /* address changed, checksum not updated */
	info.present = 1;
	CHECK_EQ_U64(smbios_parse_entry(ep3, &info), (uint64_t)SMBIOS_ERR_CHECKSUM);
	CHECK_EQ_U64(info.present, 0);

	make_sm3(ep3, table, sizeof(table));
	ep3[0x06] = 0x10; /* too short for the fields */
	ep3[0x05] = checksum_byte(ep3, 0x10, 0x05);
	CHECK_EQ_U64(smbios_parse_entry(ep3, &info), (uint64_t)SMBIOS_ERR_LENGTH);

	make_sm3(ep3, table, 0); /* valid checksum, empty table */
	CHECK_EQ_U64(smbios_parse_entry(ep3, &info), (uint64_t)SMBIOS_ERR_LENGTH);

	make_sm2(ep2, 0x000F0000u, 0x100);
	ep2[0x04] ^= 1; /* outer checksum */
	CHECK_EQ_U64(smbios_parse_entry(ep2, &info), (uint64_t)SMBIOS_ERR_CHECKSUM);

	make_sm2(ep2, 0x000F0000u, 0x100);
	ep2[0x18] ^= 1;                                    /* in the _DMI_ part ... */
	ep2[0x04] = checksum_byte(ep2, 0x1F, 0x04);        /* ... outer sum fixed, inner not */
	CHECK_EQ_U64(smbios_parse_entry(ep2, &info), (uint64_t)SMBIOS_ERR_CHECKSUM);

	make_sm2(ep2, 0x000F0000u, 0x100);
	ep2[0x10] = 'X'; /* intermediate anchor gone */
	fix_sm2_checksums(ep2);
	CHECK_EQ_U64(smbios_parse_entry(ep2, &info), (uint64_t)SMBIOS_ERR_ANCHOR);

	make_legacy_dmi(dmi, 0x000E1000u, 0x200);
	dmi[0x06] ^= 0x10;
	CHECK_EQ_U64(smbios_parse_entry(dmi, &info), (uint64_t)SMBIOS_ERR_CHECKSUM);

	memset(ep3, 0, sizeof(ep3));
	memcpy(ep3, "_SM2_", 5);
	CHECK_EQ_U64(smbios_parse_entry(ep3, &info), (uint64_t)SMBIOS_ERR_ANCHOR);
	CHECK_EQ_U64(smbios_parse_entry(NULL, &info), (uint64_t)SMBIOS_ERR_INVALID);
	CHECK_EQ_U64(smbios_parse_entry(ep3, NULL), (uint64_t)SMBIOS_ERR_INVALID);
	/* Every refusal has its reason in words. */
	for (int rc = SMBIOS_ERR_UNKNOWN; rc <= SMBIOS_ERR_INVALID; rc++)
		CHECK(smbios_err_reason(rc)[0] != '\0');
	CHECK_STR(smbios_err_reason(0), "");
	CHECK(strstr(smbios_err_reason(SMBIOS_ERR_CHECKSUM), "checksum") != NULL);
}

/* ---- memory devices ---- */

static void test_memdev_typical_sm3(void)
{
	static struct tbuf t;
	uint8_t ep[0x18];
	struct smbios_info info;
	struct collect c = { 0 };

	build_typical(&t);
	/* SMBIOS 3 gives a maximum size: the walk must end at type 127, not at max_size. A valid
	 * looking device after the end marker must not be reported. */
	{
		const struct md stray = { MD_LEN_3_3, 0x1199, 64, 64, 1024, TYPE_DDR4, 2400, 0, 0,
					  0, 0, "STRAY", NULL, NULL, NULL };
		add_memdev(&t, &stray);
	}
	make_sm3(ep, t.b, sizeof(t.b));
	CHECK_EQ_U64(smbios_parse_entry(ep, &info), 0);
	CHECK_EQ_U64(smbios_for_each_memdev(&info, collect_cb, &c), 3);
	CHECK_EQ_U64(c.n, 3);

	CHECK_EQ_U64(c.dev[0].handle, 0x1100);
	CHECK_STR(c.dev[0].locator, "DIMM_A1");
	CHECK_STR(c.dev[0].bank, "BANK 0");
	CHECK_EQ_U64(c.dev[0].size_bytes, 16384ull << 20);
	CHECK_EQ_U64(c.dev[0].size_unknown, 0);
	CHECK_EQ_U64(c.dev[0].type_code, TYPE_DDR4);
	CHECK_STR(smbios_mem_type_name(c.dev[0].type_code), "DDR4");
	CHECK_EQ_U64(c.dev[0].speed_mts, 3200);
	CHECK_EQ_U64(c.dev[0].conf_speed_mts, 2933);
	CHECK_EQ_U64(c.dev[0].data_width, 64);
	CHECK_EQ_U64(c.dev[0].total_width, 72);
	CHECK_STR(c.dev[0].manufacturer, "Samsung");
	CHECK_STR(c.dev[0].part, "M393A2K43DB3-CWE"); /* padding blanks trimmed */

	CHECK_EQ_U64(c.dev[1].handle, 0x1101);
	CHECK_STR(c.dev[1].locator, "DIMM_A2");
	CHECK_EQ_U64(c.dev[1].size_bytes, 0);
	CHECK_EQ_U64(smbios_memdev_populated(&c.dev[1]), 0);
	CHECK_EQ_U64(c.dev[1].data_width, 0);  /* 0xFFFF -> unknown */
	CHECK_EQ_U64(c.dev[1].total_width, 0);
	CHECK_STR(c.dev[1].manufacturer, "");
	CHECK_STR(c.dev[1].part, "");

	CHECK_EQ_U64(c.dev[2].handle, 0x1102);
	CHECK_STR(c.dev[2].locator, "DIMM_B1");
	CHECK_EQ_U64(c.dev[2].size_bytes, 8192ull << 20);
	CHECK_STR(c.dev[2].manufacturer, "Micron");
	CHECK_STR(c.dev[2].part, "18ASF1G72PDZ-3G2E1");

	/* A NULL callback still counts. */
	CHECK_EQ_U64(smbios_for_each_memdev(&info, NULL, NULL), 3);
}

static void test_memdev_sm2_exact_length(void)
{
	static struct tbuf t;
	uint8_t ep[0x1F];
	struct smbios_info info;
	struct collect c = { 0 };

	build_typical(&t);
	t.n -= 6; /* drop the end-of-table structure: 2.x tables are bounded by their length */

	/* The table address is 32-bit in a 2.x entry point; on the host the buffer may be above
	 * 4 GiB, so check the parse and walk separately. */
	make_sm2(ep, 0x000F0000u, (uint16_t)t.n);
	CHECK_EQ_U64(smbios_parse_entry(ep, &info), 0);
	CHECK_EQ_U64(info.table_len, t.n);
	info.table_addr = (uintptr_t)t.b;
	CHECK_EQ_U64(smbios_for_each_memdev(&info, collect_cb, &c), 3);
}

static void test_memdev_extended_fields(void)
{
	static struct tbuf t;
	struct smbios_info info;
	struct collect c = { 0 };
	const struct md big = { MD_LEN_3_3, 1, 80, 64, 0x7FFF, TYPE_DDR5, 0xFFFF, 0xFFFF,
				0x10000, 8800, 70000, "A", NULL, NULL, NULL };
	const struct md kib = { MD_LEN_3_3, 2, 64, 64, 0x8000 | 512, TYPE_DDR4, 2400, 0,
				0, 0, 0, "B", NULL, NULL, NULL };
	const struct md unknown_size = { MD_LEN_3_3, 3, 64, 64, 0xFFFF, TYPE_DDR4, 2400, 0,
					 0, 0, 0, "C", NULL, NULL, NULL };

	t.n = 0;
	add_memdev(&t, &big);
	add_memdev(&t, &kib);
	add_memdev(&t, &unknown_size);
	add_end(&t);
	info = info_for(t.b, (uint32_t)t.n);
	CHECK_EQ_U64(smbios_for_each_memdev(&info, collect_cb, &c), 3);

	CHECK_EQ_U64(c.dev[0].size_bytes, 64ull << 30); /* 0x10000 MiB via Extended Size */
	CHECK_EQ_U64(c.dev[0].speed_mts, 8800);         /* via Extended Speed */
	CHECK_EQ_U64(c.dev[0].conf_speed_mts, 0xFFFF);  /* 70000 saturates the 16-bit field */
	CHECK_STR(smbios_mem_type_name(c.dev[0].type_code), "DDR5");

	CHECK_EQ_U64(c.dev[1].size_bytes, 512ull << 10); /* KiB granularity */

	CHECK_EQ_U64(c.dev[2].size_bytes, 0);
	CHECK_EQ_U64(c.dev[2].size_unknown, 1);
	CHECK_EQ_U64(smbios_memdev_populated(&c.dev[2]), 1);
}

static void test_memdev_old_versions(void)
{
	static struct tbuf t;
	struct smbios_info info;
	struct collect c = { 0 };
	/* Fields past each length are set to values that would show if they were read. */
	const struct md v21 = { MD_LEN_2_1, 1, 64, 64, 1024, 0x12, 400, 333, 0, 0, 0,
				"v21", "bank", "Mfr", "Part" };
	const struct md v23 = { MD_LEN_2_3, 2, 64, 64, 0x7FFF, 0x18, 1600, 1333, 0x20000, 0, 0,
				"v23", NULL, "Mfr23", "P23" };
	const struct md v27 = { MD_LEN_2_7, 3, 64, 64, 0x7FFF, 0x1A, 0xFFFF, 2133, 0x8000, 3000,
				0, "v27", NULL, NULL, NULL };

	t.n = 0;
	add_memdev(&t, &v21);
	add_memdev(&t, &v23);
	add_memdev(&t, &v27);
	add_end(&t);
	info = info_for(t.b, (uint32_t)t.n);
	CHECK_EQ_U64(smbios_for_each_memdev(&info, collect_cb, &c), 3);

	CHECK_STR(c.dev[0].locator, "v21");
	CHECK_STR(c.dev[0].bank, "bank");
	CHECK_EQ_U64(c.dev[0].size_bytes, 1024ull << 20);
	CHECK_STR(smbios_mem_type_name(c.dev[0].type_code), "DDR");
	CHECK_EQ_U64(c.dev[0].speed_mts, 0);      /* 2.3 field */
	CHECK_STR(c.dev[0].manufacturer, "");     /* 2.3 field */
	CHECK_STR(c.dev[0].part, "");

	CHECK_EQ_U64(c.dev[1].size_bytes, 0x7FFFull << 20); /* no Extended Size before 2.7 */
	CHECK_EQ_U64(c.dev[1].speed_mts, 1600);
	CHECK_EQ_U64(c.dev[1].conf_speed_mts, 0);           /* 2.7 field */
	CHECK_STR(c.dev[1].manufacturer, "Mfr23");
	CHECK_STR(c.dev[1].part, "P23");

	CHECK_EQ_U64(c.dev[2].size_bytes, 0x8000ull << 20); /* Extended Size exists in 2.7 */
	CHECK_EQ_U64(c.dev[2].speed_mts, 0);                /* 0xFFFF but no Extended Speed */
	CHECK_EQ_U64(c.dev[2].conf_speed_mts, 2133);
}

static void test_memdev_strings(void)
{
	static struct tbuf t;
	struct smbios_info info;
	struct collect c = { 0 };
	const struct md m = { MD_LEN_3_3, 1, 64, 64, 1024, TYPE_DDR4, 2400, 0, 0, 0, 0,
			      "0123456789012345678901234567890123456789", "B", "M", "P" };
	size_t second;

	t.n = 0;
	add_memdev(&t, &m);
	second = t.n;
	add_memdev(&t, &m);
	add_end(&t);
	/* Second device: locator points at string 9 (there are 4), bank at string 0 (none). */
	t.b[second + 0x10] = 9;
	t.b[second + 0x11] = 0;

	info = info_for(t.b, (uint32_t)t.n);
	CHECK_EQ_U64(smbios_for_each_memdev(&info, collect_cb, &c), 2);
	CHECK_STR(c.dev[0].locator, "0123456789012345678901234567890"); /* 31 chars + NUL */
	CHECK_STR(c.dev[0].bank, "B");
	CHECK_STR(c.dev[0].part, "P");
	CHECK_STR(c.dev[1].locator, "");
	CHECK_STR(c.dev[1].bank, "");
	CHECK_STR(c.dev[1].manufacturer, "M");
	CHECK_STR(c.dev[1].part, "P");
}

/* Table length ends inside the second device (formatted area, then string set): only the first
 * is reported, and nothing at or past the end is touched (guard page). */
static void test_memdev_truncated(void)
{
	static struct tbuf t;
	const struct md m = { MD_LEN_3_3, 1, 64, 64, 1024, TYPE_DDR4, 2400, 0, 0, 0, 0,
			      "DIMM", "BANK", NULL, NULL };
	size_t first_len, cuts[4];

	t.n = 0;
	add_memdev(&t, &m);
	first_len = t.n;
	add_memdev(&t, &m);
	add_end(&t);

	cuts[0] = first_len + 1;           /* inside the second header */
	cuts[1] = first_len + 0x20;        /* inside the second formatted area */
	cuts[2] = first_len + MD_LEN_3_3 + 2; /* inside its strings */
	cuts[3] = t.n - 6 - 1;             /* just before its final NUL */
	for (int i = 0; i < 4; i++) {
		struct guarded g;
		struct smbios_info info;
		struct collect c = { 0 };

		if (guarded_copy(&g, t.b, cuts[i]) != 0) {
			CHECK(!"mmap guard page");
			return;
		}
		info = info_for(g.data, (uint32_t)cuts[i]);
		CHECK_EQ_U64(smbios_for_each_memdev(&info, collect_cb, &c), 1);
		CHECK_STR(c.dev[0].locator, "DIMM");
		guarded_free(&g);
	}
}

/* A string set with no double-NUL before the end of the table: the device cannot be delimited
 * and is not reported; the scan stops at the table end (guard page). */
static void test_memdev_unterminated_strings(void)
{
	static struct tbuf t;
	const struct md m = { MD_LEN_2_3, 1, 64, 64, 1024, TYPE_DDR4, 2400, 0, 0, 0, 0,
			      "DIMM", NULL, NULL, NULL };
	struct guarded g;
	struct smbios_info info;

	t.n = 0;
	add_memdev(&t, &m);
	t.b[t.n - 1] = 'x'; /* overwrite the terminating NUL */
	if (guarded_copy(&g, t.b, t.n) != 0) {
		CHECK(!"mmap guard page");
		return;
	}
	info = info_for(g.data, (uint32_t)t.n);
	CHECK_EQ_U64(smbios_for_each_memdev(&info, NULL, NULL), 0);
	guarded_free(&g);
}

/* A structure whose length byte is below the 4-byte header, or runs past the table, ends the
 * walk: nothing after it can be located. */
static void test_memdev_bad_lengths(void)
{
	static struct tbuf t;
	const struct md m = { MD_LEN_3_3, 1, 64, 64, 1024, TYPE_DDR4, 2400, 0, 0, 0, 0,
			      "DIMM", NULL, NULL, NULL };
	struct smbios_info info;
	size_t first_len;

	t.n = 0;
	add_memdev(&t, &m);
	first_len = t.n;
	add_memdev(&t, &m);
	add_end(&t);
	info = info_for(t.b, (uint32_t)t.n);
	CHECK_EQ_U64(smbios_for_each_memdev(&info, NULL, NULL), 2);

	t.b[first_len + 1] = 2;
	CHECK_EQ_U64(smbios_for_each_memdev(&info, NULL, NULL), 1);
	t.b[first_len + 1] = 0;
	CHECK_EQ_U64(smbios_for_each_memdev(&info, NULL, NULL), 1);
	t.b[first_len + 1] = 0xFF; /* formatted area would run past the end */
	info.table_len = (uint32_t)(first_len + 0x80);
	CHECK_EQ_U64(smbios_for_each_memdev(&info, NULL, NULL), 1);

	info.present = 0;
	CHECK_EQ_U64(smbios_for_each_memdev(&info, NULL, NULL), (uint64_t)SMBIOS_ERR_INVALID);
	CHECK_EQ_U64(smbios_for_each_memdev(NULL, NULL, NULL), (uint64_t)SMBIOS_ERR_INVALID);
}

static void test_mem_type_names(void)
{
	CHECK_STR(smbios_mem_type_name(0x01), "Other");
	CHECK_STR(smbios_mem_type_name(0x02), "Unknown");
	CHECK_STR(smbios_mem_type_name(0x03), "DRAM");
	CHECK_STR(smbios_mem_type_name(0x07), "RAM");
	CHECK_STR(smbios_mem_type_name(0x18), "DDR3");
	CHECK_STR(smbios_mem_type_name(0x1A), "DDR4");
	CHECK_STR(smbios_mem_type_name(0x1E), "LPDDR4");
	CHECK_STR(smbios_mem_type_name(0x22), "DDR5");
	CHECK_STR(smbios_mem_type_name(0x23), "LPDDR5");
	CHECK_STR(smbios_mem_type_name(0x24), "HBM3");
	CHECK_STR(smbios_mem_type_name(0x00), "Unknown");
	CHECK_STR(smbios_mem_type_name(0x16), "Unknown"); /* reserved */
	CHECK_STR(smbios_mem_type_name(0x25), "Unknown");
	CHECK_STR(smbios_mem_type_name(0xFF), "Unknown");
}

/* ---- peak bandwidth ---- */

static void test_peak_typical(void)
{
	static struct tbuf t;
	struct smbios_info info;
	uint64_t mbps = 0;

	build_typical(&t);
	info = info_for(t.b, sizeof(t.b));
	/* Two populated 64-bit DIMMs at a configured 2933 MT/s; the empty slot does not count. */
	CHECK_EQ_U64(smbios_dram_peak_mbps(&info, &mbps), 0);
	CHECK_EQ_U64(mbps, 2ull * 2933 * 8);
}

static void test_peak_accumulator(void)
{
	struct smbios_peak p;
	struct smbios_memdev d = { 0 };
	uint64_t mbps = 0;

	smbios_peak_init(&p);
	CHECK_EQ_U64(smbios_peak_result(&p, &mbps), (uint64_t)SMBIOS_ERR_UNKNOWN); /* nothing */

	d.size_bytes = 1ull << 30;
	d.speed_mts = 4800;
	d.data_width = 64;
	smbios_peak_add(&p, &d);              /* no configured speed: maximum speed used */
	d.conf_speed_mts = 4400;
	d.data_width = 32;
	smbios_peak_add(&p, &d);
	CHECK_EQ_U64(smbios_peak_result(&p, &mbps), 0);
	CHECK_EQ_U64(mbps, 4800ull * 8 + 4400ull * 4);

	d = (struct smbios_memdev){ 0 };      /* empty slot without speed: ignored */
	smbios_peak_add(&p, &d);
	CHECK_EQ_U64(smbios_peak_result(&p, &mbps), 0);
	CHECK_EQ_U64(p.populated, 2);

	d.size_unknown = 1;                   /* populated, but speed unknown */
	d.data_width = 64;
	smbios_peak_add(&p, &d);
	mbps = 123;
	CHECK_EQ_U64(smbios_peak_result(&p, &mbps), (uint64_t)SMBIOS_ERR_UNKNOWN);
	CHECK_EQ_U64(mbps, 123);              /* untouched on failure */

	smbios_peak_init(&p);
	d = (struct smbios_memdev){ 0 };
	d.size_bytes = 1ull << 30;
	d.speed_mts = 3200;                   /* width unknown */
	smbios_peak_add(&p, &d);
	CHECK_EQ_U64(smbios_peak_result(&p, &mbps), (uint64_t)SMBIOS_ERR_UNKNOWN);
}

static void test_peak_unknown_speed_in_table(void)
{
	static struct tbuf t;
	struct smbios_info info;
	uint64_t mbps = 0;
	const struct md a = { MD_LEN_3_3, 1, 64, 64, 8192, TYPE_DDR4, 3200, 3200, 0, 0, 0,
			      "A", NULL, NULL, NULL };
	const struct md b = { MD_LEN_3_3, 2, 64, 64, 8192, TYPE_DDR4, 0, 0, 0, 0, 0,
			      "B", NULL, NULL, NULL };

	t.n = 0;
	add_memdev(&t, &a);
	add_memdev(&t, &b);
	add_end(&t);
	info = info_for(t.b, (uint32_t)t.n);
	CHECK_EQ_U64(smbios_dram_peak_mbps(&info, &mbps), (uint64_t)SMBIOS_ERR_UNKNOWN);
	info.present = 0;
	CHECK_EQ_U64(smbios_dram_peak_mbps(&info, &mbps), (uint64_t)SMBIOS_ERR_INVALID);
}

/* System Information's Manufacturer (the AArch64 build's QEMU identification without ACPI). */
static void test_system_manufacturer(void)
{
	static struct tbuf t;
	struct smbios_info info;
	char maker[SMBIOS_STR_MAX];

	t.n = 0;
	add_other(&t, 0, 0x0000, "EFI Development Kit II / OVMF");
	add_other(&t, 1, 0x0100, "QEMU");
	add_end(&t);
	info = info_for(t.b, (uint32_t)t.n);
	CHECK_EQ_U64(smbios_system_manufacturer(&info, maker, sizeof(maker)), 0);
	CHECK_STR(maker, "QEMU");
	build_typical(&t); /* no type 1 */
	info = info_for(t.b, (uint32_t)t.n);
	CHECK_EQ_U64(smbios_system_manufacturer(&info, maker, sizeof(maker)), (uint64_t)SMBIOS_ERR_INVALID);
	CHECK_STR(maker, "");
}

/* Types 1 and 2 (DSP0134 7.2, 7.3): four string numbers at 04h..07h. `len` below 08h is an older
 * or shorter structure whose later fields are absent. */
static void add_ident(struct tbuf *t, uint8_t type, uint8_t len, const char *const strs[4])
{
	uint8_t f[8] = { type, len, 0x34, 0x12, 0, 0, 0, 0 };
	uint8_t next_str = 1;

	for (int i = 0; i < 4; i++)
		if (strs[i])
			f[4 + i] = next_str++;
	put_bytes(t, f, len);
	put_strings(t, strs, 4);
}

static void test_ident(void)
{
	static struct tbuf t;
	static const char *const sys[4] = { "Acme", "Model 9", "1.0", "SN-0042   " };
	static const char *const board[4] = { "Acme Boards", NULL, "rev B", "BSN-7" };
	struct smbios_info info;
	struct smbios_ident_info id;

	t.n = 0;
	add_other(&t, 0, 0x0000, "EFI Development Kit II / OVMF");
	add_ident(&t, 2, 8, board);
	add_ident(&t, 1, 8, sys);
	add_end(&t);
	info = info_for(t.b, (uint32_t)t.n);
	CHECK_EQ_U64(smbios_ident(&info, SMBIOS_IDENT_SYSTEM, &id), 0);
	CHECK_STR(id.manufacturer, "Acme");
	CHECK_STR(id.product, "Model 9");
	CHECK_STR(id.version, "1.0");
	CHECK_STR(id.serial, "SN-0042"); /* trailing blanks dropped */
	CHECK_EQ_U64(smbios_ident(&info, SMBIOS_IDENT_BOARD, &id), 0);
	CHECK_STR(id.manufacturer, "Acme Boards");
	CHECK_STR(id.product, ""); /* string number 0: none */
	CHECK_STR(id.version, "rev B");
	CHECK_STR(id.serial, "BSN-7");

	/* A short board structure: the serial's field is beyond its length. */
	t.n = 0;
	add_ident(&t, 2, 6, board);
	add_end(&t);
	info = info_for(t.b, (uint32_t)t.n);
	CHECK_EQ_U64(smbios_ident(&info, SMBIOS_IDENT_BOARD, &id), 0);
	CHECK_STR(id.manufacturer, "Acme Boards");
	CHECK_STR(id.serial, "");
	CHECK_EQ_U64(smbios_ident(&info, SMBIOS_IDENT_SYSTEM, &id), (uint64_t)SMBIOS_ERR_INVALID);

	/* A 70-character serial is cut to the field, NUL-terminated. */
	{
		static const char *const longsys[4] = {
			"M", "P", "V", "0123456789012345678901234567890123456789012345678901234567890123456789" };

		t.n = 0;
		add_ident(&t, 1, 8, longsys);
		add_end(&t);
		info = info_for(t.b, (uint32_t)t.n);
		CHECK_EQ_U64(smbios_ident(&info, SMBIOS_IDENT_SYSTEM, &id), 0);
		CHECK_EQ_U64(strlen(id.serial), SMBIOS_IDENT_STR_MAX - 1);
	}
	info.present = 0;
	CHECK_EQ_U64(smbios_ident(&info, SMBIOS_IDENT_SYSTEM, &id), (uint64_t)SMBIOS_ERR_INVALID);
}

TEST_SUITE(smbios) = {
	{ "ident", test_ident },
	{ "system_manufacturer", test_system_manufacturer },
	{ "entry_sm3", test_entry_sm3 },
	{ "entry_sm2", test_entry_sm2 },
	{ "entry_legacy_dmi", test_entry_legacy_dmi },
	{ "entry_rejects_bad_checksum_anchor_length", test_entry_rejects },
	{ "memdev_typical_sm3", test_memdev_typical_sm3 },
	{ "memdev_sm2_exact_length", test_memdev_sm2_exact_length },
	{ "memdev_extended_fields", test_memdev_extended_fields },
	{ "memdev_old_versions", test_memdev_old_versions },
	{ "memdev_strings", test_memdev_strings },
	{ "memdev_truncated", test_memdev_truncated },
	{ "memdev_unterminated_strings", test_memdev_unterminated_strings },
	{ "memdev_bad_lengths", test_memdev_bad_lengths },
	{ "mem_type_names", test_mem_type_names },
	{ "peak_typical", test_peak_typical },
	{ "peak_accumulator", test_peak_accumulator },
	{ "peak_unknown_speed_in_table", test_peak_unknown_speed_in_table },
	{ 0, 0 },
};
