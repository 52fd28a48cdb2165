/* SMBIOS parsing: validates an entry point and walks the structure table for Memory Device
 * (type 17) entries, to report the installed DIMMs and the theoretical peak DRAM bandwidth.
 * Pure memory parsing on pointers handed in by the caller (from the UEFI configuration table);
 * no firmware calls, so it also runs in host unit tests. Every read is bounded by the table
 * length the entry point gives, so a corrupt table cannot make it read past its end. */
#ifndef DRIVERS_SMBIOS_H
#define DRIVERS_SMBIOS_H

#include <stddef.h>
#include <stdint.h>

/* Negative returns. */
#define SMBIOS_ERR_INVALID (-1)  /* NULL argument, or no table present */
#define SMBIOS_ERR_ANCHOR (-2)   /* no "_SM3_", "_SM_" or "_DMI_" anchor */
#define SMBIOS_ERR_LENGTH (-3)   /* entry point length out of range, or empty table */
#define SMBIOS_ERR_CHECKSUM (-4) /* an entry point checksum does not sum to zero */
#define SMBIOS_ERR_UNKNOWN (-5)  /* peak bandwidth: a populated device lacks speed or width */

/* Why a negative SMBIOS_ERR_* was returned, in words ("" for 0 or an unknown code). */
const char *smbios_err_reason(int rc);

struct smbios_info {
	int present; /* 1 after a successful smbios_parse_entry */
	int major, minor;
	uint64_t table_addr;
	uint32_t table_len; /* 2.x: exact length; SMBIOS 3: maximum size (end is type 127) */
	int is_64bit_entry; /* 1: "_SM3_" entry point */
};

/* Validate the entry point at `entry` ("_SM3_", "_SM_" with its "_DMI_" part, or a legacy
 * "_DMI_" one) and fill *out. Returns 0, or a negative SMBIOS_ERR_* with out->present == 0. */
int smbios_parse_entry(const void *entry, struct smbios_info *out);

#define SMBIOS_STR_MAX 32 /* string fields are truncated to 31 chars + NUL */

struct smbios_memdev {
	uint16_t handle;
	char locator[SMBIOS_STR_MAX]; /* "" when absent */
	char bank[SMBIOS_STR_MAX];
	uint64_t size_bytes; /* 0 = empty slot (or size unknown, see size_unknown) */
	int size_unknown;    /* 1: a device is installed but its size is not given (0xFFFF) */
	uint8_t type_code;   /* SMBIOS memory type, see smbios_mem_type_name() */
	uint16_t speed_mts;      /* maximum speed; 0 = unknown; saturates at 0xFFFF */
	uint16_t conf_speed_mts; /* configured speed; 0 = unknown; saturates at 0xFFFF */
	uint16_t data_width;  /* bits; 0 = unknown */
	uint16_t total_width; /* bits incl. ECC; 0 = unknown */
	char manufacturer[SMBIOS_STR_MAX];
	char part[SMBIOS_STR_MAX]; /* trailing blanks removed */
};

typedef void (*smbios_memdev_cb)(const struct smbios_memdev *dev, void *ctx);

/* Call cb for every type 17 structure, in table order, empty slots included. Stops at the end
 * of the table, at type 127 (end-of-table), or at the first malformed or truncated structure.
 * Returns the number of devices reported, or SMBIOS_ERR_INVALID. */
int smbios_for_each_memdev(const struct smbios_info *info, smbios_memdev_cb cb, void *ctx);

/* The System Information (type 1) Manufacturer string into dst ("" when it has none). 0, or
 * SMBIOS_ERR_INVALID when there is no type 1 structure. */
int smbios_system_manufacturer(const struct smbios_info *info, char *dst, size_t dst_size);

/* Who made the system or its board, and its serial (SMBIOS types 1 and 2). Strings are "" when
 * absent and cut to SMBIOS_IDENT_STR_MAX - 1 characters, trailing blanks removed. */
#define SMBIOS_IDENT_STR_MAX 64

enum smbios_ident_kind { SMBIOS_IDENT_SYSTEM, SMBIOS_IDENT_BOARD };

struct smbios_ident_info {
	char manufacturer[SMBIOS_IDENT_STR_MAX];
	char product[SMBIOS_IDENT_STR_MAX];
	char version[SMBIOS_IDENT_STR_MAX];
	char serial[SMBIOS_IDENT_STR_MAX];
};

/* Fill *out from the first type 1 (system) or type 2 (board) structure. 0, or
 * SMBIOS_ERR_INVALID when there is none (or a structure before it is malformed). */
int smbios_ident(const struct smbios_info *info, enum smbios_ident_kind kind, struct smbios_ident_info *out);

/* Name of a Memory Device Type code ("DDR4", "LPDDR5", ...); "Unknown" outside the table. */
const char *smbios_mem_type_name(uint8_t type_code);

/* Populated: size_bytes != 0 or size_unknown. */
int smbios_memdev_populated(const struct smbios_memdev *dev);

/* Theoretical peak DRAM bandwidth, accumulated device by device (so it can share one walk with
 * the caller's own per-device reporting): the sum over populated devices of
 * speed (configured, else maximum) in MT/s x data width / 8 bytes, in MB/s (10^6 bytes/s). */
struct smbios_peak {
	uint64_t mbps;
	int populated;     /* populated devices seen */
	int missing_info;  /* populated devices without a known speed or data width */
};

void smbios_peak_init(struct smbios_peak *peak);
void smbios_peak_add(struct smbios_peak *peak, const struct smbios_memdev *dev);
/* 0 and *mbps set if known; SMBIOS_ERR_UNKNOWN if any populated device lacked speed or width,
 * or no populated device was seen. */
int smbios_peak_result(const struct smbios_peak *peak, uint64_t *mbps);

/* Walk the table and return the peak as smbios_peak_result() does. */
int smbios_dram_peak_mbps(const struct smbios_info *info, uint64_t *mbps);

#endif
