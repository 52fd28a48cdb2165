/* cpuid_replay: one recorded machine's CPUID (a fixture of tests/cpuid/fixtures/, made by
 * tests/perf/cpuid_corpus.py from an InstLatx64 AIDA64 dump) through the firmware's own x86
 * discovery code; prints the decoded fields and their comparison with the references.
 *   build/host/cpuid_replay FIXTURE...
 * Exit 0: read (disagreements are in the `check` lines), 3: a fixture refused (`refused` line). */
#include <stdint.h>
#include <stdio.h>

#include "tests/cpuid/cpuid_replay.h"

#define EXIT_REFUSED 3

int main(int argc, char **argv)
{
	int rc = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: %s FIXTURE...\n", argv[0]);
		return 2;
	}
	for (int i = 1; i < argc; i++) {
		struct replay_machine m;
		struct replay_counts k = { 0 };

		if (!replay_load(&m, argv[i])) {
			printf("refused %s (%s)\n", m.error, argv[i]);
			replay_free(&m);
			rc = EXIT_REFUSED;
			continue;
		}
		replay_print(&m, stdout);
		replay_check(&m, stdout, &k);
		printf("summary %s agree=%u disagree=%u explained=%u noref=%u\n", m.name, k.agree, k.disagree, k.explained,
		       k.noref);
		replay_free(&m);
	}
	return rc;
}
