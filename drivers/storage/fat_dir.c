/* The FAT reader's directory half (see fat.h): walking a directory's entries (the FAT12/16 fixed
 * root or a cluster chain), assembling VFAT long names, path lookup and listing. Offsets and
 * values per Microsoft, "FAT: General Overview of On-Disk Format" 1.03, sections "FAT Directory
 * Structure" and "FAT Long Directory Entries". */
#include "drivers/storage/fat.h"
#include "drivers/storage/fat_internal.h"

#include <string.h>

#include "lib/le.h"

/* "FAT Directory Structure": a 32-byte entry. */
#define DIR_ENTRY_BYTES 32
#define DIR_NAME 0
#define DIR_NAME_LEN 11
#define DIR_BASE_LEN 8 /* the name's first 8 bytes are the base, the last 3 the extension */
#define DIR_ATTR 11
#define DIR_NT_RES 12
#define DIR_FST_CLUS_HI 20
#define DIR_FST_CLUS_LO 26
#define DIR_FILE_SIZE 28
#define DIR_FREE 0xE5      /* DIR_Name[0]: a deleted entry */
#define DIR_END 0x00       /* DIR_Name[0]: this entry and all after it are free */
#define DIR_KANJI_E5 0x05  /* DIR_Name[0]: stands for a first byte 0xE5 */
#define DIR_DOT '.'        /* DIR_Name[0] of "." and "..", which no other short name starts with */
#define DIR_PAD ' '
/* A directory holds at most 65536 entries (2 MiB): the bound of every directory walk. */
#define DIR_MAX_ENTRIES 65536u
/* DIR_NTRes: Windows NT's case flags (the spec keeps the byte "reserved"; mtools and Windows set
 * them for an all-lower-case base or extension that needs no long name). */
#define DIR_NT_LOWER_BASE 0x08
#define DIR_NT_LOWER_EXT 0x10

/* "FAT Long Directory Entries". */
#define LDIR_ORD 0
#define LDIR_TYPE 12
#define LDIR_CHKSUM 13
#define LDIR_FST_CLUS_LO 26
#define LDIR_LAST 0x40      /* LAST_LONG_ENTRY, or-ed into the order of the name's last part */
#define LDIR_ORD_MASK 0x3F
#define LDIR_MAX_PARTS 20   /* 255 characters, 13 per entry */
#define LDIR_CHARS 13
#define LFN_MAX_CHARS 255
#define ATTR_LONG_NAME 0x0F /* READ_ONLY | HIDDEN | SYSTEM | VOLUME_ID ... */
#define ATTR_LONG_NAME_MASK 0x3F /* ... compared under this mask */
#define UCS2_NUL 0x0000u
#define ASCII_MAX 0x7Fu
#define NON_ASCII '?'

/* The byte offsets of a long entry's 13 UCS-2 characters (LDIR_Name1, LDIR_Name2, LDIR_Name3). */
static const uint8_t ldir_char_off[LDIR_CHARS] = { 1, 3, 5, 7, 9, 14, 16, 18, 20, 22, 24, 28, 30 };

/* Where a directory walk is. */
struct dir_pos {
	uint32_t cluster; /* the current cluster; 0 in the FAT12/16 fixed root */
	uint32_t sector;  /* the sector in that cluster, or in the fixed root */
	uint32_t index;   /* the next entry in that sector */
	uint32_t entries; /* entries read so far */
};

/* A long name being assembled: its parts come last part first, each with the same checksum. */
struct lfn {
	uint16_t chars[LDIR_MAX_PARTS * LDIR_CHARS];
	uint8_t next_ord; /* the order the next part must have; 0 when complete */
	uint8_t sum;
	uint8_t active;   /* a name is in progress or complete */
};

/* A directory entry with its names. */
struct dir_entry {
	char name[FAT_NAME_MAX];    /* the long name if valid, else the 8.3 name */
	char short_name[DIR_NAME_LEN + 2];
	struct fat_file f;
};

static int dir_open(struct fat_vol *v, const struct fat_file *dir, struct dir_pos *pos)
{
	memset(pos, 0, sizeof(*pos));
	pos->cluster = dir->first_cluster;
	if (pos->cluster == 0 && v->type == 32)
		pos->cluster = v->root_cluster;
	if (pos->cluster != 0 && !fat_cluster_valid(v, pos->cluster))
		return fat_fail(v, FAT_ERR_CORRUPT, "a directory's first cluster is outside the volume");
	return 0;
}

/* The next 32-byte entry of the directory, copied into ent (the cache may be reused by the time
 * the caller looks). 1, 0 at the end of the directory's space, or a negative FAT_ERR_*. */
static int dir_next_raw(struct fat_vol *v, struct dir_pos *pos, uint8_t ent[DIR_ENTRY_BYTES])
{
	uint64_t sector;
	const uint8_t *p;
	int rc;

	if (pos->entries >= DIR_MAX_ENTRIES)
		return fat_fail(v, FAT_ERR_CORRUPT, "a directory is longer than 65536 entries (a cycle?)");
	if (pos->index == v->bytes_per_sec / DIR_ENTRY_BYTES) {
		pos->index = 0;
		pos->sector++;
	}
	if (pos->cluster == 0) {
		if (pos->sector >= v->root_sectors)
			return 0;
		sector = (uint64_t)v->root_start + pos->sector;
	} else {
		if (pos->sector == v->sec_per_clus) {
			rc = fat_next_cluster(v, pos->cluster, &pos->cluster);
			if (rc)
				return rc == FAT_CHAIN_END ? 0 : rc;
			pos->sector = 0;
		}
		sector = fat_cluster_sector(v, pos->cluster) + pos->sector;
	}
	rc = fat_vol_bytes(v, sector * v->bytes_per_sec + (uint64_t)pos->index * DIR_ENTRY_BYTES, &p);
	if (rc)
		return rc;
	memcpy(ent, p, DIR_ENTRY_BYTES);
	pos->index++;
	pos->entries++;
	return 1;
}

/* "FAT Long Directory Entries": the checksum of the short name a long name belongs to. */
static uint8_t short_name_sum(const uint8_t *name)
{
	uint8_t sum = 0;

	for (unsigned i = 0; i < DIR_NAME_LEN; i++)
		sum = (uint8_t)(((sum & 1) ? 0x80 : 0) + (sum >> 1) + name[i]);
	return sum;
}

/* Take a long entry into the name being assembled; a part out of order starts over (or drops it). */
static void lfn_add(struct lfn *l, const uint8_t *ent)
{
	unsigned ord = ent[LDIR_ORD] & LDIR_ORD_MASK;

	if (ord == 0 || ord > LDIR_MAX_PARTS || ent[LDIR_TYPE] != 0 || rd16(ent + LDIR_FST_CLUS_LO) != 0) {
		l->active = 0;
		return;
	}
	if (ent[LDIR_ORD] & LDIR_LAST) {
		l->active = 1;
		l->sum = ent[LDIR_CHKSUM];
		for (unsigned i = 0; i < LDIR_MAX_PARTS * LDIR_CHARS; i++)
			l->chars[i] = UCS2_NUL;
	} else if (!l->active || ord != l->next_ord || ent[LDIR_CHKSUM] != l->sum) {
		l->active = 0;
		return;
	}
	for (unsigned i = 0; i < LDIR_CHARS; i++)
		l->chars[(ord - 1) * LDIR_CHARS + i] = rd16(ent + ldir_char_off[i]);
	l->next_ord = (uint8_t)(ord - 1);
}

/* The assembled long name, as ASCII, if it is complete and belongs to the short entry `ent`. */
static int lfn_take(struct lfn *l, const uint8_t *ent, char *out)
{
	unsigned n = 0;

	if (!l->active || l->next_ord != 0 || l->sum != short_name_sum(ent + DIR_NAME))
		return 0;
	while (n < LDIR_MAX_PARTS * LDIR_CHARS && l->chars[n] != UCS2_NUL)
		n++;
	if (n == 0 || n > LFN_MAX_CHARS)
		return 0;
	for (unsigned i = 0; i < n; i++)
		out[i] = l->chars[i] <= ASCII_MAX ? (char)l->chars[i] : NON_ASCII;
	out[n] = '\0';
	return 1;
}

static char ascii_lower(char c)
{
	return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

/* One character of an 8.3 name: ASCII, lower case when DIR_NTRes's flag for its part is set. */
static char short_char(const uint8_t *ent, unsigned i, uint8_t lower_flag)
{
	uint8_t c = ent[DIR_NAME + i];

	if (i == 0 && c == DIR_KANJI_E5)
		c = DIR_FREE;
	if (c > ASCII_MAX)
		return NON_ASCII;
	return (ent[DIR_NT_RES] & lower_flag) ? ascii_lower((char)c) : (char)c;
}

/* "NAME.EXT" from an entry's 11-byte name (padding dropped; no '.' without an extension). */
static void short_name(const uint8_t *ent, char *out)
{
	unsigned n = 0, base = DIR_BASE_LEN, end = DIR_NAME_LEN;

	while (base > 0 && ent[DIR_NAME + base - 1] == DIR_PAD)
		base--;
	while (end > DIR_BASE_LEN && ent[DIR_NAME + end - 1] == DIR_PAD)
		end--;
	for (unsigned i = 0; i < base; i++)
		out[n++] = short_char(ent, i, DIR_NT_LOWER_BASE);
	if (end > DIR_BASE_LEN)
		out[n++] = '.';
	for (unsigned i = DIR_BASE_LEN; i < end; i++)
		out[n++] = short_char(ent, i, DIR_NT_LOWER_EXT);
	out[n] = '\0';
}

/* The next file or directory of the directory, with its names: long entries are assembled,
 * deleted entries, volume labels, "." and ".." skipped. 1, 0 at the directory's end, or a
 * negative FAT_ERR_*. */
static int dir_next(struct fat_vol *v, struct dir_pos *pos, struct lfn *l, struct dir_entry *e)
{
	uint8_t ent[DIR_ENTRY_BYTES];
	int rc;

	/* Bounded: dir_next_raw fails after DIR_MAX_ENTRIES. */
	while ((rc = dir_next_raw(v, pos, ent)) == 1) {
		if (ent[DIR_NAME] == DIR_END)
			return 0;
		if (ent[DIR_NAME] == DIR_FREE) {
			l->active = 0;
			continue;
		}
		if ((ent[DIR_ATTR] & ATTR_LONG_NAME_MASK) == ATTR_LONG_NAME) {
			lfn_add(l, ent);
			continue;
		}
		if ((ent[DIR_ATTR] & FAT_ATTR_VOLUME_ID) || ent[DIR_NAME] == DIR_DOT) {
			l->active = 0;
			continue;
		}
		short_name(ent, e->short_name);
		if (!lfn_take(l, ent, e->name))
			memcpy(e->name, e->short_name, sizeof(e->short_name));
		l->active = 0;
		e->f.attr = ent[DIR_ATTR];
		e->f.size = rd32(ent + DIR_FILE_SIZE);
		e->f.first_cluster = rd16(ent + DIR_FST_CLUS_LO);
		if (v->type == 32) /* DIR_FstClusHI is only FAT32's */
			e->f.first_cluster |= (uint32_t)rd16(ent + DIR_FST_CLUS_HI) << 16;
		if (e->f.attr & FAT_ATTR_DIRECTORY)
			e->f.size = 0;
		return 1;
	}
	return rc;
}

/* Case-insensitive (ASCII) comparison of a path component (s, len) with a NUL-ended name. */
static int name_eq(const char *s, unsigned len, const char *name)
{
	for (unsigned i = 0; i < len; i++)
		if (name[i] == '\0' || ascii_lower(s[i]) != ascii_lower(name[i]))
			return 0;
	return name[len] == '\0';
}

/* Find the component (s, len) in the directory dir. */
static int dir_find(struct fat_vol *v, const struct fat_file *dir, const char *s, unsigned len,
		    struct fat_file *f)
{
	struct dir_pos pos;
	struct lfn l = { .active = 0 };
	struct dir_entry e;
	int rc = dir_open(v, dir, &pos);

	while (rc == 0) {
		rc = dir_next(v, &pos, &l, &e);
		if (rc == 0)
			return fat_fail(v, FAT_ERR_NOT_FOUND, "no such file or directory");
		if (rc == 1 && (name_eq(s, len, e.name) || name_eq(s, len, e.short_name))) {
			*f = e.f;
			return 0;
		}
		if (rc == 1)
			rc = 0;
	}
	return rc;
}

static int is_sep(char c)
{
	return c == '\\' || c == '/';
}

int fat_lookup(struct fat_vol *v, const char *path, struct fat_file *f)
{
	struct fat_file cur;
	int rc;

	if (!v || !v->type || !path || !f)
		return v ? fat_fail(v, FAT_ERR_ARG, "no mounted volume, path or file") : FAT_ERR_ARG;
	cur.first_cluster = v->type == 32 ? v->root_cluster : 0;
	cur.size = 0;
	cur.attr = FAT_ATTR_DIRECTORY;
	/* Bounded by the path's length: each step consumes at least one character. */
	while (*path) {
		unsigned len = 0;

		if (is_sep(*path)) {
			path++;
			continue;
		}
		while (path[len] && !is_sep(path[len]))
			len++;
		if (!(cur.attr & FAT_ATTR_DIRECTORY))
			return fat_fail(v, FAT_ERR_NOT_FOUND, "a path component is not a directory");
		if (len > LFN_MAX_CHARS)
			return fat_fail(v, FAT_ERR_NOT_FOUND, "a path component is longer than 255 characters");
		rc = dir_find(v, &cur, path, len, &cur);
		if (rc)
			return rc;
		if ((cur.attr & FAT_ATTR_DIRECTORY) && cur.first_cluster == 0)
			return fat_fail(v, FAT_ERR_CORRUPT, "a subdirectory's entry has no cluster");
		path += len;
	}
	*f = cur;
	return 0;
}

int fat_list_dir(struct fat_vol *v, const char *path,
		 void (*fn)(const char *name, const struct fat_file *f, void *ctx), void *ctx)
{
	struct fat_file dir;
	struct dir_pos pos;
	struct lfn l = { .active = 0 };
	struct dir_entry e;
	int rc;

	if (!fn)
		return v ? fat_fail(v, FAT_ERR_ARG, "no callback") : FAT_ERR_ARG;
	rc = fat_lookup(v, path, &dir);
	if (rc)
		return rc;
	if (!(dir.attr & FAT_ATTR_DIRECTORY))
		return fat_fail(v, FAT_ERR_NOT_FOUND, "the path is a file, not a directory");
	rc = dir_open(v, &dir, &pos);
	while (rc == 0 && (rc = dir_next(v, &pos, &l, &e)) == 1) {
		fn(e.name, &e.f, ctx);
		rc = 0;
	}
	return rc < 0 ? rc : 0;
}
