/* SMBIOS entry point validation, type 1/2 (System, Baseboard) strings and type 17 (Memory Device)
 * decoding, after the DMTF SMBIOS Reference Specification (DSP0134). Fields are read byte by byte, little-endian, so the table
 * needs no alignment; a field is only read when the structure's length byte says it exists,
 * because older SMBIOS versions define shorter structures. */
#include "drivers/fw/smbios.h"

#include "lib/fmt.h"
#include "lib/le.h"

#include <stdbool.h>
#include <stddef.h>

/* SMBIOS 3.x 64-bit entry point. */
#define SM3_ANCHOR "_SM3_"
#define SM3_ANCHOR_LEN 5
#define SM3_OFF_LENGTH 0x06
#define SM3_OFF_MAJOR 0x07
#define SM3_OFF_MINOR 0x08
#define SM3_OFF_TABLE_MAX_SIZE 0x0C /* dword */
#define SM3_OFF_TABLE_ADDR 0x10     /* qword */
#define SM3_MIN_LEN 0x18

/* SMBIOS 2.x 32-bit entry point: "_SM_" part + intermediate "_DMI_" part. */
#define SM2_ANCHOR "_SM_"
#define SM2_ANCHOR_LEN 4
#define SM2_OFF_LENGTH 0x05
#define SM2_OFF_MAJOR 0x06
#define SM2_OFF_MINOR 0x07
#define SM2_OFF_DMI 0x10 /* intermediate anchor; its checksum covers DMI_EP_LEN bytes */
/* 0x1F per spec; SMBIOS 2.1 itself wrongly said 0x1E and some firmware copied that. */
#define SM2_MIN_LEN 0x1E

/* Legacy DMI entry point, also the layout of the 2.x intermediate part. */
#define DMI_ANCHOR "_DMI_"
#define DMI_ANCHOR_LEN 5
#define DMI_OFF_TABLE_LEN 0x06  /* word */
#define DMI_OFF_TABLE_ADDR 0x08 /* dword */
#define DMI_OFF_BCD_REVISION 0x0E
#define DMI_EP_LEN 0x0F
#define BCD_HIGH_SHIFT 4
#define BCD_DIGIT_MASK 0x0Fu

/* No entry point is longer; refusing more keeps a corrupt length byte from sending the
 * checksum far past the structure (dmidecode uses the same limit). */
#define EP_MAX_LEN 0x20

/* Structure header, common to all types. */
#define HDR_OFF_TYPE 0x00
#define HDR_OFF_LENGTH 0x01
#define HDR_OFF_HANDLE 0x02 /* word */
#define HDR_LEN 4
#define STRING_SET_TERMINATOR_LEN 2 /* a structure ends with two NULs (one if it has strings) */

#define SMBIOS_TYPE_SYSTEM 1
#define SMBIOS_TYPE_BASEBOARD 2
/* System Information (type 1) and Baseboard Information (type 2) put the same four string
 * numbers at the same offsets (DSP0134 7.2, 7.3). */
#define IDENT_OFF_MANUFACTURER 0x04
#define IDENT_OFF_PRODUCT 0x05
#define IDENT_OFF_VERSION 0x06
#define IDENT_OFF_SERIAL 0x07
#define SMBIOS_TYPE_MEMORY_DEVICE 17
#define SMBIOS_TYPE_END_OF_TABLE 127

/* Type 17 fields (offset, and the version that added it). */
#define MD_OFF_TOTAL_WIDTH 0x08    /* 2.1 word, 0xFFFF unknown */
#define MD_OFF_DATA_WIDTH 0x0A     /* 2.1 word, 0xFFFF unknown */
#define MD_OFF_SIZE 0x0C           /* 2.1 word */
#define MD_OFF_LOCATOR 0x10        /* 2.1 string */
#define MD_OFF_BANK 0x11           /* 2.1 string */
#define MD_OFF_TYPE 0x12           /* 2.1 byte */
#define MD_OFF_SPEED 0x15          /* 2.3 word, MT/s */
#define MD_OFF_MANUFACTURER 0x17   /* 2.3 string */
#define MD_OFF_PART 0x1A           /* 2.3 string */
#define MD_OFF_EXT_SIZE 0x1C       /* 2.7 dword, MiB */
#define MD_OFF_CONF_SPEED 0x20     /* 2.7 word, MT/s */
#define MD_OFF_EXT_SPEED 0x54      /* 3.3 dword, MT/s */
#define MD_OFF_EXT_CONF_SPEED 0x58 /* 3.3 dword, MT/s */

#define MD_WIDTH_UNKNOWN 0xFFFFu
#define MD_SIZE_NONE 0x0000u
#define MD_SIZE_UNKNOWN 0xFFFFu
#define MD_SIZE_USE_EXTENDED 0x7FFFu
#define MD_SIZE_KIB_BIT 0x8000u /* set: value in KiB, else MiB */
#define MD_SIZE_VALUE_MASK 0x7FFFu
#define MD_EXT_SIZE_MASK 0x7FFFFFFFu /* bit 31 reserved */
#define MD_SPEED_USE_EXTENDED 0xFFFFu
#define MD_EXT_SPEED_MASK 0x7FFFFFFFu /* bit 31 reserved */
#define SPEED_FIELD_MAX 0xFFFFu      /* struct smbios_memdev speeds are 16-bit */

#define KIB 1024ull
#define MIB (1024ull * 1024ull)
#define BITS_PER_BYTE 8u

#define ASCII_SPACE ' '

static bool bytes_equal(const uint8_t *p, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != (uint8_t)s[i])
			return false;
	return true;
}

static bool checksum_ok(const uint8_t *p, size_t len)
{
	uint8_t sum = 0;

	for (size_t i = 0; i < len; i++)
		sum = (uint8_t)(sum + p[i]);
	return sum == 0;
}

static int parse_sm3(const uint8_t *ep, struct smbios_info *out)
{
	uint8_t len = ep[SM3_OFF_LENGTH];

	if (len < SM3_MIN_LEN || len > EP_MAX_LEN)
		return SMBIOS_ERR_LENGTH;
	if (!checksum_ok(ep, len))
		return SMBIOS_ERR_CHECKSUM;
	out->major = ep[SM3_OFF_MAJOR];
	out->minor = ep[SM3_OFF_MINOR];
	out->table_len = rd32(ep + SM3_OFF_TABLE_MAX_SIZE);
	out->table_addr = rd64(ep + SM3_OFF_TABLE_ADDR);
	out->is_64bit_entry = 1;
	return 0;
}

/* The legacy entry point and the intermediate part of a 2.x one: same layout. */
static int parse_dmi(const uint8_t *dmi, struct smbios_info *out)
{
	uint8_t bcd = dmi[DMI_OFF_BCD_REVISION];

	if (!bytes_equal(dmi, DMI_ANCHOR, DMI_ANCHOR_LEN))
		return SMBIOS_ERR_ANCHOR;
	if (!checksum_ok(dmi, DMI_EP_LEN))
		return SMBIOS_ERR_CHECKSUM;
	out->table_len = rd16(dmi + DMI_OFF_TABLE_LEN);
	out->table_addr = rd32(dmi + DMI_OFF_TABLE_ADDR);
	out->major = bcd >> BCD_HIGH_SHIFT;
	out->minor = bcd & BCD_DIGIT_MASK;
	out->is_64bit_entry = 0;
	return 0;
}

static int parse_sm2(const uint8_t *ep, struct smbios_info *out)
{
	uint8_t len = ep[SM2_OFF_LENGTH];
	int rc;

	if (len < SM2_MIN_LEN || len > EP_MAX_LEN)
		return SMBIOS_ERR_LENGTH;
	if (!checksum_ok(ep, len))
		return SMBIOS_ERR_CHECKSUM;
	rc = parse_dmi(ep + SM2_OFF_DMI, out);
	if (rc)
		return rc;
	/* The "_SM_" part carries the full version; the BCD byte cannot say e.g. 2.10. */
	out->major = ep[SM2_OFF_MAJOR];
	out->minor = ep[SM2_OFF_MINOR];
	return 0;
}

const char *smbios_err_reason(int rc)
{
	switch (rc) {
	case SMBIOS_ERR_INVALID:
		return "no SMBIOS table given";
	case SMBIOS_ERR_ANCHOR:
		return "no _SM3_, _SM_ or _DMI_ anchor";
	case SMBIOS_ERR_LENGTH:
		return "entry point length out of range, or an empty table";
	case SMBIOS_ERR_CHECKSUM:
		return "entry point checksum does not sum to zero";
	case SMBIOS_ERR_UNKNOWN:
		return "a populated memory device lacks its speed or data width";
	default:
		return "";
	}
}

int smbios_parse_entry(const void *entry, struct smbios_info *out)
{
	const uint8_t *ep = entry;
	struct smbios_info info = { 0 };
	int rc;

	if (!out)
		return SMBIOS_ERR_INVALID;
	*out = info;
	if (!ep)
		return SMBIOS_ERR_INVALID;

	if (bytes_equal(ep, SM3_ANCHOR, SM3_ANCHOR_LEN))
		rc = parse_sm3(ep, &info);
	else if (bytes_equal(ep, SM2_ANCHOR, SM2_ANCHOR_LEN))
		rc = parse_sm2(ep, &info);
	else if (bytes_equal(ep, DMI_ANCHOR, DMI_ANCHOR_LEN))
		rc = parse_dmi(ep, &info);
	else
		rc = SMBIOS_ERR_ANCHOR;
	if (rc)
		return rc;
	if (!info.table_addr || info.table_len < HDR_LEN)
		return SMBIOS_ERR_LENGTH;

	info.present = 1;
	*out = info;
	return 0;
}

/* One structure: formatted area [0, len) and string set [len, total - 2], both within the table. */
struct smbios_struct {
	const uint8_t *p;
	uint8_t type;
	uint8_t len;
	uint32_t total; /* formatted area + string set + terminator */
};

static bool has_field(const struct smbios_struct *s, uint32_t off, uint32_t size)
{
	return off + size <= s->len;
}

/* Find string number `num` (1-based) of the structure and copy it, truncated, into dst
 * (always NUL-terminated; "" if num is 0 or out of range). Trailing blanks are dropped: part
 * numbers are often space-padded to a fixed width. */
static void copy_string(const struct smbios_struct *s, uint8_t num, char *dst, size_t dst_size)
{
	const uint8_t *p = s->p + s->len;
	const uint8_t *end = s->p + s->total; /* the set is known to end in NUL before this */
	size_t n = 0;

	dst[0] = '\0';
	if (num == 0)
		return;
	for (uint8_t i = 1; i < num; i++) {
		while (p < end && *p)
			p++;
		p++; /* past the NUL */
		if (p >= end || !*p)
			return; /* ran into the terminating empty string: no such string */
	}
	while (p < end && *p && n + 1 < dst_size)
		dst[n++] = (char)*p++;
	while (n > 0 && dst[n - 1] == ASCII_SPACE)
		n--;
	dst[n] = '\0';
}

static uint16_t clamp_speed(uint32_t mts)
{
	return mts > SPEED_FIELD_MAX ? (uint16_t)SPEED_FIELD_MAX : (uint16_t)mts;
}

/* A speed word, with 0xFFFF meaning "see the extended dword" (if the structure has it). */
static uint16_t read_speed(const struct smbios_struct *s, uint32_t off, uint32_t ext_off)
{
	uint16_t v;

	if (!has_field(s, off, sizeof(uint16_t)))
		return 0;
	v = rd16(s->p + off);
	if (v != MD_SPEED_USE_EXTENDED)
		return v;
	if (!has_field(s, ext_off, sizeof(uint32_t)))
		return 0;
	return clamp_speed(rd32(s->p + ext_off) & MD_EXT_SPEED_MASK);
}

static uint16_t read_width(const struct smbios_struct *s, uint32_t off)
{
	uint16_t v;

	if (!has_field(s, off, sizeof(uint16_t)))
		return 0;
	v = rd16(s->p + off);
	return v == MD_WIDTH_UNKNOWN ? 0 : v;
}

static void read_size(const struct smbios_struct *s, struct smbios_memdev *dev)
{
	uint16_t v;

	if (!has_field(s, MD_OFF_SIZE, sizeof(uint16_t)))
		return;
	v = rd16(s->p + MD_OFF_SIZE);
	if (v == MD_SIZE_NONE)
		return;
	if (v == MD_SIZE_UNKNOWN) {
		dev->size_unknown = 1;
		return;
	}
	/* Before 2.7 (no Extended Size field) 0x7FFF is just 32767 MiB. */
	if (v == MD_SIZE_USE_EXTENDED && has_field(s, MD_OFF_EXT_SIZE, sizeof(uint32_t)))
		dev->size_bytes = (rd32(s->p + MD_OFF_EXT_SIZE) & MD_EXT_SIZE_MASK) * MIB;
	else if (v & MD_SIZE_KIB_BIT)
		dev->size_bytes = (v & MD_SIZE_VALUE_MASK) * KIB;
	else
		dev->size_bytes = v * MIB;
}

static uint8_t read_string_num(const struct smbios_struct *s, uint32_t off)
{
	return has_field(s, off, sizeof(uint8_t)) ? s->p[off] : 0;
}

static void decode_memdev(const struct smbios_struct *s, struct smbios_memdev *dev)
{
	*dev = (struct smbios_memdev){ 0 };
	dev->handle = rd16(s->p + HDR_OFF_HANDLE);
	dev->total_width = read_width(s, MD_OFF_TOTAL_WIDTH);
	dev->data_width = read_width(s, MD_OFF_DATA_WIDTH);
	read_size(s, dev);
	if (has_field(s, MD_OFF_TYPE, sizeof(uint8_t)))
		dev->type_code = s->p[MD_OFF_TYPE];
	dev->speed_mts = read_speed(s, MD_OFF_SPEED, MD_OFF_EXT_SPEED);
	dev->conf_speed_mts = read_speed(s, MD_OFF_CONF_SPEED, MD_OFF_EXT_CONF_SPEED);
	copy_string(s, read_string_num(s, MD_OFF_LOCATOR), dev->locator, sizeof(dev->locator));
	copy_string(s, read_string_num(s, MD_OFF_BANK), dev->bank, sizeof(dev->bank));
	copy_string(s, read_string_num(s, MD_OFF_MANUFACTURER), dev->manufacturer,
		    sizeof(dev->manufacturer));
	copy_string(s, read_string_num(s, MD_OFF_PART), dev->part, sizeof(dev->part));
}

/* Delimit the structure starting at table[off] (table length len). False if it is malformed or
 * does not fit completely: the walk must stop there, nothing after it can be located. */
static bool next_struct(const uint8_t *table, uint32_t len, uint32_t off, struct smbios_struct *s)
{
	uint32_t end;

	if (len - off < HDR_LEN)
		return false;
	s->p = table + off;
	s->type = s->p[HDR_OFF_TYPE];
	s->len = s->p[HDR_OFF_LENGTH];
	if (s->len < HDR_LEN || s->len > len - off)
		return false;

	/* The string set ends at the first pair of NULs; this scan is bounded by the table
	 * (len >= HDR_LEN here, so len - 1 cannot wrap). */
	end = off + s->len;
	while (end < len - 1 && (table[end] || table[end + 1]))
		end++;
	if (end >= len - 1)
		return false;
	s->total = end + STRING_SET_TERMINATOR_LEN - off;
	return true;
}

int smbios_for_each_memdev(const struct smbios_info *info, smbios_memdev_cb cb, void *ctx)
{
	const uint8_t *table;
	uint32_t off = 0;
	int count = 0;

	if (!info || !info->present || !info->table_addr)
		return SMBIOS_ERR_INVALID;
	table = (const uint8_t *)(uintptr_t)info->table_addr;

	/* Every structure takes at least HDR_LEN + 2 bytes, so off strictly grows and the loop ends
	 * within table_len / 6 iterations; the explicit bound just makes that visible. */
	for (uint32_t i = 0; i <= info->table_len / (HDR_LEN + STRING_SET_TERMINATOR_LEN); i++) {
		struct smbios_struct s;

		if (!next_struct(table, info->table_len, off, &s))
			break;
		if (s.type == SMBIOS_TYPE_MEMORY_DEVICE) {
			struct smbios_memdev dev;

			decode_memdev(&s, &dev);
			if (cb)
				cb(&dev, ctx);
			count++;
		}
		if (s.type == SMBIOS_TYPE_END_OF_TABLE)
			break;
		off += s.total;
	}
	return count;
}

/* The first structure of `type`, or false. */
static bool find_struct(const struct smbios_info *info, uint8_t type, struct smbios_struct *out)
{
	const uint8_t *table = (const uint8_t *)(uintptr_t)info->table_addr;
	uint32_t off = 0;

	for (uint32_t i = 0; i <= info->table_len / (HDR_LEN + STRING_SET_TERMINATOR_LEN); i++) {
		struct smbios_struct s;

		if (!next_struct(table, info->table_len, off, &s) || s.type == SMBIOS_TYPE_END_OF_TABLE)
			return false;
		if (s.type == type) {
			*out = s;
			return true;
		}
		off += s.total;
	}
	return false;
}

int smbios_ident(const struct smbios_info *info, enum smbios_ident_kind kind, struct smbios_ident_info *out)
{
	struct smbios_struct s;

	if (!info || !info->present || !info->table_addr || !out)
		return SMBIOS_ERR_INVALID;
	*out = (struct smbios_ident_info){ 0 };
	if (!find_struct(info, kind == SMBIOS_IDENT_BOARD ? SMBIOS_TYPE_BASEBOARD : SMBIOS_TYPE_SYSTEM, &s))
		return SMBIOS_ERR_INVALID;
	copy_string(&s, read_string_num(&s, IDENT_OFF_MANUFACTURER), out->manufacturer, sizeof(out->manufacturer));
	copy_string(&s, read_string_num(&s, IDENT_OFF_PRODUCT), out->product, sizeof(out->product));
	copy_string(&s, read_string_num(&s, IDENT_OFF_VERSION), out->version, sizeof(out->version));
	copy_string(&s, read_string_num(&s, IDENT_OFF_SERIAL), out->serial, sizeof(out->serial));
	return 0;
}

int smbios_system_manufacturer(const struct smbios_info *info, char *dst, size_t dst_size)
{
	struct smbios_ident_info id;

	if (!dst || !dst_size)
		return SMBIOS_ERR_INVALID;
	dst[0] = '\0';
	if (smbios_ident(info, SMBIOS_IDENT_SYSTEM, &id) != 0)
		return SMBIOS_ERR_INVALID;
	str_copy(dst, id.manufacturer, dst_size);
	return 0;
}

/* Memory Device Type (DSP0134 7.18.2), indexed by code. */
static const char *const mem_type_names[] = {
	[0x01] = "Other",	[0x02] = "Unknown",	[0x03] = "DRAM",
	[0x04] = "EDRAM",	[0x05] = "VRAM",	[0x06] = "SRAM",
	[0x07] = "RAM",		[0x08] = "ROM",		[0x09] = "Flash",
	[0x0A] = "EEPROM",	[0x0B] = "FEPROM",	[0x0C] = "EPROM",
	[0x0D] = "CDRAM",	[0x0E] = "3DRAM",	[0x0F] = "SDRAM",
	[0x10] = "SGRAM",	[0x11] = "RDRAM",	[0x12] = "DDR",
	[0x13] = "DDR2",	[0x14] = "DDR2 FB-DIMM", /* 0x15..0x17 reserved */
	[0x18] = "DDR3",	[0x19] = "FBD2",	[0x1A] = "DDR4",
	[0x1B] = "LPDDR",	[0x1C] = "LPDDR2",	[0x1D] = "LPDDR3",
	[0x1E] = "LPDDR4",	[0x1F] = "Logical non-volatile device",
	[0x20] = "HBM",		[0x21] = "HBM2",	[0x22] = "DDR5",
	[0x23] = "LPDDR5",	[0x24] = "HBM3",
};

const char *smbios_mem_type_name(uint8_t type_code)
{
	if (type_code < sizeof(mem_type_names) / sizeof(mem_type_names[0]) &&
	    mem_type_names[type_code])
		return mem_type_names[type_code];
	return "Unknown";
}

int smbios_memdev_populated(const struct smbios_memdev *dev)
{
	return dev->size_bytes != 0 || dev->size_unknown;
}

void smbios_peak_init(struct smbios_peak *peak)
{
	*peak = (struct smbios_peak){ 0 };
}

void smbios_peak_add(struct smbios_peak *peak, const struct smbios_memdev *dev)
{
	/* The configured speed is what the memory controller actually runs at. */
	uint32_t mts = dev->conf_speed_mts ? dev->conf_speed_mts : dev->speed_mts;

	if (!smbios_memdev_populated(dev))
		return;
	peak->populated++;
	if (!mts || !dev->data_width) {
		peak->missing_info++;
		return;
	}
	/* MT/s is 10^6 transfers/s, each data_width bits wide: the product is 10^6 bits/s. */
	peak->mbps += (uint64_t)mts * dev->data_width / BITS_PER_BYTE;
}

int smbios_peak_result(const struct smbios_peak *peak, uint64_t *mbps)
{
	if (!peak->populated || peak->missing_info)
		return SMBIOS_ERR_UNKNOWN;
	if (mbps)
		*mbps = peak->mbps;
	return 0;
}

static void peak_cb(const struct smbios_memdev *dev, void *ctx)
{
	smbios_peak_add(ctx, dev);
}

int smbios_dram_peak_mbps(const struct smbios_info *info, uint64_t *mbps)
{
	struct smbios_peak peak;
	int rc;

	smbios_peak_init(&peak);
	rc = smbios_for_each_memdev(info, peak_cb, &peak);
	if (rc < 0)
		return rc;
	return smbios_peak_result(&peak, mbps);
}
