/* A real machine's firmware tables, fed through the firmware's own parsers on the host: the ACPI
 * tables of one machine (raw tables as acpixtract writes them, or several concatenated in one
 * file) behind an RSDP and XSDT built here, and an SMBIOS dump (dmidecode --dump-bin layout:
 * entry point at offset 0, the table at the offset the entry point names). Each decoded field is
 * printed as one "key value" line, the form the corpus fixtures' reference files use
 * (tests/unit/fixtures/fw/README.md), so the unit test and tests/perf/acpi_corpus.py compare the
 * same lines. */
#ifndef TESTS_UNIT_FW_CORPUS_H
#define TESTS_UNIT_FW_CORPUS_H

#include <stddef.h>
#include <stdint.h>

#define FWC_MAX_TABLES 128

/* One machine's ACPI tables, copied into one zeroed arena (so a declared length longer than the
 * bytes given reads zeros of the arena, as the firmware reads whatever memory follows a table). */
struct fwc_acpi {
	uint8_t *arena;
	size_t arena_len, used;
	unsigned n;
	uint8_t *table[FWC_MAX_TABLES];
	uint32_t bytes[FWC_MAX_TABLES]; /* bytes given for each table */
};

/* Arena of `arena_len` bytes; 0 on success. */
int fwc_acpi_init(struct fwc_acpi *m, size_t arena_len);
void fwc_acpi_free(struct fwc_acpi *m);
/* Add the tables in buf (one or several back to back, each delimited by its own length field;
 * bytes past the last whole table are added as one short table). 0, or -1 when full. */
int fwc_acpi_add(struct fwc_acpi *m, const uint8_t *buf, size_t len);
/* Read a file's tables into m. 0, or -1 (errno set) when unreadable or full. */
int fwc_acpi_add_file(struct fwc_acpi *m, const char *path);

/* Lines appended to a caller's buffer (always NUL-terminated; cut when full). */
struct fwc_out {
	char *buf;
	size_t cap, len;
};

/* Build the RSDP and XSDT over the tables (as fwc_acpi_decode does) and return the RSDP's address
 * for acpi_parse(). */
uint64_t fwc_acpi_build(struct fwc_acpi *m);

/* Decode the machine: an RSDP and XSDT are built over the tables in the order added (DSDT and
 * FACS are left out of the XSDT, and so is a dumped RSDP, RSDT or XSDT; the FADT's DSDT pointers are made to point at the DSDT
 * given, its checksum fixed), then acpi_parse(), madt_parse(), madt_parse_gicc() and
 * gicv3_madt_parse() run on them; every field they decode is appended to out. */
void fwc_acpi_decode(struct fwc_acpi *m, struct fwc_out *out);

/* Decode an SMBIOS dump (len bytes at dump; the entry point's table address is an offset into
 * the dump): the entry point, every memory device (type 17) and the DRAM peak. */
void fwc_smbios_decode(const uint8_t *dump, size_t len, struct fwc_out *out);

/* Read a whole file (malloc'd; *len set). NULL on error. */
uint8_t *fwc_read_file(const char *path, size_t *len);

#endif
