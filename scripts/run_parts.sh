#!/bin/sh
# Run independent parts of a check at the same time (`make check`), each with its output in its
# own log file, and print one line per part: its status and seconds. A part that fails prints the
# last TAIL_LINES of its log; the script exits non-zero when any part failed, after every part has
# ended. The parts must not build the same files (the Makefile builds first). Each part runs in a
# session of its own: Ctrl-C, SIGTERM or SIGHUP of this script ends every part whole (a background
# job of a shell would ignore the terminal's Ctrl-C and run on).
# Usage: scripts/run_parts.sh LOGDIR NAME=COMMAND [NAME=COMMAND ...]
set -u

TAIL_LINES=${RUN_PARTS_TAIL:-40}

[ $# -ge 2 ] || { echo "usage: $0 LOGDIR NAME=COMMAND ..." >&2; exit 2; }
dir=$1
shift
mkdir -p "$dir" || { echo "run_parts: cannot make $dir" >&2; exit 2; }

for part in "$@"; do
	[ "${part%%=*}" != "$part" ] || { echo "run_parts: '$part' is not NAME=COMMAND" >&2; exit 2; }
done

start=$(date +%s)
names=""
sessions=""

stop_all() {
	for s in $sessions; do
		kill -TERM "-$s" 2>/dev/null
	done
	echo "run_parts: stopped" >&2
	exit 130
}
trap stop_all INT TERM HUP

for part in "$@"; do
	name=${part%%=*}
	cmd=${part#*=}
	rm -f "$dir/$name.status" "$dir/$name.end"
	# setsid: the part's own session and process group, which stop_all ends whole; its status
	# and end time go to files of its own (`wait` gives one status only)
	setsid sh -c 'sh -c "$2"; echo $? >"$0"; date +%s >"$1"' "$dir/$name.status" "$dir/$name.end" "$cmd" \
		>"$dir/$name.log" 2>&1 </dev/null &
	sessions="$sessions $!"
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
