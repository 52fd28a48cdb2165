/* Host tool: one machine's ACPI tables or SMBIOS dump through the firmware's parsers, every
 * decoded field printed as a "key value" line (tests/unit/fw_corpus.h).
 *   fw_corpus acpi TABLE_FILE...   (acpixtract's .dat files, or tables concatenated)
 *   fw_corpus smbios DUMP          (dmidecode --dump-bin layout)
 * Used by tests/perf/acpi_corpus.py over the whole linuxhw corpus. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit/fw_corpus.h"

#define ARENA_BYTES (64u << 20)
#define OUT_BYTES (4u << 20)

int main(int argc, char **argv)
{
	struct fwc_out out = { malloc(OUT_BYTES), OUT_BYTES, 0 };

	if (argc < 3 || !out.buf) {
		fprintf(stderr, "usage: %s acpi TABLE_FILE... | smbios DUMP\n", argv[0]);
		return 2;
	}
	if (strcmp(argv[1], "acpi") == 0) {
		struct fwc_acpi m;

		if (fwc_acpi_init(&m, ARENA_BYTES))
			return 2;
		for (int i = 2; i < argc; i++)
			if (fwc_acpi_add_file(&m, argv[i])) {
				fprintf(stderr, "%s: cannot add %s\n", argv[0], argv[i]);
				return 2;
			}
		fwc_acpi_decode(&m, &out);
		fwc_acpi_free(&m);
	} else if (strcmp(argv[1], "smbios") == 0) {
		size_t len = 0;
		uint8_t *dump = fwc_read_file(argv[2], &len);

		if (!dump) {
			perror(argv[2]);
			return 2;
		}
		fwc_smbios_decode(dump, len, &out);
		free(dump);
	} else {
		fprintf(stderr, "%s: unknown kind %s\n", argv[0], argv[1]);
		return 2;
	}
	fputs(out.buf, stdout);
	free(out.buf);
	return 0;
}
