#!/bin/sh
# Run the set-up phases of `make run` (packages, build, image) with their output in one log file,
# printing one line per phase instead: a new user sees what happens, not 500 lines of apt and gcc.
# A phase that fails prints the last TAIL_LINES of its output and the log's path, and the script
# exits with the phase's status. POSIX sh, not Python: the packages phase is what installs Python
# on a fresh machine.
# Usage: scripts/run_phases.sh LOG NAME=COMMAND [NAME=COMMAND ...]
set -u

TAIL_LINES=${RUN_PHASES_TAIL:-30}

[ $# -ge 2 ] || { echo "usage: $0 LOG NAME=COMMAND ..." >&2; exit 2; }
log=$1
shift
mkdir -p "$(dirname "$log")"
: >"$log" || { echo "run_phases: cannot write $log" >&2; exit 2; }

total=$#
i=0
for phase in "$@"; do
	i=$((i + 1))
	name=${phase%%=*}
	cmd=${phase#*=}
	[ "$name" != "$phase" ] || { echo "run_phases: '$phase' is not NAME=COMMAND" >&2; exit 2; }
	printf '[%d/%d] %-9s ' "$i" "$total" "$name"
	start=$(date +%s)
	printf '\n===== %s: %s\n' "$name" "$cmd" >>"$log"
	# the phase's own output goes to the log only; its status is what decides
	sh -c "$cmd" >>"$log" 2>&1 </dev/null
	status=$?
	secs=$(($(date +%s) - start))
	if [ "$status" -ne 0 ]; then
		echo "FAILED (exit $status, ${secs} s)"
		echo "---- the last $TAIL_LINES lines of $log:"
		tail -n "$TAIL_LINES" "$log"
		echo "---- the whole output of every phase: $log"
		exit "$status"
	fi
	echo "ok (${secs} s)"
done
echo "        output of these phases: $log"
exit 0
