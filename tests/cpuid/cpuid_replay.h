/* Recorded CPUID replayed through the firmware's own x86 discovery: a
 * machine is read from the compact fixture format of tests/cpuid/fixtures/README.md (made
 * from the InstLatx64 AIDA64 dumps by tests/perf/cpuid_corpus.py), its answers are served to
 * cpu_info_decode, cpu_hw_id_decode and pmu_discover through their CPUID hooks, and the decoded
 * fields are compared with the reference values the fixture carries (AIDA64's own decodings, the
 * file name's signature, the dump's APIC id list). Used by the unit suite (tests/cpuid/test_cpuid_corpus.c)
 * and the corpus tool (tests/cpuid/replay_main.c). */
#ifndef TESTS_CPUID_CPUID_REPLAY_H
#define TESTS_CPUID_CPUID_REPLAY_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "arch/cpu_info.h"
#include "arch/pmu.h"
#include "arch/x86_64/tsc_deadline_errata.h"

#define REPLAY_MAX_CPUS 80
#define REPLAY_MAX_LEAVES 160
#define REPLAY_MAX_REFS 32
#define REPLAY_TEXT 64
#define REPLAY_MAX_EXPLAINED 4

struct replay_leaf {
	uint32_t leaf, sub, r[4];
};

/* `ref <key> <a> <b> <num>` or `ref <key> <text>`: see the README. */
struct replay_ref {
	char key[16];
	char a[24], b[16];   /* cache: source, name (L1D, L2U, L2 ...) */
	char text[REPLAY_TEXT];
	uint64_t num;
	bool truncated;      /* pkg_cpus: the dump's CPU list may miss CPUs */
};

struct replay_cpu {
	unsigned index;      /* logical CPU number in the dump */
	bool full;           /* every leaf the decoder reads (else only the id leaves 0, 1, 0xB) */
	unsigned n_leaves, n_refs;
	struct replay_leaf leaves[REPLAY_MAX_LEAVES];
	struct replay_ref refs[REPLAY_MAX_REFS];
	bool msr8b_valid;    /* IA32_BIOS_SIGN_ID as AIDA64 read it */
	uint64_t msr8b;
};

struct replay_machine {
	char name[96];
	bool has_sig;
	uint32_t sig;        /* CPUID.1:EAX from the dump's file name */
	unsigned n_cpus;
	struct replay_cpu *cpus; /* REPLAY_MAX_CPUS, allocated by replay_parse */
	/* `explain <field> <why>`: a disagreement of that field understood and left (the README) */
	unsigned n_explained;
	char explained[REPLAY_MAX_EXPLAINED][16];
	char error[128];     /* why the input was refused */
};

/* What the firmware's code made of one logical CPU. */
struct replay_result {
	struct cpu_info ci;
	struct pmu_info pi;
	uint32_t hw_id;
	const struct tsc_deadline_erratum *erratum;
	bool erratum_applies;
	const char *event_table; /* "none" without one */
};

struct replay_counts {
	unsigned agree, disagree, explained, noref;
};

/* Parse fixture text; false (and m->error) on input it refuses. replay_free releases it. */
bool replay_parse(struct replay_machine *m, const char *text);
bool replay_load(struct replay_machine *m, const char *path);
void replay_free(struct replay_machine *m);
/* The leaf as recorded, zeros when the dump does not have it. */
void replay_cpuid(const struct replay_cpu *c, uint32_t leaf, uint32_t sub, uint32_t out[4]);
/* Run the discovery on one recorded CPU. */
void replay_decode(const struct replay_cpu *c, struct replay_result *r);
/* Sanity of a decode whatever the input (the mutation test): NULL or what is wrong. */
const char *replay_sane(const struct replay_result *r);
/* Decode every CPU and compare with the references: `check <field> agree|disagree|explained|noref`
 * lines to out (NULL: none), totals added to counts. */
void replay_check(const struct replay_machine *m, FILE *out, struct replay_counts *counts);
/* The decoded fields of the full CPUs, one `kind` line each and the caches, PMU and timer. */
void replay_print(const struct replay_machine *m, FILE *out);

#endif
