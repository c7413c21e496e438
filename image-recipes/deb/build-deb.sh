#!/usr/bin/env bash
# Packs the station into a .deb for the machine it runs on (amd64 here, arm64 on a Pi or an arm64 runner):
# the binary with the Swift runtime linked in, the systemd unit, sysusers, udev and tmpfiles files, the
# A/B update's units (left disabled), the example configs, and a postinst that creates the user and
# enables the unit. Both images install it.
#
#   image-recipes/deb/build-deb.sh [--binary PATH] [OUT_DIR]   -> OUT_DIR/snapstation_VERSION_ARCH.deb
#
# --binary packs a snapstation built elsewhere instead of building the release one (an AddressSanitizer
# build for a hunt: swift build -c release --static-swift-stdlib --sanitize address).
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
binary=""
if [[ ${1:-} == --binary ]]; then binary=$(realpath "$2"); shift 2; fi
out="${1:-$repo/.build-deb}"
export PATH="/opt/swift/usr/bin:$PATH"
version="0.1.0+$(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo local)"
arch=$(dpkg --print-architecture)

# The Swift standard library and Foundation linked in: the target needs no Swift toolchain.
if [[ -z "$binary" ]]; then
    (cd "$repo" && swift build -c release --static-swift-stdlib --product snapstation 2>&1 | tail -n 1)
    binary="$repo/.build/release/snapstation"
fi

root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
install -D -m 0755 "$binary" "$root/usr/bin/snapstation"
install -D -m 0644 "$repo/systemd/snapstation.service" "$root/usr/lib/systemd/system/snapstation.service"
# The A/B update's units (an image that updates with RAUC enables them: image-recipes/ota/build-rootfs.sh;
# a plain install leaves them disabled, and a station without RAUC never asks for a restart).
for unit in snapstation-reboot.path snapstation-reboot.service snapstation-update-guard.service; do
    install -D -m 0644 "$repo/systemd/$unit" "$root/usr/lib/systemd/system/$unit"
done
install -D -m 0755 "$repo/systemd/snapstation-update-guard" "$root/usr/lib/snapstation/update-guard"
install -D -m 0644 "$repo/systemd/snapstation.sysusers" "$root/usr/lib/sysusers.d/snapstation.conf"
install -D -m 0644 "$repo/systemd/70-snapstation.rules" "$root/usr/lib/udev/rules.d/70-snapstation.rules"
install -D -m 0644 "$repo/systemd/snapstation.tmpfiles" "$root/usr/lib/tmpfiles.d/snapstation.conf"
install -D -m 0644 "$repo/docs/snapstation.example.toml" "$root/usr/share/doc/snapstation/snapstation.example.toml"
for board in "$repo"/board/*/; do
    name=$(basename "$board")
    [[ -f "$board/snapstation.toml" ]] &&
        install -D -m 0644 "$board/snapstation.toml" "$root/usr/share/doc/snapstation/boards/$name.toml"
done
install -D -m 0644 "$repo/README.md" "$root/usr/share/doc/snapstation/README.md"

# Dependencies: the Debian package of every shared library the binary loads.
depends=$(ldd "$binary" | awk '/=> \// {print $3}' | while read -r library; do
    dpkg -S "$(readlink -f "$library")" 2>/dev/null || dpkg -S "$library" 2>/dev/null
done | cut -d: -f1 | sort -u | grep -v '^libc6$' | paste -sd, | sed 's/,/, /g')
installed=$(du -sk "$root" | cut -f1)
mkdir -p "$root/DEBIAN"
cat > "$root/DEBIAN/control" <<CONTROL
Package: snapstation
Version: $version
Architecture: $arch
Maintainer: SnapStation developers <snapstation@localhost>
Installed-Size: $installed
Depends: libc6, $depends, fonts-dejavu-core, systemd
Recommends: libcamera-ipa, avahi-daemon
Section: misc
Priority: optional
Description: camera station kiosk: press, 3-2-1, photo analysed or shared
 One binary drives a camera (libcamera), a GPIO button and flash LED (libgpiod) and a DRM/KMS display.
CONTROL
cat > "$root/DEBIAN/postinst" <<'POSTINST'
#!/bin/sh
set -e
if [ "$1" = configure ]; then
    systemd-sysusers snapstation.conf || true
    systemd-tmpfiles --create snapstation.conf || true
    udevadm control --reload-rules 2>/dev/null || true
    mkdir -p /etc/snapstation
    [ -e /etc/snapstation/snapstation.toml ] ||
        cp /usr/share/doc/snapstation/snapstation.example.toml /etc/snapstation/snapstation.toml
    systemctl daemon-reload 2>/dev/null || true
    systemctl enable snapstation.service 2>/dev/null || true
fi
POSTINST
chmod 0755 "$root/DEBIAN/postinst"
mkdir -p "$out"
dpkg-deb --root-owner-group --build "$root" "$out/snapstation_${version}_${arch}.deb" >/dev/null
echo "$out/snapstation_${version}_${arch}.deb"
