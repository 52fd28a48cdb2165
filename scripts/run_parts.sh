#!/bin/sh
# Run independent parts of a check at the same time (`make check`, `make test`), each with its
# output in its own log file, and print one line per part: its status and seconds. A part that
# fails prints the last TAIL_LINES of its log; the script exits non-zero when any part failed,
# after every part has ended. The parts must not build the same files (the Makefile builds first).
# Usage: scripts/run_parts.sh LOGDIR [+]NAME=COMMAND [[+]NAME=COMMAND ...]
# A part named +NAME runs in the foreground, after the others have started, its output on the
# terminal (make test's integration tests: CI shows them as they run; Ctrl-C reaches them). Each
# part writes LOGDIR/NAME.status and LOGDIR/NAME.end when it ends (a part can wait for another's:
# the integration tests' timing tests wait for BAREMETRIC_ALONE_AFTER's files). The background
# parts run in sessions of their own: Ctrl-C, SIGTERM or SIGHUP of this script ends them all.
set -u

TAIL_LINES=${RUN_PARTS_TAIL:-40}

[ $# -ge 2 ] || { echo "usage: $0 LOGDIR [+]NAME=COMMAND ..." >&2; exit 2; }
dir=$1
shift
mkdir -p "$dir" || { echo "run_parts: cannot make $dir" >&2; exit 2; }

start=$(date +%s)
names=""
sessions=""
fore=""
# the status and end files first, for every part: a part reading another's must not see a stale one
for part in "$@"; do
	name=${part%%=*}
	name=${name#+}
	[ "$name=${part#*=}" = "${part#+}" ] || { echo "run_parts: '$part' is not NAME=COMMAND" >&2; exit 2; }
	rm -f "$dir/$name.status" "$dir/$name.end"
done

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
	if [ "${name#+}" != "$name" ]; then
		fore="${name#+}=$cmd"
		continue
	fi
	# setsid: the part's own session and process group, which stop_all ends whole; the status
	# and end files are written by the part's shell, as `wait` gives one status only
	setsid sh -c 'sh -c "$2"; echo $? >"$0"; date +%s >"$1"' "$dir/$name.status" "$dir/$name.end" "$cmd" \
		>"$dir/$name.log" 2>&1 </dev/null &
	sessions="$sessions $!"
	names="$names $name:$!"
	echo "started  $name: $cmd"
done

if [ -n "$fore" ]; then
	name=${fore%%=*}
	echo "running  $name: ${fore#*=}"
	sh -c "${fore#*=}"
	echo $? >"$dir/$name.status"
	date +%s >"$dir/$name.end"
	echo "(output above)" >"$dir/$name.log"
	names="$names $name:"
fi

failed=0
for entry in $names; do
	name=${entry%%:*}
	pid=${entry#*:}
	[ -z "$pid" ] || wait "$pid"
	status=$(cat "$dir/$name.status" 2>/dev/null || echo 1)
	secs=$(($(cat "$dir/$name.end" 2>/dev/null || date +%s) - start))
	if [ "$status" -ne 0 ]; then
		failed=1
		printf '%-8s FAILED (exit %s, ended after %d s)\n' "$name" "$status" "$secs"
		if [ -z "$pid" ]; then
			echo "---- its output is above"
			continue
		fi
		echo "---- the last $TAIL_LINES lines of $dir/$name.log:"
		tail -n "$TAIL_LINES" "$dir/$name.log"
		echo "----"
	elif [ -z "$pid" ]; then
		printf '%-8s ok (ended after %d s)\n' "$name" "$secs"
	else
		printf '%-8s ok (ended after %d s): %s\n' "$name" "$secs" "$(tail -n 1 "$dir/$name.log")"
	fi
done
echo "all parts: $(($(date +%s) - start)) s; their output: $dir/"
exit "$failed"
