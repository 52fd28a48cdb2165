/* The operating system's primitives for probe `prim` (hbench-OS ch. 4: a system call, a page
 * fault, a context switch): the probe times them through this contract, the environment does
 * them — hosted/prim_os.c under Linux; efi/prim_os.c on bare metal, where there is no OS and every
 * kind is refused with that reason. */
#ifndef BENCH_PROBES_PRIM_OS_H
#define BENCH_PROBES_PRIM_OS_H

#include <stdint.h>

enum prim_os_kind {
	PRIM_OS_SYSCALL,    /* one getppid() */
	PRIM_OS_PAGE_FAULT, /* first write to a fresh anonymous 4 KiB page */
	PRIM_OS_CTX_SWITCH, /* a pipe round trip between two threads on one CPU: two switches */
	PRIM_OS_KINDS
};

struct prim_os_desc {
	const char *name;     /* the record's prim= */
	uint64_t ops_per_iter; /* operations of the kind in one iteration */
	const char *what;     /* what one iteration does, for the record's note */
};

/* The kinds' names and sizes (bench/probes/prim.c). */
extern const struct prim_os_desc prim_os_kinds[PRIM_OS_KINDS];

/* Set kind k up: a handle, or NULL with *why saying why it cannot run here. *max_iters is the most
 * iterations one prim_os_run call may do (0: no bound). */
void *prim_os_open(enum prim_os_kind k, uint64_t *max_iters, const char **why);
void prim_os_run(void *handle, uint64_t iters);
void prim_os_close(void *handle);

#endif
