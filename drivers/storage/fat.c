/* The FAT reader's volume half (see fat.h): the boot sector and BPB, the one-unit read cache, FAT
 * entries and cluster chains turned into device extents. The directory half is fat_dir.c.
 * Offsets and values per Microsoft, "FAT: General Overview of On-Disk Format" 1.03; the comments
 * name the spec's section headings. */
#include "drivers/storage/fat.h"
#include "drivers/storage/fat_internal.h"

#include <string.h>

#include "lib/le.h"

/* "Boot Sector and BPB": the fields this reader uses, byte offsets in sector 0. */
#define BS_JMP_BOOT 0
#define BS_JMP_SHORT 0xEB /* the two allowed first bytes of the jump instruction */
#define BS_JMP_NEAR 0xE9
#define BPB_BYTS_PER_SEC 11
#define BPB_SEC_PER_CLUS 13
#define BPB_RSVD_SEC_CNT 14
#define BPB_NUM_FATS 16
#define BPB_ROOT_ENT_CNT 17
#define BPB_TOT_SEC16 19
#define BPB_FAT_SZ16 22
#define BPB_TOT_SEC32 32
/* "FAT32 Structure Starting at Offset 36" */
#define BPB_FAT_SZ32 36
#define BPB_EXT_FLAGS 40
#define BPB_EXT_MIRROR_OFF 0x80 /* ExtFlags bit 7: only one FAT is active ... */
#define BPB_EXT_ACTIVE_MASK 0x0F /* ... the one named by bits 0-3 */
#define BPB_FS_VER 42
#define BPB_ROOT_CLUS 44
/* The signature is at offsets 510 and 511 whatever the sector size. */
#define BS_SIG_OFF 510
#define BS_SIG_0 0x55
#define BS_SIG_1 0xAA
#define BS_MIN_BYTES 512 /* the boot sector fields all lie in its first 512 bytes */

#define FAT_SEC_MIN 512u /* BPB_BytsPerSec: 512, 1024, 2048 or 4096 */
#define FAT_SEC_MAX 4096u
#define FAT_DIR_ENTRY_BYTES 32

/* "FAT Type Determination": the type is decided by the count of data clusters alone. */
#define FAT12_MAX_CLUSTERS 4084u  /* fewer than 4085 */
#define FAT16_MAX_CLUSTERS 65524u /* fewer than 65525 */
/* FAT32 entries are 28 bits; the top values are BAD and EOC, so at most this many clusters. */
#define FAT32_MAX_CLUSTERS 0x0FFFFFF5u

/* "FAT Data Structure": entry values (free 0; bad cluster; end of chain: this value and above). */
#define FAT_FREE 0u
#define FAT12_BAD 0xFF7u
#define FAT12_EOC_MIN 0xFF8u
#define FAT16_BAD 0xFFF7u
#define FAT16_EOC_MIN 0xFFF8u
#define FAT32_ENTRY_MASK 0x0FFFFFFFu /* the high 4 bits are reserved: ignored on read */
#define FAT32_BAD 0x0FFFFFF7u
#define FAT32_EOC_MIN 0x0FFFFFF8u
#define FAT_ENTRY12_ODD_SHIFT 4 /* an odd cluster's 12 bits are the high ones of its 16 */
#define FAT_ENTRY12_MASK 0xFFFu

int fat_fail(struct fat_vol *v, int err, const char *why)
{
	v->error = why;
	return err;
}

static int is_pow2(uint32_t x)
{
	return x != 0 && (x & (x - 1)) == 0;
}

/* Make the unit (unit_size bytes from the volume's start) numbered `unit` the scratch's content:
 * read only when it is not already there. */
static int load_unit(struct fat_vol *v, uint64_t unit)
{
	uint32_t blocks = v->unit_size / v->r->block_size;

	if (v->cache_valid && v->cached_unit == unit)
		return 0;
	v->cache_valid = 0;
	if (v->r->read(v->r->ctx, v->part_lba + unit * blocks, blocks, v->scratch) != 0)
		return fat_fail(v, FAT_ERR_IO, "the device read failed");
	v->cached_unit = unit;
	v->cache_valid = 1;
	return 0;
}

int fat_vol_bytes(struct fat_vol *v, uint64_t off, const uint8_t **p)
{
	int rc = load_unit(v, off / v->unit_size);

	if (rc)
		return rc;
	*p = v->scratch + off % v->unit_size;
	return 0;
}

uint64_t fat_cluster_sector(const struct fat_vol *v, uint32_t cluster)
{
	return v->data_start + (uint64_t)(cluster - FAT_FIRST_CLUSTER) * v->sec_per_clus;
}

int fat_cluster_valid(const struct fat_vol *v, uint32_t cluster)
{
	return cluster >= FAT_FIRST_CLUSTER && cluster - FAT_FIRST_CLUSTER < v->cluster_count;
}

/* The FAT's bits per entry must cover every cluster: a valid cluster number never indexes past it. */
static int fat_covers(uint32_t type, uint64_t fat_bytes, uint64_t clusters)
{
	return (clusters + FAT_FIRST_CLUSTER) * type <= fat_bytes * 8;
}

/* FAT32's own BPB fields ("FAT32 Structure Starting at Offset 36"); fat_start is the first FAT. */
static int parse_fat32(struct fat_vol *v, const uint8_t *b, uint32_t root_ents, uint32_t num_fats,
		       uint32_t fat_sz)
{
	uint32_t ext = rd16(b + BPB_EXT_FLAGS);

	if (root_ents != 0 || rd16(b + BPB_FAT_SZ16) != 0)
		return fat_fail(v, FAT_ERR_FORMAT, "FAT32 by cluster count, but the BPB has a FAT12/16 root or FAT size");
	if (rd16(b + BPB_FS_VER) != 0)
		return fat_fail(v, FAT_ERR_FORMAT, "FAT32 version is not 0.0");
	if (v->cluster_count > FAT32_MAX_CLUSTERS)
		return fat_fail(v, FAT_ERR_FORMAT, "more clusters than FAT32 can number");
	if (ext & BPB_EXT_MIRROR_OFF) {
		if ((ext & BPB_EXT_ACTIVE_MASK) >= num_fats)
			return fat_fail(v, FAT_ERR_FORMAT, "the active FAT is not one of the volume's FATs");
		v->fat_start += (ext & BPB_EXT_ACTIVE_MASK) * fat_sz;
	}
	v->root_cluster = rd32(b + BPB_ROOT_CLUS);
	if (!fat_cluster_valid(v, v->root_cluster))
		return fat_fail(v, FAT_ERR_FORMAT, "the root directory's cluster is outside the volume");
	return 0;
}

/* Validate the boot sector and fill the volume's geometry ("Boot Sector and BPB", "FAT Type
 * Determination"). */
static int parse_bpb(struct fat_vol *v, const uint8_t *b)
{
	uint32_t bps = rd16(b + BPB_BYTS_PER_SEC), spc = b[BPB_SEC_PER_CLUS];
	uint32_t rsvd = rd16(b + BPB_RSVD_SEC_CNT), num_fats = b[BPB_NUM_FATS];
	uint32_t root_ents = rd16(b + BPB_ROOT_ENT_CNT);
	uint32_t fat_sz = rd16(b + BPB_FAT_SZ16) ? rd16(b + BPB_FAT_SZ16) : rd32(b + BPB_FAT_SZ32);
	uint32_t tot_sec = rd16(b + BPB_TOT_SEC16) ? rd16(b + BPB_TOT_SEC16) : rd32(b + BPB_TOT_SEC32);
	uint64_t root_secs, meta;

	if (b[BS_SIG_OFF] != BS_SIG_0 || b[BS_SIG_OFF + 1] != BS_SIG_1)
		return fat_fail(v, FAT_ERR_FORMAT, "no boot sector signature 0x55 0xAA");
	if (b[BS_JMP_BOOT] != BS_JMP_SHORT && b[BS_JMP_BOOT] != BS_JMP_NEAR)
		return fat_fail(v, FAT_ERR_FORMAT, "the boot sector does not start with a jump (not FAT)");
	if (!is_pow2(bps) || bps < FAT_SEC_MIN || bps > FAT_SEC_MAX)
		return fat_fail(v, FAT_ERR_FORMAT, "bytes per sector is not 512, 1024, 2048 or 4096");
	if (!is_pow2(spc))
		return fat_fail(v, FAT_ERR_FORMAT, "sectors per cluster is not a power of two");
	if (rsvd == 0 || num_fats == 0 || fat_sz == 0)
		return fat_fail(v, FAT_ERR_FORMAT, "no reserved sectors, no FAT, or a FAT of size 0");
	root_secs = ((uint64_t)root_ents * FAT_DIR_ENTRY_BYTES + bps - 1) / bps;
	meta = rsvd + (uint64_t)num_fats * fat_sz + root_secs;
	if (tot_sec <= meta)
		return fat_fail(v, FAT_ERR_FORMAT, "the volume ends before its data region");
	v->bytes_per_sec = bps;
	v->sec_per_clus = spc;
	v->fat_start = rsvd;
	v->root_start = (uint32_t)(meta - root_secs);
	v->root_sectors = (uint32_t)root_secs;
	v->data_start = (uint32_t)meta;
	v->cluster_count = (uint32_t)((tot_sec - meta) / spc);
	v->type = v->cluster_count <= FAT12_MAX_CLUSTERS ? 12 : v->cluster_count <= FAT16_MAX_CLUSTERS ? 16 : 32;
	if (v->cluster_count == 0)
		return fat_fail(v, FAT_ERR_FORMAT, "the volume has no data clusters");
	if (!fat_covers(v->type, (uint64_t)fat_sz * bps, v->cluster_count))
		return fat_fail(v, FAT_ERR_FORMAT, "the FAT is too small for the volume's clusters");
	if (v->type == 32)
		return parse_fat32(v, b, root_ents, num_fats, fat_sz);
	if (root_ents == 0 || rd16(b + BPB_FAT_SZ16) == 0)
		return fat_fail(v, FAT_ERR_FORMAT, "FAT12/16 by cluster count, but the BPB has no root directory or FAT size");
	return 0;
}

int fat_mount(struct fat_vol *v, const struct blk_reader *r, uint64_t part_lba, void *scratch,
	      size_t scratch_size)
{
	const uint8_t *b;
	int rc;

	if (!v)
		return FAT_ERR_ARG;
	memset(v, 0, sizeof(*v));
	v->error = "";
	if (!r || !r->read || !scratch)
		return fat_fail(v, FAT_ERR_ARG, "no block reader or no scratch buffer");
	if (!is_pow2(r->block_size) || r->block_size < FAT_SEC_MIN || r->block_size > FAT_SCRATCH_MAX)
		return fat_fail(v, FAT_ERR_ARG, "the device block size is not a power of two from 512 to 4096");
	if (scratch_size < r->block_size)
		return fat_fail(v, FAT_ERR_ARG, "the scratch buffer is smaller than a device block");
	v->r = r;
	v->part_lba = part_lba;
	v->scratch = scratch;
	v->scratch_size = scratch_size;
	v->unit_size = r->block_size; /* the sector size is not known yet; the BPB is in one block */
	rc = fat_vol_bytes(v, 0, &b);
	if (rc == 0)
		rc = parse_bpb(v, b);
	if (rc == 0) {
		v->unit_size = v->bytes_per_sec > r->block_size ? v->bytes_per_sec : r->block_size;
		v->cache_valid = 0;
		if (scratch_size < v->unit_size)
			rc = fat_fail(v, FAT_ERR_ARG, "the scratch buffer is smaller than a sector");
	}
	if (rc)
		v->type = 0; /* not mounted: every other call refuses it */
	return rc;
}

/* The FAT entry of `cluster` ("FAT Data Structure"). */
static int fat_entry(struct fat_vol *v, uint32_t cluster, uint32_t *val)
{
	uint64_t base = (uint64_t)v->fat_start * v->bytes_per_sec;
	const uint8_t *p;
	uint32_t lo;
	int rc;

	if (v->type == 12) {
		/* 1.5 bytes per entry: its two bytes may lie in two sectors, so read them one by one. */
		uint64_t off = base + cluster + cluster / 2;

		rc = fat_vol_bytes(v, off, &p);
		if (rc)
			return rc;
		lo = *p;
		rc = fat_vol_bytes(v, off + 1, &p);
		if (rc)
			return rc;
		lo |= (uint32_t)*p << 8;
		*val = (cluster & 1) ? lo >> FAT_ENTRY12_ODD_SHIFT : lo & FAT_ENTRY12_MASK;
		return 0;
	}
	/* 2 or 4 bytes, aligned: never across a sector. */
	rc = fat_vol_bytes(v, base + (uint64_t)cluster * (v->type / 8), &p);
	if (rc)
		return rc;
	*val = v->type == 16 ? rd16(p) : rd32(p) & FAT32_ENTRY_MASK;
	return 0;
}

int fat_next_cluster(struct fat_vol *v, uint32_t cluster, uint32_t *next)
{
	uint32_t val, bad = v->type == 12 ? FAT12_BAD : v->type == 16 ? FAT16_BAD : FAT32_BAD;
	uint32_t eoc = v->type == 12 ? FAT12_EOC_MIN : v->type == 16 ? FAT16_EOC_MIN : FAT32_EOC_MIN;
	int rc = fat_entry(v, cluster, &val);

	if (rc)
		return rc;
	if (val >= eoc)
		return FAT_CHAIN_END;
	if (val == bad)
		return fat_fail(v, FAT_ERR_CORRUPT, "a cluster chain runs into a cluster marked bad");
	if (val == FAT_FREE)
		return fat_fail(v, FAT_ERR_CORRUPT, "a cluster chain runs into a free cluster");
	if (!fat_cluster_valid(v, val))
		return fat_fail(v, FAT_ERR_CORRUPT, "a cluster chain points outside the volume's clusters");
	*next = val;
	return 0;
}

/* Append a cluster's blocks to the extent list, merged with the last extent when adjacent. */
static int add_cluster(struct fat_vol *v, uint32_t cluster, struct fat_extent *out, unsigned max,
		       unsigned *n)
{
	uint64_t blocks = (uint64_t)v->sec_per_clus * v->bytes_per_sec / v->r->block_size;
	uint64_t lba = v->part_lba + fat_cluster_sector(v, cluster) * v->bytes_per_sec / v->r->block_size;

	if (*n > 0 && out[*n - 1].lba + out[*n - 1].blocks == lba) {
		out[*n - 1].blocks += blocks;
		return 0;
	}
	if (*n >= max)
		return fat_fail(v, FAT_ERR_LIMIT, "the file has more extents than the list can hold");
	out[*n].lba = lba;
	out[*n].blocks = blocks;
	(*n)++;
	return 0;
}

/* Checks before a chain walk; *need: the clusters a file's size needs (UINT32_MAX: a directory,
 * whose chain has no size to match). 1: nothing to walk (an empty file). */
static int extents_start(struct fat_vol *v, const struct fat_file *f, uint32_t *need)
{
	uint64_t clus_bytes = (uint64_t)v->sec_per_clus * v->bytes_per_sec;

	if (clus_bytes % v->r->block_size || (uint64_t)v->data_start * v->bytes_per_sec % v->r->block_size)
		return fat_fail(v, FAT_ERR_LIMIT, "clusters do not start and end on device blocks");
	if (f->attr & FAT_ATTR_DIRECTORY) {
		if (f->first_cluster == 0 && v->type != 32)
			return fat_fail(v, FAT_ERR_ARG, "the FAT12/16 root directory is not in clusters");
		*need = UINT32_MAX;
	} else {
		*need = (uint32_t)((f->size + clus_bytes - 1) / clus_bytes);
		if (*need == 0 && f->first_cluster == 0)
			return 1;
		if (*need == 0)
			return fat_fail(v, FAT_ERR_CORRUPT, "an empty file has clusters");
		if (f->first_cluster == 0)
			return fat_fail(v, FAT_ERR_CORRUPT, "a file has a size but no clusters");
	}
	if (!fat_cluster_valid(v, f->first_cluster ? f->first_cluster : v->root_cluster))
		return fat_fail(v, FAT_ERR_CORRUPT, "the first cluster is outside the volume's clusters");
	return 0;
}

int fat_extents(struct fat_vol *v, const struct fat_file *f, struct fat_extent *out, unsigned max,
		unsigned *n)
{
	uint32_t need = 0, c, i;
	int rc;

	if (!n)
		return v ? fat_fail(v, FAT_ERR_ARG, "no extent count") : FAT_ERR_ARG;
	*n = 0;
	if (!v || !v->type || !f || (!out && max))
		return v ? fat_fail(v, FAT_ERR_ARG, "no mounted volume, file or extent list") : FAT_ERR_ARG;
	rc = extents_start(v, f, &need);
	if (rc)
		return rc < 0 ? rc : 0;
	c = f->first_cluster ? f->first_cluster : v->root_cluster;
	/* A chain visits each cluster at most once: more steps than clusters is a cycle. Clusters past
	 * the size are walked (not listed) to tell a long chain from a cycle. */
	for (i = 0; i < v->cluster_count; i++) {
		if (i < need)
			rc = add_cluster(v, c, out, max, n);
		if (rc == 0)
			rc = fat_next_cluster(v, c, &c);
		if (rc == FAT_CHAIN_END) {
			if (need != UINT32_MAX && i + 1 < need)
				rc = fat_fail(v, FAT_ERR_CORRUPT, "the cluster chain is shorter than the file's size");
			else if (need != UINT32_MAX && i + 1 > need)
				rc = fat_fail(v, FAT_ERR_CORRUPT, "the cluster chain is longer than the file's size");
			else
				return 0;
		}
		if (rc) {
			*n = 0;
			return rc;
		}
	}
	*n = 0;
	return fat_fail(v, FAT_ERR_CORRUPT, "the cluster chain has a cycle (longer than the volume)");
}

const char *fat_error(const struct fat_vol *v)
{
	return v && v->error ? v->error : "";
}
