#!/bin/sh
# The profiler handler path's own cost on this machine (issue 11 wants the handler within a few
# hundred cycles): builds tests/perf/prof_table_cost.c against bench/profile/table.c and
# bench/profile/period.c compiled with the firmware's code-generation flags (-O2 -fpic
# -mgeneral-regs-only -mno-red-zone), pins it to one CPU, and prints TSC ticks per
# prof_table_record() call for a hit, a miss filling a free way, a miss evicting into the overflow
# buffer, a hit on a cache-cold set, and per prof_period_next() draw (median over rounds, with
# min and max), each against a pass band fixed in the C file. Exit status 1 when a band fails.
# Usage: tests/perf/prof_table_cost.sh [OUT_DIR]
# Environment: ROUNDS (default 7), CPU (default 1).
set -eu
cd "$(dirname "$0")/../.."
out="${1:-results/perf-prof-table-$(date -u +%Y%m%d-%H%M%S)}"
mkdir -p "$out"
ROUNDS="${ROUNDS:-7}"
CPU="${CPU:-1}"
FW_CODEGEN="-O2 -fpic -mgeneral-regs-only -mno-red-zone -fno-strict-aliasing -ffreestanding -fno-builtin"

for f in bench/profile/table.c bench/profile/period.c lib/rand.c; do
	gcc -std=gnu11 -Wall -Wextra -Werror $FW_CODEGEN -I. -Iarch/x86_64/include -c "$f" -o "$out/$(basename "$f" .c).o"
done
gcc -std=gnu11 -O2 -Wall -Wextra -Werror -I. -Iarch/x86_64/include tests/perf/prof_table_cost.c \
	"$out/prof_table.o" "$out/prof_period.o" "$out/rand.o" -o "$out/prof_table_cost"
taskset -c "$CPU" "$out/prof_table_cost" "$ROUNDS" | tee "$out/prof_table_cost.txt"
