#!/bin/sh
# Fetch QEMU 10 (Debian bookworm-backports) and unpack it under build/qemu10/root, without touching
# the system's apt set-up or installed packages: a private sources directory and lists directory,
# `apt-get download` of the three packages the x86 system emulator needs, `dpkg -x` into one root.
# QEMU 7.2 (bookworm) has no x2APIC under TCG; QEMU 10 with `-cpu max` has (see docs/qemu.md).
#
# Idempotent: a working unpacked binary is reused (nothing is fetched). On success the last line
# of stdout is the root (run ROOT/usr/bin/qemu-system-x86_64 -L ROOT/usr/share/qemu). When the
# archive cannot be reached, or a package is missing, it prints one line starting "qemu10: " with
# the reason on stderr and exits 2 (tests turn that into a skip); other failures exit 1.
#
# Usage: scripts/qemu10.sh [BUILD_DIR]   (default: build/ next to this script's directory)
# QEMU10_ARCH=aarch64 fetches the Arm system emulator instead (qemu-system-arm, ~10 MB) into
# build/qemu10-aarch64/root (QEMU 7.2 lacks -cpu neoverse-v1; 10 has it).
set -u

here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$here/build}
arch=${QEMU10_ARCH:-x86_64}
case "$arch" in
x86_64) top=$build/qemu10 pkgs="qemu-system-x86 qemu-system-common qemu-system-data" ;;
aarch64) top=$build/qemu10-aarch64 pkgs="qemu-system-arm qemu-system-common qemu-system-data" ;;
*) echo "qemu10: QEMU10_ARCH=$arch: x86_64 or aarch64" >&2; exit 1 ;;
esac
root=$top/root
bin=$root/usr/bin/qemu-system-$arch
suite=bookworm-backports
mirror=${QEMU10_MIRROR:-http://deb.debian.org/debian} # overridable: a local mirror, or a test of the refusal
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
# A refused or silent network must not hang a test run.
net_opts="-o Acquire::http::Timeout=20 -o Acquire::Retries=0"

say() { echo "qemu10: $*" >&2; }
unreachable() { say "$*"; exit 2; }

works() {
	[ -x "$bin" ] && "$bin" -L "$root/usr/share/qemu" --version 2>/dev/null | grep -q "version 10\."
}

mkdir -p "$top" || { say "cannot create $top"; exit 1; }
exec 9>"$top/.lock"
flock 9 2>/dev/null || true # two test runs at once: the second waits for the first

if works; then
	echo "$root"
	exit 0
fi

command -v apt-get >/dev/null && command -v dpkg >/dev/null ||
	unreachable "apt-get/dpkg not found: QEMU 10 is fetched from Debian packages"
[ -r "$keyring" ] || unreachable "no Debian archive keyring at $keyring (package debian-archive-keyring)"

mkdir -p "$top/sources.d" "$top/lists/partial" "$top/cache/archives/partial" "$top/debs"
cat >"$top/sources.d/backports.sources" <<EOF
Types: deb
URIs: $mirror
Suites: $suite
Components: main
Signed-By: $keyring
EOF
# -o for every apt-get call: only our sources, lists and cache; the system's stay as they are.
apt_opts="-o Dir::Etc::SourceList=/dev/null -o Dir::Etc::SourceParts=$top/sources.d
 -o Dir::State::Lists=$top/lists -o Dir::Cache=$top/cache -o Debug::NoLocking=1
 -o APT::Sandbox::User=root $net_opts"

# shellcheck disable=SC2086
if ! apt-get $apt_opts --error-on=any -q update >"$top/update.log" 2>&1; then
	unreachable "cannot reach $mirror $suite (apt-get update failed: $(grep -m1 -E '^(E|W|Err):' "$top/update.log" || tail -n1 "$top/update.log"))"
fi
cd "$top/debs" || exit 1
rm -f ./*.deb
for p in $pkgs; do
	# shellcheck disable=SC2086
	if ! apt-get $apt_opts -q download "$p/$suite" >>"$top/download.log" 2>&1; then
		unreachable "cannot download $p from $suite: $(grep -m1 -E '^(E|W|Err):' "$top/download.log" || tail -n1 "$top/download.log")"
	fi
done
rm -rf "$root.new"
mkdir -p "$root.new"
for d in ./*.deb; do
	dpkg -x "$d" "$root.new" || { say "dpkg -x $d failed"; exit 1; }
done
rm -rf "$root"
mv "$root.new" "$root"
if ! works; then
	say "unpacked, but $bin --version does not say version 10 (a missing shared library?): $("$bin" --version 2>&1 | head -n1)"
	exit 1
fi
ls "$top/debs" >&2
echo "$root"
