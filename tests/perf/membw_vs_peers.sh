#!/bin/sh
# Our hosted read/write/copy bandwidth against likwid-bench (load_avx, store_avx, copy_avx, their
# AVX-512 and non-temporal variants where the CPU has them) at an L1-resident, an L2-resident and a
# DRAM-sized buffer, in one run; prints our/peer ratios, best against best and 256-bit against
# likwid's AVX (same width). Target: our best kernel >= 0.95x the best peer figure at every size.
# Usage: tests/perf/membw_vs_peers.sh [OUT_DIR]     (installs likwid when run as root)
set -eu
cd "$(dirname "$0")/../.."
out="${1:-results/perf-membw-$(date -u +%Y%m%d-%H%M%S)}"
mkdir -p "$out"
PY=/usr/bin/python3

if ! command -v likwid-bench >/dev/null 2>&1; then
	if [ "$(id -u)" -eq 0 ]; then
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq likwid >/dev/null
	else
		echo "likwid-bench missing: apt-get install likwid" >&2
		exit 1
	fi
fi
make -s hosted

# Sizes (KiB): L1-resident, L2-resident, DRAM-sized.
L1_KB=16
L2_KB=256
DRAM_KB=262144

# Ours: the sweep from 16 KiB to 256 MiB contains all three sizes; 16 samples each.
build/hosted/baremetric probes=membw mem_kernels=read,write,copy,write_nt,copy_nt mem_min_kb=$L1_KB \
	mem_max_mb=$((DRAM_KB / 1024)) samples=16 >"$out/hosted.log"
$PY harness/baremetric parse "$out/hosted.log" --out "$out/hosted" >/dev/null

peer() { # test size_kb -> MByte/s (10^6 B/s)
	likwid-bench -t "$1" -w "S0:${2}kB:1" 2>/dev/null | awk '/^MByte\/s:/ {print $2}'
}
: >"$out/peers.txt"
for kb in $L1_KB $L2_KB $DRAM_KB; do
	for t in load_avx store_avx copy_avx load_avx512 store_avx512 copy_avx512 store_mem_avx copy_mem_avx \
		store_mem_avx512 copy_mem_avx512; do
		echo "$t $kb $(peer $t $kb)" >>"$out/peers.txt"
	done
done

$PY - "$out" $L1_KB $L2_KB $DRAM_KB <<'PYEOF'
import json, sys
out, sizes = sys.argv[1], [int(s) * 1024 for s in sys.argv[2:]]
summary = json.load(open(out + "/hosted/summary.json"))
peers = {}
for line in open(out + "/peers.txt"):
    t, kb, mbs = (line.split() + ["nan"])[:3]
    peers[(t, int(kb) * 1024)] = float(mbs) / 1000 if mbs != "nan" else float("nan")
peer_tests = {"read": ("load_avx", "load_avx512"),
              "write": ("store_avx", "store_avx512", "store_mem_avx", "store_mem_avx512"),
              "copy": ("copy_avx", "copy_avx512", "copy_mem_avx", "copy_mem_avx512")}
hz = summary["platform"]["tsc"]["hz"]
print("%-6s %10s  %-9s %8s  %-16s %8s  %6s   %8s %8s %6s" % ("kernel", "size", "ours", "GB/s", "best peer", "GB/s",
      "ratio", "ours256", "avx", "ratio"))
worst = None


def ours(kernel, size, width=None):
    best, best_w = 0.0, "-"
    for s in summary["sets"]:
        p = s["params"]
        if s["name"] != "membw" or p.get("size") != size:
            continue
        if p.get("kernel") not in (kernel, kernel + "_nt") or (width and str(p["width"]) != width):
            continue
        cyc = s["stats"]["per_op"]["median"]
        gbs = p["bytes_per_op"] * hz / cyc / 1e9 if cyc > 0 else 0
        if gbs > best:
            best, best_w = gbs, "%s/%s" % (p["kernel"], p["width"])
    return best, best_w


for kernel in ("read", "write", "copy"):
    for size in sizes:
        best, best_w = ours(kernel, size)
        cands = [(peers.get((t, size), float("nan")), t) for t in peer_tests[kernel]]
        cands = [c for c in cands if c[0] == c[0] and c[0] > 0]
        peer, peer_t = max(cands) if cands else (float("nan"), "-")
        ratio = best / peer if cands else float("nan")
        o256, _ = ours(kernel, size, "256")
        avx = peers.get((peer_tests[kernel][0], size), float("nan"))
        r256 = o256 / avx if avx == avx and avx > 0 else float("nan")
        if ratio == ratio:
            worst = ratio if worst is None else min(worst, ratio)
        print("%-6s %10s  %-9s %8.1f  %-16s %8.1f  %6.2f   %8.1f %8.1f %6.2f" % (
            kernel, "%d KiB" % (size // 1024), best_w.split("/")[-1] + "-bit" if "/" in best_w else best_w,
            best, peer_t, peer, ratio, o256, avx, r256))
print("worst ratio: %s (target >= 0.95)" % ("%.2f" % worst if worst is not None else "n/a"))
PYEOF
