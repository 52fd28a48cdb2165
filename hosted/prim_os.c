/* bench/probes/prim_os.h under Linux: the operating system primitives probe `prim` times.
 * - syscall: getppid() through syscall(2), which no libc caches;
 * - page_fault: one write to each next fresh page of an anonymous mapping (huge pages refused
 *   with MADV_NOHUGEPAGE, so every 4 KiB page faults); the pages are made fresh again
 *   (MADV_DONTNEED over the whole mapping) only when a run would pass its end, rarely: releasing
 *   pages in every run cost a TLB shoot-down each (tens of microseconds on a VM with another
 *   vCPU), which no program's page fault pays;
 * - ctx_switch: lmbench's lat_ctx with two threads: a one-byte pipe round trip to a partner thread
 *   pinned with the caller to the CPU the caller runs on, two switches per round trip (and each
 *   side's pipe write and read). */
#define _GNU_SOURCE
#include "bench/probes/prim_os.h"

#include <pthread.h>
#include <stdbool.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#define FAULT_PAGES 65536 /* 256 MiB of 4 KiB pages */
#define FAULT_MAX_ITERS 16384 /* the most one run may fault */
#define PAGE_BYTES 4096
#define STOP_BYTE 'q'

struct prim_os {
	enum prim_os_kind kind;
	char *region;
	uint64_t next_page; /* the first page not written since the mapping was last made fresh */
	int to_partner[2], from_partner[2];
	pthread_t partner;
	bool partner_up;
	cpu_set_t old_mask;
	bool mask_saved;
};

static void *partner_main(void *arg)
{
	struct prim_os *h = arg;
	char c;

	while (read(h->to_partner[0], &c, 1) == 1 && c != STOP_BYTE)
		if (write(h->from_partner[1], &c, 1) != 1)
			break;
	return 0;
}

static const char *open_ctx(struct prim_os *h)
{
	cpu_set_t one;
	pthread_attr_t attr;
	int cpu = sched_getcpu();

	if (cpu < 0)
		return "sched_getcpu failed";
	if (pipe(h->to_partner) || pipe(h->from_partner))
		return "pipe failed";
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	h->mask_saved = sched_getaffinity(0, sizeof(h->old_mask), &h->old_mask) == 0;
	if (sched_setaffinity(0, sizeof(one), &one))
		return "cannot pin the caller to its CPU (sched_setaffinity)";
	if (pthread_attr_init(&attr))
		return "pthread_attr_init failed";
	if (pthread_attr_setaffinity_np(&attr, sizeof(one), &one) ||
	    pthread_create(&h->partner, &attr, partner_main, h)) {
		pthread_attr_destroy(&attr);
		return "cannot start the partner thread on the caller's CPU";
	}
	pthread_attr_destroy(&attr);
	h->partner_up = true;
	return 0;
}

void *prim_os_open(enum prim_os_kind k, uint64_t *max_iters, const char **why)
{
	struct prim_os *h = calloc(1, sizeof(*h));

	*max_iters = 0;
	*why = 0;
	if (!h) {
		*why = "out of memory";
		return 0;
	}
	h->kind = k;
	h->to_partner[0] = h->to_partner[1] = h->from_partner[0] = h->from_partner[1] = -1;
	if (k == PRIM_OS_PAGE_FAULT) {
		h->region = mmap(0, (size_t)FAULT_PAGES * PAGE_BYTES, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (h->region == MAP_FAILED) {
			h->region = 0;
			*why = "mmap of the fault region failed";
		} else {
			/* main.c's mlockall(MCL_FUTURE) populated and locked it: unlock, then empty it */
			munlock(h->region, (size_t)FAULT_PAGES * PAGE_BYTES);
			madvise(h->region, (size_t)FAULT_PAGES * PAGE_BYTES, MADV_NOHUGEPAGE);
			if (madvise(h->region, (size_t)FAULT_PAGES * PAGE_BYTES, MADV_DONTNEED))
				*why = "madvise(MADV_DONTNEED) refused: pages cannot be made fresh";
			*max_iters = FAULT_MAX_ITERS;
		}
	} else if (k == PRIM_OS_CTX_SWITCH) {
		*why = open_ctx(h);
	}
	if (*why) {
		prim_os_close(h);
		return 0;
	}
	return h;
}

void prim_os_run(void *handle, uint64_t iters)
{
	struct prim_os *h = handle;
	char c = 'x';

	switch (h->kind) {
	case PRIM_OS_SYSCALL:
		for (uint64_t i = 0; i < iters; i++)
			syscall(SYS_getppid);
		break;
	case PRIM_OS_PAGE_FAULT:
		if (h->next_page + iters > FAULT_PAGES) {
			madvise(h->region, (size_t)FAULT_PAGES * PAGE_BYTES, MADV_DONTNEED);
			h->next_page = 0;
		}
		for (uint64_t i = 0; i < iters; i++)
			((volatile char *)h->region)[(h->next_page + i) * PAGE_BYTES] = 1;
		h->next_page += iters;
		break;
	case PRIM_OS_CTX_SWITCH:
		for (uint64_t i = 0; i < iters; i++)
			if (write(h->to_partner[1], &c, 1) != 1 || read(h->from_partner[0], &c, 1) != 1)
				break;
		break;
	default:
		break;
	}
}

void prim_os_close(void *handle)
{
	struct prim_os *h = handle;
	char stop = STOP_BYTE;

	if (!h)
		return;
	if (h->partner_up) {
		if (write(h->to_partner[1], &stop, 1) == 1)
			pthread_join(h->partner, 0);
		else if (pthread_cancel(h->partner) == 0)
			pthread_join(h->partner, 0);
	}
	for (int i = 0; i < 2; i++) {
		if (h->to_partner[i] >= 0)
			close(h->to_partner[i]);
		if (h->from_partner[i] >= 0)
			close(h->from_partner[i]);
	}
	if (h->mask_saved)
		sched_setaffinity(0, sizeof(h->old_mask), &h->old_mask);
	if (h->region)
		munmap(h->region, (size_t)FAULT_PAGES * PAGE_BYTES);
	free(h);
}
