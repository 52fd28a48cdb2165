#!/bin/sh
# Install the Debian packages a make target needs, when missing. As root it runs apt-get itself;
# otherwise it prints the exact command and fails, so a fresh Debian 12 machine needs nothing else.
# Usage: scripts/deps.sh build|run|test
set -eu

build="gcc make binutils gnu-efi console-setup-linux"
image="gdisk mtools dosfstools"
run="qemu-system-x86 ovmf python3 python3-matplotlib python3-serial"
test="python3-pytest"

case "${1:-build}" in
build) want="$build" ;;
image) want="$build $image" ;;
run) want="$build $image $run" ;;
test) want="$build $image $run $test" ;;
*) echo "usage: $0 build|image|run|test" >&2; exit 2 ;;
esac

missing=""
for p in $want; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0

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
