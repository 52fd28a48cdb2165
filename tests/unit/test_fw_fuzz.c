/* Mutation fuzzing of the firmware-table parsers (acpi.c, madt.c, madt_gicc.c, gicv3.c's MADT
 * reader, smbios.c), seeded and reproducible: 10,000 real tables from the corpus fixtures
 * (tests/unit/fixtures/fw) with random byte flips, truncated lengths, lengths past the bytes given
 * and wrong checksums, run under the unit build's ASan/UBSan. A parser may believe or refuse a
 * mutated table, but never crash, hang or read outside the memory a table's length covers, and a
 * refusal names its reason. The memory behind a table is a zeroed arena large enough for any
 * length the parsers accept (16 MiB), as firmware memory behind a table is readable. */
#include <dirent.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "drivers/fw/acpi.h"
#include "drivers/fw/aarch64/madt_gicc.h"
#include "drivers/fw/madt.h"
#include "drivers/fw/smbios.h"
#include "drivers/irqchip/aarch64/gicv3.h"
#include "lib/le.h"
#include "lib/rand.h"
#include "tests/unit/fw_corpus.h"
#include "tests/unit/test.h"

#define FIXTURE_DIR "tests/unit/fixtures/fw"
#define CASES 10000
#define SEED 0x28F1A5EDull
#define MAX_BASES 256
#define SDT_OFF_LENGTH 4
#define SDT_OFF_CHECKSUM 9
#define SDT_BOUND (16u << 20)              /* acpi.c's SDT_MAX_LEN: longer is refused unread */
#define ARENA_BYTES (SDT_BOUND + (2u << 20)) /* room for any length below the bound */
#define SMBIOS_PAD (64u << 10)
#define LOW_BYTES (1u << 20)
/* SMBIOS 3 entry point (DSP0134 5.2.2), the layout of the fixtures' dumps. */
#define SM3_CHECKSUM_OFF 0x05
#define SM3_MAX_SIZE_OFF 0x0C
#define SM3_ADDR_OFF 0x10
#define SM3_EP_LEN 0x18
#define GROW_MAX 4096u
#define HUGE_LEN_FRACTION 100 /* 1 in 100 length mutations reads up to the bound */

struct base {
	uint8_t *bytes;
	size_t len;
	int smbios;
};

static struct base bases[MAX_BASES];
static unsigned nbases;

static void load_bases(const char *sub, const char *ext, int smbios)
{
	char dir[512], path[1024];
	struct dirent *de;
	DIR *d;
	const char *root = getenv("BAREMETRIC_FW_FIXTURES");

	snprintf(dir, sizeof(dir), "%s/%s", root ? root : FIXTURE_DIR, sub);
	d = opendir(dir);
	if (!d)
		return;
	while ((de = readdir(d)) != NULL && nbases < MAX_BASES) {
		size_t n = strlen(de->d_name), e = strlen(ext);

		if (n <= e || strcmp(de->d_name + n - e, ext) != 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		bases[nbases].bytes = fwc_read_file(path, &bases[nbases].len);
		bases[nbases].smbios = smbios;
		if (bases[nbases].bytes && bases[nbases].len)
			nbases++;
	}
	closedir(d);
}

static void sum_fix(uint8_t *t, uint32_t len)
{
	uint8_t s = 0;

	t[SDT_OFF_CHECKSUM] = 0;
	for (uint32_t i = 0; i < len; i++)
		s = (uint8_t)(s + t[i]);
	t[SDT_OFF_CHECKSUM] = (uint8_t)(0x100 - s);
}

/* A new length for a table of `given` bytes: shorter, a little longer, past the bound, or rarely
 * anywhere up to the bound. */
static uint32_t mutate_length(struct rand_state *r, uint32_t given)
{
	switch (rand_below(r, 4)) {
	case 0:
		return (uint32_t)rand_below(r, given + 1);
	case 1:
		return given + 1 + (uint32_t)rand_below(r, GROW_MAX);
	case 2:
		return SDT_BOUND + 1 + (uint32_t)rand_below(r, 0xFFFFFFFFu - SDT_BOUND);
	default:
		return rand_below(r, HUGE_LEN_FRACTION) ? given : (uint32_t)rand_below(r, SDT_BOUND + 1);
	}
}

/* One mutated copy of one of the machine's tables, the rest intact; all parsers run. */
static unsigned acpi_case(struct rand_state *r, const struct base *b, uint8_t *arena, struct fwc_acpi *m)
{
	static struct acpi_info a;
	static struct madt_info mi;
	struct gicv3_bases gb;
	unsigned refusals = 0, victim;
	uint8_t *t;
	uint32_t len;

	m->arena = arena;
	m->arena_len = ARENA_BYTES;
	m->n = 0;
	m->used = 4096;
	if (fwc_acpi_add(m, b->bytes, b->len) || !m->n)
		return 0;
	victim = (unsigned)rand_below(r, m->n);
	t = m->table[victim];
	len = m->bytes[victim];
	for (unsigned i = 0, flips = (unsigned)rand_below(r, 9); i < flips && len; i++)
		t[rand_below(r, len)] ^= (uint8_t)(1u << rand_below(r, 8));
	if (len >= SDT_OFF_LENGTH + 4 && rand_below(r, 2)) {
		uint32_t nl = mutate_length(r, len);

		for (int i = 0; i < 4; i++)
			t[SDT_OFF_LENGTH + i] = (uint8_t)(nl >> (8 * i));
	}
	/* Mostly a fixed checksum, so the mutated contents are parsed, not just refused. */
	if (len > SDT_OFF_CHECKSUM && rand_below(r, 4) && rd32(t + SDT_OFF_LENGTH) <= len)
		sum_fix(t, rd32(t + SDT_OFF_LENGTH));
	else if (len > SDT_OFF_CHECKSUM && rand_below(r, 2))
		t[SDT_OFF_CHECKSUM] ^= (uint8_t)(1 + rand_below(r, 255));

	if (!acpi_parse(fwc_acpi_build(m), &a))
		CHECK(a.why != NULL);
	if (a.bad_checksums) {
		refusals++;
		CHECK(a.refused_why != NULL && a.refused_sig[0] != '\0');
	}
	if (a.madt) {
		/* madt_parse() bounds the length more tightly (44 bytes to 1 MiB) than acpi_parse()
		 * does any table: what it refuses, it says why. */
		if (!madt_parse(a.madt, &mi)) {
			CHECK(mi.why != NULL);
			refusals++;
		}
		(void)madt_parse_gicc(a.madt, &mi);
		(void)gicv3_madt_parse((const uint8_t *)(uintptr_t)a.madt, rd32((const uint8_t *)(uintptr_t)a.madt + 4),
				       0, &gb);
	}
	/* The victim alone through the MADT readers, whatever its signature. */
	if (!madt_parse((uint64_t)(uintptr_t)t, &mi)) {
		CHECK(mi.why != NULL);
		refusals++;
	}
	(void)gicv3_madt_parse(t, len, 0, &gb);
	return refusals;
}

static void memdev_cb(const struct smbios_memdev *d, void *ctx)
{
	(*(unsigned *)ctx) += d->locator[SMBIOS_STR_MAX - 1] == '\0'; /* strings stay terminated */
}

static unsigned smbios_case(struct rand_state *r, const struct base *b, uint8_t *low)
{
	struct smbios_info si;
	struct smbios_ident_info id;
	uint8_t *ep = low;
	uint64_t mbps;
	unsigned seen = 0;
	size_t len = b->len;
	int rc;

	memcpy(low, b->bytes, len);
	memset(low + len, 0, SMBIOS_PAD);
	/* The dump's table address is an offset: make it this copy's (a 32-bit address fits here). */
	for (int i = 0; i < 8; i++)
		ep[SM3_ADDR_OFF + i] = (uint8_t)(((uint64_t)(uintptr_t)(low + rd64(ep + SM3_ADDR_OFF) % len)) >> (8 * i));
	for (unsigned i = 0, flips = (unsigned)rand_below(r, 9); i < flips; i++) {
		size_t at = rand_below(r, len);

		if (at < SM3_ADDR_OFF || at >= SM3_ADDR_OFF + 8) /* the address is the firmware's, not data */
			low[at] ^= (uint8_t)(1u << rand_below(r, 8));
	}
	if (rand_below(r, 2)) { /* the table's maximum size: shorter, longer, or absurd */
		uint32_t v = (uint32_t)(rand_below(r, 2) ? rand_below(r, len + SMBIOS_PAD / 2) : rand_next(r));

		for (int i = 0; i < 4; i++)
			ep[SM3_MAX_SIZE_OFF + i] = (uint8_t)(v >> (8 * i));
	}
	if (rand_below(r, 4)) { /* mostly a valid entry point checksum, so the table is walked */
		uint8_t s = 0;

		ep[SM3_CHECKSUM_OFF] = 0;
		for (int i = 0; i < SM3_EP_LEN; i++)
			s = (uint8_t)(s + ep[i]);
		ep[SM3_CHECKSUM_OFF] = (uint8_t)(0x100 - s);
	}
	rc = smbios_parse_entry(ep, &si);
	if (rc) {
		CHECK(smbios_err_reason(rc)[0] != '\0');
		return 1;
	}
	/* What lies past the copy is zeros, then unmapped: keep the walk's bound inside. */
	if ((const uint8_t *)(uintptr_t)si.table_addr + si.table_len > low + len + SMBIOS_PAD)
		si.table_len = (uint32_t)(low + len + SMBIOS_PAD - (const uint8_t *)(uintptr_t)si.table_addr);
	(void)smbios_for_each_memdev(&si, memdev_cb, &seen);
	(void)smbios_ident(&si, SMBIOS_IDENT_SYSTEM, &id);
	(void)smbios_ident(&si, SMBIOS_IDENT_BOARD, &id);
	rc = smbios_dram_peak_mbps(&si, &mbps);
	if (rc)
		CHECK(smbios_err_reason(rc)[0] != '\0');
	return 0;
}

static void mutated_tables(void)
{
	struct rand_state r;
	struct fwc_acpi m;
	uint8_t *arena, *low;
	unsigned refusals = 0, acpi_cases = 0, smbios_cases = 0;

	nbases = 0;
	load_bases("acpi", ".tables", 0);
	load_bases("smbios", ".smbios", 1);
	if (!nbases)
		TEST_SKIP("no fixtures under " FIXTURE_DIR " (run from the repository root)");
	arena = mmap(NULL, ARENA_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	low = mmap(NULL, LOW_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
	CHECK(arena != MAP_FAILED && low != MAP_FAILED);
	if (arena == MAP_FAILED || low == MAP_FAILED)
		return;
	rand_seed(&r, SEED);
	for (unsigned i = 0; i < CASES; i++) {
		const struct base *b = &bases[rand_below(&r, nbases)];

		if (b->smbios && b->len + SMBIOS_PAD <= LOW_BYTES) {
			refusals += smbios_case(&r, b, low);
			smbios_cases++;
		} else if (!b->smbios) {
			refusals += acpi_case(&r, b, arena, &m);
			memset(arena, 0, m.used + GROW_MAX);
			acpi_cases++;
		}
	}
	test_note("%u ACPI and %u SMBIOS cases (seed 0x%llx), %u refusals, all with a reason", acpi_cases,
		  smbios_cases, (unsigned long long)SEED, refusals);
	CHECK_EQ_U64(acpi_cases + smbios_cases, CASES);
	CHECK(refusals > 0);
	munmap(arena, ARENA_BYTES);
	munmap(low, LOW_BYTES);
	for (unsigned i = 0; i < nbases; i++)
		free(bases[i].bytes);
}

TEST_SUITE(fw_fuzz) = {
	{ "mutated_tables", mutated_tables },
	{ 0, 0 },
};
