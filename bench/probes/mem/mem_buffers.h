/* Buffers and the size sweep shared by the memory probes: two buffers (source, destination) of
 * the sweep's largest size from the arena, 64-byte aligned, the destination offset by one page
 * plus one line so source and destination never alias in 4 KiB-indexed structures. */
#ifndef BENCH_MEM_BUFFERS_H
#define BENCH_MEM_BUFFERS_H

#include <stddef.h>
#include <stdint.h>

#include "bench/core/probe.h"
#include "bench/probes/mem/sweep.h"

struct mem_setup {
	uint8_t *src, *dst;
	uint64_t max; /* bytes of each buffer */
	size_t n_sizes;
	uint64_t sizes[SWEEP_MAX_POINTS];
	const char *page; /* page size mapping the buffers */
};

/* Allocate the buffers and compute the sweep; false (after a skip record for `probe`) when the
 * arena cannot hold the smallest sweep. want_dst: also allocate a destination buffer. */
bool mem_setup(struct probe_env *env, const char *probe, bool want_dst, struct mem_setup *m);

#endif
