#!/bin/bash
# The hosted run on hosts unlike the development VM: the same program under every
# CPU-id / cache / sysfs / CPU-model variant this machine can produce, each expected to end
# `status=ok` (a check fails only where the machine really disagrees with its known answer) or to
# be skipped with the reason it cannot be produced here. Prints a table; exit status 1 when a
# variant failed, 0 otherwise (skipped variants do not fail).
#
# Variants:
#   native         as started
#   sysfs_empty    private mount namespace (unshare -m): every cpuN directory replaced by a copy
#                  whose cache/ directory is empty (the kernel describes no cache)
#   sysfs_fake     the same with a plausible cache/ (EPYC Turin's 0x8000001D values: L1D 48 KiB
#                  12-way, L1I 32 KiB 8-way, L2 1 MiB 16-way, L3 32 MiB 16-way shared by all):
#                  the sysfs path (plat kind=cache_sysfs, the levels CPUID cannot describe)
#   taskset_1      one CPU (taskset -c FIRST): smp_hello and membw_mc skip with the reason
#   taskset_last   only the last CPU (no CPU 0): ids are the OS's CPU numbers, not 0-based
#   taskset_hole   a mask with a hole (taskset -c 0,2): needs three CPUs
#   cgroup_half    a CPU limit of half a CPU (cgroup v2 cpu.max, or v1 cpu.cfs_quota_us)
#   qemu_MODEL     under qemu-x86_64 user mode with -cpu MODEL (no AVX, FMA, rdtscp...)
#
# Usage: tests/perf/portability.sh [--full] [--only NAME[,NAME...]] [--keep DIR]
#   --full   the hosted default run (`baremetric seed=1`, ~4 min natively) in every variant;
#            default: a shortened run (the default probes with fewer samples and shorter bounds)
#   --only   run only these variants (names as in the table; qemu_MODEL as qemu_qemu64 ...)
#   --keep   keep every variant's log in DIR (default: a temporary directory, removed)
# Needs root for the mount namespace and the cgroup (else those variants are skipped, saying so).
set -u

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BIN="$ROOT/build/hosted/baremetric"
FULL=0
ONLY=""
KEEP=""
# QEMU models lacking what the development CPU has: qemu64 (no AVX, FMA, rdtscp: AMD family 15
# legacy caches), Nehalem (leaf 4 caches, no AVX), Haswell without FMA/AVX2/rdtscp, max.
QEMU_MODELS=("qemu64" "Nehalem" "Haswell,-fma,-avx2,-rdtscp" "max")
# The shortened run: the default probes, fewer samples, shorter time bounds, a smaller sweep.
SHORT_ARGS=(seed=1 samples=8 timer_samples=1024 mem_max_mb=16 tsc_cal_windows=2 tsc_cal_ms=50
	irq_samples=2000 irq_set_ms=300 irq_disp_samples=8 irq_fp_ms=1000 noise_ms=300)
FULL_ARGS=(seed=1)

while [ $# -gt 0 ]; do
	case "$1" in
	--full) FULL=1 ;;
	--only) ONLY="$2"; shift ;;
	--keep) KEEP="$2"; shift ;;
	-h|--help) sed -n '2,/^set -u/p' "$0" | sed 's/^# \{0,1\}//;/^set -u/d'; exit 0 ;;
	*) echo "portability.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
	esac
	shift
done
if [ ! -x "$BIN" ]; then
	make -C "$ROOT" hosted >/dev/null || { echo "portability.sh: make hosted failed" >&2; exit 2; }
fi
if [ "$FULL" = 1 ]; then ARGS=("${FULL_ARGS[@]}"); else ARGS=("${SHORT_ARGS[@]}"); fi
if [ -n "$KEEP" ]; then OUT="$KEEP"; mkdir -p "$OUT"; else OUT=$(mktemp -d); trap 'rm -rf "$OUT"' EXIT; fi

CPUS=($(/usr/bin/python3 -c 'import os; print(" ".join(map(str, sorted(os.sched_getaffinity(0)))))'))
ROWS=()
FAILED=0

wanted() { [ -z "$ONLY" ] || [[ ",$ONLY," == *",$1,"* ]]; }

# The verdict of one log: ok / fail (with the failed checks and error messages) / broken.
verdict() {
	/usr/bin/python3 - "$1" <<'EOF'
import re, sys
status, fails, errors, skips = None, [], [], 0
for line in open(sys.argv[1], errors="replace"):
    m = re.search(r"@BM \d+ \d+ (\w+) (.*?) \|[0-9a-f]{8}$", line.rstrip("\r\n"))
    if not m:
        continue
    kind, body = m.groups()
    f = dict(kv.split("=", 1) for kv in body.split(" ") if "=" in kv)
    if kind == "end":
        status = f.get("status")
    elif kind == "check" and f.get("status") == "fail":
        fails.append(f.get("name", "?"))
    elif kind == "msg" and f.get("level") == "error":
        errors.append(re.sub(r"%([0-9A-F]{2})", lambda x: chr(int(x.group(1), 16)), f.get("text", ""))[:80])
    elif kind == "skip":
        skips += 1
if status is None:
    print("broken no end record")
else:
    detail = "skips=%d" % skips
    if fails:  # with status=ok: checks the probe reports without failing the run (irq_displace's)
        detail += (" checks_failed_not_fatal=" if status == "ok" else " failed_checks=") + ",".join(sorted(set(fails)))
    if errors:
        detail += " errors=" + " | ".join(errors)
    print(status, detail)
EOF
}

# An extra expectation on a variant's records: prints "" when met, else what is wrong.
expect() {
	/usr/bin/python3 - "$@" <<'EOF'
import re, sys
log, what = sys.argv[1], sys.argv[2]
recs = []
for line in open(log, errors="replace"):
    m = re.search(r"@BM \d+ \d+ plat (.*?) \|[0-9a-f]{8}$", line.rstrip("\r\n"))
    if m:
        recs.append(dict(kv.split("=", 1) for kv in m.group(1).split(" ") if "=" in kv))
kind = lambda k: [r for r in recs if r.get("kind") == k]
bad = []
if what == "sysfs_empty" and kind("cache_sysfs"):
    bad.append("cache_sysfs records although the cache directory is empty")
if what == "sysfs_fake":
    if len(kind("cache_sysfs")) != 4:
        bad.append("%d cache_sysfs records, 4 faked" % len(kind("cache_sysfs")))
    l3 = [c for c in kind("cache") if c.get("level") == "3"]
    if not l3 or "geometry" in l3[0] or not (l3[0].get("source") == "sysfs" or l3[0].get("source", "").startswith("cpuid")):
        bad.append("the L3 is neither CPUID's nor the faked sysfs one: %s" % l3)
if what.startswith("cpus="):
    want = what[5:].split(",")
    smp = kind("smp")
    if not smp or smp[0].get("apic_ids", "").split(",")[0] != want[0] or smp[0].get("id_source") != "os_cpu":
        bad.append("plat kind=smp ids are not the OS CPUs %s: %s" % (want, smp and smp[0].get("apic_ids")))
    elif sorted(smp[0]["apic_ids"].split(",")) != sorted(want):
        bad.append("ids %s, allowed CPUs %s" % (smp[0]["apic_ids"], want))
print("; ".join(bad))
EOF
}

# run NAME EXPECTATION COMMAND...: one variant, its row in the table.
run() {
	local name="$1" what="$2" log="$OUT/$1.log" t0 rc v extra
	shift 2
	t0=$(date +%s)
	"$@" "$BIN" "${ARGS[@]}" >"$log" 2>"$OUT/$name.err"
	rc=$?
	v=$(verdict "$log")
	extra=$([ -n "$what" ] && expect "$log" "$what")
	if [ "${v%% *}" = ok ] && [ -z "$extra" ]; then
		ROWS+=("$name|ok|$(( $(date +%s) - t0 ))|${v#* }")
	else
		FAILED=1
		ROWS+=("$name|FAIL|$(( $(date +%s) - t0 ))|rc=$rc ${v} ${extra} (log: $log)")
	fi
}

skip() { ROWS+=("$1|skip|0|$2"); }

# A copy of every cpuN directory of sysfs with its cache/ replaced by `cache_dir_fn`'s making,
# bound over the original in a private mount namespace: the script given runs inside it.
SYSFS_CPU=/sys/devices/system/cpu
fake_cache() { # DIR NCPUS: EPYC Turin's per-core caches (InstLatx64 Turin_01, 0x8000001D)
	local d="$1" all="0-$(( $2 - 1 ))" i
	local spec=("1 Data 48K 12 64 self" "1 Instruction 32K 8 64 self" "2 Unified 1024K 16 1024 self"
		"3 Unified 32768K 16 32768 all")
	for i in 0 1 2 3; do
		set -- ${spec[$i]}
		mkdir -p "$d/index$i"
		echo "$1" >"$d/index$i/level"; echo "$2" >"$d/index$i/type"; echo "$3" >"$d/index$i/size"
		echo "$4" >"$d/index$i/ways_of_associativity"; echo "$5" >"$d/index$i/number_of_sets"
		echo 64 >"$d/index$i/coherency_line_size"
		if [ "$6" = all ]; then echo "$all" >"$d/index$i/shared_cpu_list"; else echo SELF >"$d/index$i/shared_cpu_list"; fi
	done
}

sysfs_variant() { # NAME MODE(empty|fake)
	local name="$1" mode="$2" stage="$OUT/sysfs_$2" n=0 c
	if [ "$(id -u)" != 0 ] || ! unshare -m --propagation private true 2>/dev/null; then
		skip "$name" "no private mount namespace here (unshare -m needs root / CAP_SYS_ADMIN)"
		return
	fi
	for c in "$SYSFS_CPU"/cpu[0-9]*; do n=$((n + 1)); done
	mkdir -p "$stage"
	for c in "$SYSFS_CPU"/cpu[0-9]*; do
		local b; b=$(basename "$c")
		mkdir -p "$stage/$b"
		# the small files beside cache/ (topology, online...): copied, symlinks as they are
		(cd "$c" && find . -maxdepth 2 ! -path './cache*' -type f -readable 2>/dev/null |
			while read -r f; do mkdir -p "$stage/$b/$(dirname "$f")"; cat "$f" >"$stage/$b/$f" 2>/dev/null; done)
		mkdir -p "$stage/$b/cache"
		if [ "$mode" = fake ]; then
			fake_cache "$stage/$b/cache" "$n"
			sed -i "s/^SELF\$/${b#cpu}/" "$stage/$b/cache"/index*/shared_cpu_list
		fi
	done
	local mounts="" s
	for c in "$SYSFS_CPU"/cpu[0-9]*; do mounts+="mount --bind $stage/$(basename "$c") $c && "; done
	# the program runs with its arguments appended to this script's: "$@" inside
	s="${mounts}exec \"\$@\""
	run "$name" "sysfs_$mode" unshare -m --propagation private sh -c "$s" sh
}

cgroup_variant() {
	local name=cgroup_half cg="" v2=/sys/fs/cgroup v1=/sys/fs/cgroup/cpu
	if [ -f "$v2/cgroup.controllers" ] && grep -qw cpu "$v2/cgroup.subtree_control" 2>/dev/null; then
		cg="$v2/portability_$$"
		mkdir "$cg" 2>/dev/null && echo "50000 100000" >"$cg/cpu.max" 2>/dev/null || cg=""
	elif [ -w "$v1/cpu.cfs_quota_us" ] || [ -w "$v1" ]; then
		cg="$v1/portability_$$"
		mkdir "$cg" 2>/dev/null && echo 100000 >"$cg/cpu.cfs_period_us" && echo 50000 >"$cg/cpu.cfs_quota_us" 2>/dev/null || cg=""
	fi
	if [ -z "$cg" ]; then
		skip "$name" "no writable cgroup CPU controller (v2 cpu.max or v1 cpu.cfs_quota_us)"
		return
	fi
	run "$name" "" sh -c "echo \$\$ > $cg/cgroup.procs && exec \"\$@\"" sh
	rmdir "$cg" 2>/dev/null || echo "portability.sh: could not remove $cg" >&2
}

wanted native && run native "" env
wanted sysfs_empty && sysfs_variant sysfs_empty empty
wanted sysfs_fake && sysfs_variant sysfs_fake fake
wanted taskset_1 && run taskset_1 "cpus=${CPUS[0]}" taskset -c "${CPUS[0]}"
if wanted taskset_last; then
	if [ ${#CPUS[@]} -ge 2 ]; then run taskset_last "cpus=${CPUS[-1]}" taskset -c "${CPUS[-1]}"
	else skip taskset_last "one CPU allowed: no other CPU to keep"; fi
fi
if wanted taskset_hole; then
	if [ ${#CPUS[@]} -ge 3 ]; then
		run taskset_hole "cpus=${CPUS[0]},${CPUS[2]}" taskset -c "${CPUS[0]},${CPUS[2]}"
	else
		skip taskset_hole "${#CPUS[@]} CPUs allowed: a mask with a hole needs three"
	fi
fi
wanted cgroup_half && cgroup_variant
for m in "${QEMU_MODELS[@]}"; do
	name="qemu_${m%%,*}"
	[ "$m" != "${m%%,*}" ] && name+="_minus_$(echo "${m#*,}" | tr -d '-' | tr ',' '_')"
	wanted "$name" || wanted "qemu_${m%%,*}" || continue
	if ! command -v qemu-x86_64 >/dev/null; then
		skip "$name" "qemu-x86_64 not installed (Debian: apt-get install qemu-user)"
	elif ! qemu-x86_64 -cpu "$m" /bin/true 2>/dev/null; then
		skip "$name" "this qemu-x86_64 does not know -cpu $m"
	else
		run "$name" "" qemu-x86_64 -cpu "$m"
	fi
done

printf '%-34s %-5s %6s  %s\n' variant result secs detail
for r in "${ROWS[@]}"; do
	IFS='|' read -r n s t d <<<"$r"
	printf '%-34s %-5s %6s  %s\n' "$n" "$s" "$t" "$d"
done
printf 'run: %s\n' "$([ "$FULL" = 1 ] && echo "full default (${FULL_ARGS[*]})" || echo "shortened (${SHORT_ARGS[*]})")"
exit $FAILED
