/* Host unit-test runner: runs the suites the test files registered (TEST_SUITE in test.h puts
 * each into a linker section, so there is no list here), in link order.
 *
 *     unit_tests [-l] [--tap] [PATTERN...]
 *
 * PATTERNs select the cases whose "suite/case" name contains one of them (all when none is
 * given); -l lists the selected names instead of running them. The default output prints each
 * failing check and ends with the line "N passed, N failed" (counting test cases) that CI reads;
 * --tap prints TAP version 13 instead (failures as YAML diagnostics, skips as "# SKIP").
 * Exit status: 0 all passed, 1 something failed, 2 usage error or nothing selected. */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit/test.h"

/* The section's bounds, provided by the GNU linker for a section named like a C identifier. */
extern const struct test_suite __start_unit_suites[], __stop_unit_suites[];

#define NAME_MAX_LEN 256

int test_failed_checks;

static struct {
	bool tap, list;
	char **patterns;
	int npatterns;
} opt;

/* The case being run: its lines of diagnostics (TAP mode keeps them) and its skip reason. */
static struct {
	char **lines;
	size_t n, cap;
	const char *skip;
} cur;

static void keep_line(const char *prefix, const char *fmt, va_list ap)
{
	char buf[1024];
	int len = snprintf(buf, sizeof(buf), "%s", prefix);

	vsnprintf(buf + len, sizeof(buf) - (size_t)len, fmt, ap);
	if (cur.n == cur.cap) {
		cur.cap = cur.cap ? 2 * cur.cap : 8;
		cur.lines = realloc(cur.lines, cur.cap * sizeof(*cur.lines));
		if (!cur.lines)
			abort();
	}
	cur.lines[cur.n++] = strdup(buf);
}

void test_fail(const char *file, int line, const char *fmt, ...)
{
	char where[NAME_MAX_LEN];
	va_list ap;

	test_failed_checks++;
	snprintf(where, sizeof(where), "%s:%d: ", file, line);
	va_start(ap, fmt);
	if (opt.tap) {
		keep_line(where, fmt, ap);
	} else {
		printf("    %s", where);
		vprintf(fmt, ap);
		putchar('\n');
	}
	va_end(ap);
}

void test_note(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (opt.tap) {
		keep_line("", fmt, ap);
	} else {
		printf("    ");
		vprintf(fmt, ap);
		putchar('\n');
	}
	va_end(ap);
}

void test_skip(const char *reason)
{
	cur.skip = reason;
}

static void full_name(char *buf, const struct test_suite *s, const struct test_case *t)
{
	snprintf(buf, NAME_MAX_LEN, "%s/%s", s->name, t->name);
}

static bool selected(const struct test_suite *s, const struct test_case *t)
{
	char name[NAME_MAX_LEN];

	if (opt.npatterns == 0)
		return true;
	full_name(name, s, t);
	for (int i = 0; i < opt.npatterns; i++)
		if (strstr(name, opt.patterns[i]))
			return true;
	return false;
}

/* A single-quoted YAML scalar: a quote inside is doubled. */
static void print_yaml_str(const char *s)
{
	putchar('\'');
	for (; *s; s++) {
		if (*s == '\'')
			putchar('\'');
		putchar(*s);
	}
	putchar('\'');
}

/* One TAP result line, and what the case said: YAML diagnostics for a failure, comments else. */
static void tap_result(unsigned n, const char *name, int failed_checks)
{
	if (failed_checks) {
		printf("not ok %u - %s\n  ---\n  message: '%d failed check%s'\n  severity: fail\n", n, name,
		       failed_checks, failed_checks == 1 ? "" : "s");
		printf("  diagnostics:\n");
		for (size_t i = 0; i < cur.n; i++) {
			printf("    - ");
			print_yaml_str(cur.lines[i]);
			putchar('\n');
		}
		printf("  ...\n");
		return;
	}
	printf("ok %u - %s", n, name);
	if (cur.skip)
		printf(" # SKIP %s", cur.skip);
	putchar('\n');
	for (size_t i = 0; i < cur.n; i++)
		printf("# %s\n", cur.lines[i]);
}

static void clear_case(void)
{
	for (size_t i = 0; i < cur.n; i++)
		free(cur.lines[i]);
	cur.n = 0;
	cur.skip = NULL;
}

static int usage(const char *prog)
{
	fprintf(stderr, "usage: %s [-l] [--tap] [PATTERN...]\n"
			"  runs the cases whose suite/case name contains a PATTERN (all without one)\n"
			"  -l, --list  list the selected cases instead   --tap  TAP version 13 output\n",
		prog);
	return 2;
}

/* Options first or mixed with patterns; "--" ends the options. Returns 0, or an exit status. */
static int parse_args(int argc, char **argv)
{
	bool opts_done = false;

	opt.patterns = calloc((size_t)argc, sizeof(*opt.patterns));
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (opts_done || a[0] != '-')
			opt.patterns[opt.npatterns++] = argv[i];
		else if (strcmp(a, "--") == 0)
			opts_done = true;
		else if (strcmp(a, "-l") == 0 || strcmp(a, "--list") == 0)
			opt.list = true;
		else if (strcmp(a, "--tap") == 0)
			opt.tap = true;
		else
			return usage(argv[0]);
	}
	return 0;
}

int main(int argc, char **argv)
{
	unsigned total = 0, n = 0, passed = 0, failed = 0, skipped = 0;
	char name[NAME_MAX_LEN];
	int rc = parse_args(argc, argv);

	if (rc)
		return rc;
	for (const struct test_suite *s = __start_unit_suites; s < __stop_unit_suites; s++)
		for (const struct test_case *t = s->cases; t->name; t++)
			total += selected(s, t);
	if (total == 0) {
		fprintf(stderr, "%s: no test case matches\n", argv[0]);
		return 2;
	}
	if (opt.tap && !opt.list)
		printf("TAP version 13\n1..%u\n", total);
	for (const struct test_suite *s = __start_unit_suites; s < __stop_unit_suites; s++) {
		for (const struct test_case *t = s->cases; t->name; t++) {
			if (!selected(s, t))
				continue;
			full_name(name, s, t);
			if (opt.list) {
				printf("%s\n", name);
				continue;
			}
			int before = test_failed_checks;

			t->fn();
			int failed_checks = test_failed_checks - before;

			n++;
			if (failed_checks) {
				failed++;
				if (!opt.tap)
					printf("FAIL %s.%s\n", s->name, t->name);
			} else if (cur.skip) {
				skipped++;
				if (!opt.tap)
					printf("SKIP %s.%s: %s\n", s->name, t->name, cur.skip);
			} else {
				passed++;
			}
			if (opt.tap)
				tap_result(n, name, failed_checks);
			clear_case();
		}
	}
	if (opt.list)
		return 0;
	/* The closing line stays "N passed, N failed" (CI reads it); skips get a line of their own. */
	if (skipped)
		printf("%s%u skipped\n", opt.tap ? "# " : "", skipped);
	printf("%s%u passed, %u failed\n", opt.tap ? "# " : "", passed, failed);
	return failed ? 1 : 0;
}
