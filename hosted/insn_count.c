/* Instructions retired through Linux perf_event (see arch/insn_count.h), the same on every CPU: a hardware instructions counter
 * for this thread, user mode only (the kernel's share of the read() that fetches the value is not
 * counted; the user-mode share is a constant part of every delta), pinned so it is never
 * multiplexed. Where the kernel sees no PMU (this project's CI virtual machine) or forbids it
 * (perf_event_paranoid), opening fails and the reason says which. */
#define _GNU_SOURCE
#include "arch/insn_count.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

static char why_buf[160];

bool insn_count_open(struct insn_count *ic, const struct pmu_info *pi, struct pmu_plan *plan, const char **why)
{
	struct perf_event_attr attr;
	int fd;

	(void)pi;
	*ic = (struct insn_count){ .plan = plan, .fd = -1 };
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_HARDWARE;
	attr.config = PERF_COUNT_HW_INSTRUCTIONS;
	attr.disabled = 1;
	attr.pinned = 1;
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	fd = (int)syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
	if (fd < 0) {
		int e = errno;

		snprintf(why_buf, sizeof(why_buf), "perf_event_open(instructions): %s%s", strerror(e),
			 e == ENOENT || e == EOPNOTSUPP || e == ENODEV ? " (no PMU visible to Linux)"
			 : e == EACCES || e == EPERM ? " (see /proc/sys/kernel/perf_event_paranoid)" : "");
		*why = why_buf;
		return false;
	}
	ioctl(fd, PERF_EVENT_IOC_RESET, 0);
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	ic->fd = fd;
	ic->source = "perf_event";
	return true;
}

uint64_t insn_count_read(const struct insn_count *ic)
{
	uint64_t v = 0;

	if (read(ic->fd, &v, sizeof(v)) != (ssize_t)sizeof(v))
		return 0; /* a pinned event that lost its counter reads nothing: the check then fails */
	return v;
}

uint64_t insn_count_delta(const struct insn_count *ic, uint64_t start, uint64_t end)
{
	(void)ic;
	return end - start; /* perf_event values are 64-bit */
}

void insn_count_close(struct insn_count *ic)
{
	if (ic->fd >= 0)
		close(ic->fd);
	ic->fd = -1;
}
