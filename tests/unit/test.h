/* Minimal host unit-test framework: CHECK records a failure and goes on; the runner
 * (tests/unit/run_tests.c) prints every failure and a closing "N passed, N failed" line. */
#ifndef TESTS_UNIT_TEST_H
#define TESTS_UNIT_TEST_H

#include <stdio.h>
#include <string.h>

struct test_case {
	const char *name;
	void (*fn)(void);
};

extern int test_failed_checks;

#define CHECK(cond)                                                                        \
	do {                                                                               \
		if (!(cond)) {                                                             \
			printf("    %s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #cond);  \
			test_failed_checks++;                                              \
		}                                                                          \
	} while (0)

#define CHECK_EQ_U64(a, b)                                                                 \
	do {                                                                               \
		unsigned long long a_ = (unsigned long long)(a), b_ = (unsigned long long)(b);  \
		if (a_ != b_) {                                                            \
			printf("    %s:%d: %s == %llu, expected %llu\n", __FILE__, __LINE__, #a, a_, b_); \
			test_failed_checks++;                                              \
		}                                                                          \
	} while (0)

#define CHECK_STR(a, b)                                                                    \
	do {                                                                               \
		const char *a_ = (a), *b_ = (b);                                           \
		if (strcmp(a_, b_) != 0) {                                                 \
			printf("    %s:%d: %s == \"%s\", expected \"%s\"\n", __FILE__, __LINE__, #a, a_, b_); \
			test_failed_checks++;                                              \
		}                                                                          \
	} while (0)

/* Each test file defines one table: TEST_SUITE(name) { {"case", fn}, ..., {0, 0} }; */
#define TEST_SUITE(name) const struct test_case name##_tests[]

#endif
