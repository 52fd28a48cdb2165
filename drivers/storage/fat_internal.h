/* What the FAT reader's two halves share (drivers/storage/fat.c: volume, FAT and extents;
 * fat_dir.c: directories and names). Not an API: callers use fat.h. */
#ifndef DRIVERS_STORAGE_FAT_INTERNAL_H
#define DRIVERS_STORAGE_FAT_INTERNAL_H

#include "drivers/storage/fat.h"

#define FAT_FIRST_CLUSTER 2u /* clusters 0 and 1 are reserved: the data region starts at 2 */
#define FAT_CHAIN_END 1      /* fat_next_cluster: the cluster is the chain's last */

/* Set the volume's reason and return err. */
int fat_fail(struct fat_vol *v, int err, const char *why);

/* *p: the volume's byte at offset off, inside the scratch cache; the bytes after it up to the
 * sector's end are there too. Valid until the next read. 0, or FAT_ERR_IO. */
int fat_vol_bytes(struct fat_vol *v, uint64_t off, const uint8_t **p);

/* The first sector of a data cluster (from the volume's start). */
uint64_t fat_cluster_sector(const struct fat_vol *v, uint32_t cluster);

/* Whether cluster is a data cluster of the volume (2 .. cluster_count + 1). */
int fat_cluster_valid(const struct fat_vol *v, uint32_t cluster);

/* The cluster after `cluster` in its chain: 0 with *next set, FAT_CHAIN_END at an end-of-chain
 * mark, or a negative FAT_ERR_* (CORRUPT: free, bad, reserved or out-of-range entry; IO). */
int fat_next_cluster(struct fat_vol *v, uint32_t cluster, uint32_t *next);

#endif
