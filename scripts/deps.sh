#!/bin/sh
# Install the Debian packages a make target needs, when missing. As root it runs apt-get itself;
# otherwise it prints the exact command and fails, so a fresh Debian 12 machine needs nothing else.
# Usage: scripts/deps.sh build|image|sign|shim|run|test|build-aarch64|run-aarch64|hosted-aarch64
# The -aarch64 targets also unpack gnu-efi's arm64 files (gnu-efi:arm64 cannot be installed next to
# the amd64 package) into $BAREMETRIC_BUILD/deps/gnu-efi-arm64 (default build/), fetched with
# apt-get download through a private package list, so the system's apt setup is left as it is.
set -eu

build="gcc make binutils gnu-efi console-setup-linux"
image="gdisk mtools dosfstools"
run="qemu-system-x86 ovmf python3 python3-matplotlib python3-serial"
# Secure Boot (docs/secure_boot.md): sbsign/sbverify and openssl for the keys; shim-signed brings
# Debian's Microsoft-signed shim and (shim-helpers-amd64-signed) its MokManager.
sign="sbsigntool openssl"
shim="shim-signed"
# chromium: tests/python/test_report_html.py loads report.html in it (headless)
# python3-pytest-xdist: the Python tests run in JOBS processes (the Makefile's PYTEST_JOBS)
# python3-lz4: liblz4, the reference the packer's blocks are checked against (tests/python/test_lz_pack.py)
test="python3-pytest python3-pytest-xdist python3-lz4 python3-jsonschema openipmi ipmitool postgresql python3-psycopg2 groff-base python3-pip python3-setuptools chromium $sign $shim"
build_a64="gcc-aarch64-linux-gnu libc6-dev-arm64-cross"
run_a64="qemu-system-arm qemu-efi-aarch64"
# The hosted build for AArch64 Linux (make hosted-aarch64), run under qemu-aarch64 (user mode).
hosted_a64="gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user"

gnu_efi_a64=""
case "${1:-build}" in
build) want="$build" ;;
image) want="$build $image" ;;
sign) want="$build $image $sign" ;;
shim) want="$build $image $sign $shim" ;;
run) want="$build $image $run" ;;
test) want="$build $image $run $test $build_a64 $run_a64 $hosted_a64"; gnu_efi_a64=1 ;; # both architectures
build-aarch64) want="$build $build_a64"; gnu_efi_a64=1 ;;
run-aarch64) want="$build $build_a64 $image $run_a64 python3 python3-matplotlib python3-serial"; gnu_efi_a64=1 ;;
hosted-aarch64) want="$build $hosted_a64" ;;
*) echo "usage: $0 build|image|sign|shim|run|test|build-aarch64|run-aarch64|hosted-aarch64" >&2; exit 2 ;;
esac

# gnu-efi for arm64, unpacked under the build directory (no root needed).
fetch_gnu_efi_a64() {
	dest="${BAREMETRIC_BUILD:-build}/deps/gnu-efi-arm64"
	[ -f "$dest/usr/lib/crt0-efi-aarch64.o" ] && return 0
	work="${BAREMETRIC_BUILD:-build}/deps/apt-arm64"
	mkdir -p "$work/lists/partial" "$work/cache/archives/partial" "$work/sources" "$dest"
	work=$(cd "$work" && pwd) # apt takes relative paths as relative to /etc/apt
	cp /etc/apt/sources.list.d/debian.sources "$work/sources/" 2>/dev/null ||
		cp /etc/apt/sources.list "$work/sources/debian.list"
	: >"$work/empty.list"
	opts="-o Dir::Etc::SourceList=$work/empty.list -o Dir::Etc::SourceParts=$work/sources
		-o Dir::State::Lists=$work/lists -o Dir::Cache=$work/cache
		-o APT::Architecture=arm64 -o APT::Architectures=arm64"
	echo "fetching gnu-efi:arm64 into $dest" >&2
	# shellcheck disable=SC2086
	apt-get -qq $opts update >&2
	# shellcheck disable=SC2086
	(cd "$work" && apt-get -qq $opts download gnu-efi:arm64 >&2)
	dpkg -x "$work"/gnu-efi_*_arm64.deb "$dest"
	[ -f "$dest/usr/lib/crt0-efi-aarch64.o" ] || { echo "gnu-efi:arm64 has no crt0-efi-aarch64.o" >&2; exit 1; }
}

missing=""
for p in $want; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -z "$missing" ]; then
	[ -n "$gnu_efi_a64" ] && fetch_gnu_efi_a64
	exit 0
fi

cmd="apt-get install -y --no-install-recommends$missing"
if [ "$(id -u)" -ne 0 ]; then
	echo "baremetric needs these Debian packages:$missing" >&2
	echo "run as root:  apt-get update && $cmd" >&2
	exit 1
fi
echo "installing:$missing" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >&2
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >&2
[ -n "$gnu_efi_a64" ] && fetch_gnu_efi_a64
exit 0
