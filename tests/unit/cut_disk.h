/* A block device with a volatile write cache, for power-cut tests of the boot stick's log
 * (tests/unit/test_save_log_cut.c). A write is visible to reads at once but durable only after
 * the next sync: until then the device may keep or drop it, in any order, as a USB stick's
 * controller may (SCSI SBC-3 4.13: data in a volatile cache is lost on power loss unless a
 * SYNCHRONIZE CACHE completed after it). Power fails when a chosen operation is issued: that
 * write is torn (only its first tear_bytes new, the rest as before) and it and every later
 * operation fail. cut_disk_medium() then builds what the medium holds after the cut
 * for one choice of which cached writes survived. */
#ifndef TESTS_UNIT_CUT_DISK_H
#define TESTS_UNIT_CUT_DISK_H

#include <stdbool.h>
#include <stdint.h>

#define CUT_DISK_PENDING_MAX 24 /* cached writes between two syncs */
#define CUT_DISK_OPS_MAX 256

enum cut_op_kind { CUT_OP_WRITE, CUT_OP_SYNC };

struct cut_op {
	enum cut_op_kind kind;
	uint64_t lba;
	uint32_t blocks;
};

struct cut_disk {
	uint32_t block;
	uint64_t blocks;
	uint8_t *durable;  /* the medium as of the last sync */
	uint8_t *view;     /* what reads return: durable plus every cached write */
	struct {
		uint64_t lba;
		uint32_t blocks;
		bool torn;
		uint8_t *bytes; /* what the write asked for */
	} pend[CUT_DISK_PENDING_MAX];
	unsigned npend;
	struct cut_op ops[CUT_DISK_OPS_MAX]; /* every write and sync issued, power or not */
	unsigned nops;
	unsigned cut_at; /* power fails when operation number cut_at (1-based) is issued; 0: never */
	uint32_t tear_bytes; /* bytes of the cut write that reach the medium (less than a block) */
	bool overflow;   /* more cached writes than the model keeps: the test is invalid */
};

void cut_disk_init(struct cut_disk *d, uint32_t block, uint64_t blocks);
void cut_disk_free(struct cut_disk *d);
/* The ops for struct save_dev (ctx: the cut_disk). */
int cut_disk_read(void *ctx, uint64_t lba, uint32_t blocks, void *buf);
int cut_disk_write(void *ctx, uint64_t lba, uint32_t blocks, const void *buf);
int cut_disk_sync(void *ctx);
/* Into out (block * blocks bytes): the medium after the cut when the cached writes whose bit is
 * set in `survive` (bit i: the i-th cached write, oldest first) reached it, in issue order. */
void cut_disk_medium(const struct cut_disk *d, uint32_t survive, uint8_t *out);

#endif
