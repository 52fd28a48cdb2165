#!/bin/sh
# Run independent parts of a check at the same time (`make check`, `make test`), each with its
# output in its own log file, and print one line per part: its status and seconds. A part that
# fails prints the last TAIL_LINES of its log; the script exits non-zero when any part failed,
# after every part has ended. The parts must not build the same files (the Makefile builds first).
# Usage: scripts/run_parts.sh LOGDIR NAME=COMMAND [NAME=COMMAND ...]
set -u

TAIL_LINES=${RUN_PARTS_TAIL:-40}

[ $# -ge 2 ] || { echo "usage: $0 LOGDIR NAME=COMMAND ..." >&2; exit 2; }
dir=$1
shift
mkdir -p "$dir" || { echo "run_parts: cannot make $dir" >&2; exit 2; }

start=$(date +%s)
names=""
for part in "$@"; do
	name=${part%%=*}
	cmd=${part#*=}
	[ "$name" != "$part" ] || { echo "run_parts: '$part' is not NAME=COMMAND" >&2; exit 2; }
	# each part's status and end time go to files of its own: `wait` gives one status only
	(
		sh -c "$cmd" >"$dir/$name.log" 2>&1 </dev/null
		echo $? >"$dir/$name.status"
		date +%s >"$dir/$name.end"
	) &
	names="$names $name:$!"
	echo "started  $name: $cmd"
done

failed=0
for entry in $names; do
	name=${entry%%:*}
	wait "${entry#*:}"
	status=$(cat "$dir/$name.status" 2>/dev/null || echo 1)
	secs=$(($(cat "$dir/$name.end" 2>/dev/null || date +%s) - start))
	if [ "$status" -ne 0 ]; then
		failed=1
		printf '%-8s FAILED (exit %s, ended after %d s)\n' "$name" "$status" "$secs"
		echo "---- the last $TAIL_LINES lines of $dir/$name.log:"
		tail -n "$TAIL_LINES" "$dir/$name.log"
		echo "----"
	else
		printf '%-8s ok (ended after %d s): %s\n' "$name" "$secs" "$(tail -n 1 "$dir/$name.log")"
	fi
done
echo "all parts: $(($(date +%s) - start)) s; their output: $dir/"
exit "$failed"
