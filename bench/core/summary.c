/* Run summary text (see summary.h). */
#include "bench/core/summary.h"

#include "lib/fmt.h"

static struct sbuf sb; /* no memory until summary_init: every write is dropped */

void summary_init(char *buf, size_t cap)
{
	sb_init(&sb, buf, cap < SUMMARY_MAX ? cap : SUMMARY_MAX);
}

void summary_line(const char *line)
{
	sb_puts(&sb, line);
	sb_putc(&sb, '\n');
}

void summary_value(const char *label, uint64_t value, unsigned decimals, const char *unit)
{
	sb_puts(&sb, label);
	sb_puts(&sb, ": ");
	sb_fixed(&sb, value, decimals);
	sb_putc(&sb, ' ');
	sb_puts(&sb, unit);
	sb_putc(&sb, '\n');
}

void summary_probe(const char *name, enum probe_status status)
{
	static const char *const names[] = { "ok", "skipped", "FAILED" };

	sb_puts(&sb, "probe ");
	sb_puts(&sb, name);
	sb_puts(&sb, ": ");
	sb_puts(&sb, names[status]);
	sb_putc(&sb, '\n');
}

void summary_fault(const char *name, const char *probe, bool expected)
{
	sb_puts(&sb, expected ? "fault (expected) " : "FAULT ");
	sb_puts(&sb, name);
	sb_puts(&sb, " in ");
	sb_puts(&sb, probe);
	sb_putc(&sb, '\n');
}

void summary_status(const char *status, uint32_t records)
{
	sb_puts(&sb, "status: ");
	sb_puts(&sb, status);
	sb_puts(&sb, ", ");
	sb_u64(&sb, records);
	sb_puts(&sb, " records sent\n");
}

const char *summary_text(void)
{
	return sb.buf ? sb.buf : "";
}
