/* Real machines' ACPI tables and SMBIOS tables through the firmware's parsers, compared with the
 * reference decoders' values recorded beside them (tests/unit/fixtures/fw/README.md: iasl's
 * disassembly from linuxhw/ACPI, dmidecode's text from linuxhw/DMI; recorded by
 * tests/perf/acpi_corpus.py --save-fixtures, never from our own output). Every "key value" line
 * of a .expect file must appear in what tests/unit/fw_corpus.c prints for the machine. */
#include <dirent.h>
#include <stdlib.h>

#include "tests/unit/fw_corpus.h"
#include "tests/unit/test.h"

#define FIXTURE_DIR "tests/unit/fixtures/fw"
#define ARENA_BYTES (1u << 20)
#define OUT_BYTES (256u << 10)
#define NOTES_MAX 8
#define ACPI_FIXTURES_MIN 60
#define SMBIOS_FIXTURES_MIN 30

static const char *fixture_dir(void)
{
	const char *d = getenv("BAREMETRIC_FW_FIXTURES");

	return d ? d : FIXTURE_DIR;
}

/* Each line of the expect file (comments skipped) must be a line of `ours`. Returns mismatches. */
static unsigned compare(const char *name, const char *expect, const char *ours, unsigned *fields)
{
	unsigned bad = 0;
	const char *p = expect;

	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		char line[512];

		if (n && *p != '#' && n < sizeof(line)) {
			const char *hit = ours;
			int found = 0;

			memcpy(line, p, n);
			line[n] = '\0';
			(*fields)++;
			while ((hit = strstr(hit, line)) != NULL) {
				if ((hit == ours || hit[-1] == '\n') && (hit[n] == '\n' || hit[n] == '\0')) {
					found = 1;
					break;
				}
				hit++;
			}
			if (!found && bad++ < NOTES_MAX)
				test_note("%s: expected \"%s\"", name, line);
		}
		p += n + (nl ? 1 : 0);
	}
	return bad;
}

static char *read_text(const char *path)
{
	size_t len = 0;
	uint8_t *b = fwc_read_file(path, &len);

	if (b)
		b[len] = '\0';
	return (char *)b;
}

/* Every fixture with suffix `ext` in the directory: decode, compare. Returns machines seen. */
static unsigned run_dir(const char *sub, const char *ext, int acpi)
{
	char dir[512], path[1024], exp_path[1100];
	struct dirent *de;
	unsigned machines = 0, fields = 0, bad = 0;
	struct fwc_out out = { malloc(OUT_BYTES), OUT_BYTES, 0 };
	DIR *d;

	snprintf(dir, sizeof(dir), "%s/%s", fixture_dir(), sub);
	d = opendir(dir);
	if (!d || !out.buf) {
		free(out.buf);
		if (d)
			closedir(d);
		return 0;
	}
	while ((de = readdir(d)) != NULL) {
		size_t n = strlen(de->d_name), e = strlen(ext);
		char *expect;

		if (n <= e || strcmp(de->d_name + n - e, ext) != 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		snprintf(exp_path, sizeof(exp_path), "%s.expect", path);
		expect = read_text(exp_path);
		CHECK(expect != NULL);
		if (!expect)
			continue;
		out.len = 0;
		if (acpi) {
			struct fwc_acpi m;

			CHECK(fwc_acpi_init(&m, ARENA_BYTES) == 0);
			CHECK(fwc_acpi_add_file(&m, path) == 0);
			fwc_acpi_decode(&m, &out);
			fwc_acpi_free(&m);
		} else {
			size_t len = 0;
			uint8_t *dump = fwc_read_file(path, &len);

			CHECK(dump != NULL);
			if (dump)
				fwc_smbios_decode(dump, len, &out);
			free(dump);
		}
		bad += compare(de->d_name, expect, out.buf, &fields);
		free(expect);
		machines++;
	}
	closedir(d);
	free(out.buf);
	test_note("%s: %u machines, %u reference fields, %u disagree", sub, machines, fields, bad);
	CHECK_EQ_U64(bad, 0);
	return machines;
}

static void acpi_machines(void)
{
	unsigned n = run_dir("acpi", ".tables", 1);

	if (!n)
		TEST_SKIP("no ACPI fixtures under " FIXTURE_DIR "/acpi (run from the repository root)");
	CHECK(n >= ACPI_FIXTURES_MIN);
}

static void smbios_machines(void)
{
	unsigned n = run_dir("smbios", ".smbios", 0);

	if (!n)
		TEST_SKIP("no SMBIOS fixtures under " FIXTURE_DIR "/smbios (run from the repository root)");
	CHECK(n >= SMBIOS_FIXTURES_MIN);
}

TEST_SUITE(fw_corpus) = {
	{ "acpi_machines", acpi_machines },
	{ "smbios_machines", smbios_machines },
	{ 0, 0 },
};
