/* bench/probes/prim_os.h on bare metal: no operating system, so no system call, page fault or
 * context switch to time; probe `prim` emits a skip with this reason for each kind. */
#include "bench/probes/prim_os.h"

void *prim_os_open(enum prim_os_kind k, uint64_t *max_iters, const char **why)
{
	(void)k;
	*max_iters = 0;
	*why = "bare metal: no operating system (the hosted build measures it)";
	return 0;
}

void prim_os_run(void *handle, uint64_t iters)
{
	(void)handle;
	(void)iters;
}

void prim_os_close(void *handle)
{
	(void)handle;
}
