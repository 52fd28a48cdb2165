/* Minimal host unit-test framework. Each test file registers its own suite with TEST_SUITE (the
 * runner, tests/unit/run_tests.c, keeps no list): CHECK records a failure and goes on, TEST_SKIP
 * ends a case as skipped, test_note adds a line of context. The runner prints every failure and a
 * closing "N passed, N failed" line, or TAP (see run_tests.c). */
#ifndef TESTS_UNIT_TEST_H
#define TESTS_UNIT_TEST_H

#include <stdio.h>
#include <string.h>

struct test_case {
	const char *name;
	void (*fn)(void);
};

struct test_suite {
	const char *name;
	const struct test_case *cases; /* ends with { 0, 0 } */
};

/* Failed checks so far (all cases): a case compares it before and after to know it failed. */
extern int test_failed_checks;

/* A failed check at file:line; the runner prints it at once, or keeps it for the TAP report. */
void test_fail(const char *file, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* A line of context for the current case ("    <text>" in the human output, TAP diagnostics). */
void test_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Marks the current case skipped, with the reason; use TEST_SKIP, which also returns. */
void test_skip(const char *reason);

#define TEST_SKIP(reason)                                                                  \
	do {                                                                               \
		test_skip(reason);                                                         \
		return;                                                                    \
	} while (0)

#define CHECK(cond)                                                                        \
	do {                                                                               \
		if (!(cond))                                                               \
			test_fail(__FILE__, __LINE__, "CHECK(%s) failed", #cond);          \
	} while (0)

#define CHECK_EQ_U64(a, b)                                                                 \
	do {                                                                               \
		unsigned long long a_ = (unsigned long long)(a), b_ = (unsigned long long)(b);  \
		if (a_ != b_)                                                              \
			test_fail(__FILE__, __LINE__, "%s == %llu, expected %llu", #a, a_, b_);  \
	} while (0)

#define CHECK_STR(a, b)                                                                    \
	do {                                                                               \
		const char *a_ = (a), *b_ = (b);                                           \
		if (strcmp(a_, b_) != 0)                                                   \
			test_fail(__FILE__, __LINE__, "%s == \"%s\", expected \"%s\"", #a, a_, b_); \
	} while (0)

/* Section the suites are registered in; the linker brackets it with __start_/__stop_ symbols. */
#define TEST_SUITE_SECTION "unit_suites"

/* Each test file defines and registers its table(s):
 *     TEST_SUITE(name) = { { "case", fn }, ..., { 0, 0 } };
 * A suite record goes into TEST_SUITE_SECTION, so linking the file in is all it takes to run it. */
#define TEST_SUITE(name)                                                                   \
	extern const struct test_case name##_tests[];                                      \
	static const struct test_suite name##_suite                                        \
		__attribute__((used, section(TEST_SUITE_SECTION), aligned(sizeof(void *)))) = \
			{ #name, name##_tests };                                           \
	const struct test_case name##_tests[]

#endif
