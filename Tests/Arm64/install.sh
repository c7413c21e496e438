#!/usr/bin/env bash
# The README's Pi steps as far as this machine follows them without a Pi: a Debian trixie arm64 system
# (mmdebstrap, every package's scripts run under qemu-user through binfmt_misc), the arm64 .deb installed
# with apt as an owner installs it (its Depends resolved from trixie's archive, its postinst run: the
# user, the config, the unit enabled), then `snapstation --version`, `check-config` on the config the
# postinst wrote and `selftest` run from the installed files, as root and as the station's user.
#
#   Tests/Arm64/install.sh DEB
#
# Needs root (chroot, binfmt_misc) and qemu-user-static; the trixie base is cached in
# .build-arm64/trixie-base.tar (about 2 minutes to make; the install itself about 1).
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
deb=$(realpath "$1")
cache="${SNAPSTATION_ARM64_CACHE:-$repo/.build-arm64}"
mirror="${SNAPSTATION_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
started=$SECONDS
step() { echo "== install ($((SECONDS - started)) s): $*"; }

source "$repo/Tests/Arm64/trixie.sh"
arm64_emulation
root=$(mktemp -d)
trap 'umount -R "$root/proc" 2>/dev/null || true; rm -rf "$root"' EXIT
step "a Debian trixie arm64 system"
trixie_root "$root"
mount -t proc proc "$root/proc"
cp "$deb" "$root/tmp/snapstation.deb"

step "apt install ./snapstation_*_arm64.deb, as an owner does"
chroot "$root" /bin/sh -c 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq ./tmp/snapstation.deb' \
    >"$root/tmp/apt.log" 2>&1 || { tail -n 30 "$root/tmp/apt.log"; exit 1; }
grep -E "^(Setting up|Unpacking) snapstation" "$root/tmp/apt.log" | head -n 2 || true

step "the installed station"
chroot "$root" dpkg-query -W -f='${Package} ${Version} ${Architecture}: ${Status}\n' snapstation
chroot "$root" snapstation --version
chroot "$root" snapstation check-config /etc/snapstation/snapstation.toml
chroot "$root" id snapstation
[[ -L "$root/etc/systemd/system/multi-user.target.wants/snapstation.service" ]] ||
    { echo "the postinst did not enable snapstation.service" >&2; exit 1; }
echo "snapstation.service: enabled"
chroot "$root" setpriv --reuid=snapstation --regid=snapstation --init-groups \
    snapstation selftest --config /etc/snapstation/snapstation.toml
step "done"
