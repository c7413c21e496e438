#!/usr/bin/env bash
# Packs the station into a .deb for the machine it runs on (amd64 here, arm64 on a Pi or an arm64 runner):
# the binary with the Swift runtime linked in, the systemd unit, sysusers, udev and tmpfiles files, the
# A/B update's units (left disabled), the example configs, and a postinst that creates the user and
# enables the unit. Both images install it.
#
#   image-recipes/deb/build-deb.sh [--binary PATH] [--arch ARCH --sysroot DIR] [OUT_DIR]
#                                                       -> OUT_DIR/snapstation_VERSION_ARCH.deb
#
# --binary packs a snapstation built elsewhere instead of building the release one (an AddressSanitizer
# build for a hunt: swift build -c release --static-swift-stdlib --sanitize address; the arm64 build of
# image-recipes/arm64/build-arm64.sh). --arch and --sysroot pack a binary for another architecture: its
# Depends come from the target's libraries and dpkg database in DIR (image-recipes/arm64 makes one).
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
binary=""
arch=$(dpkg --print-architecture)
sysroot=""
while [[ ${1:-} == --* ]]; do
    case $1 in
        --binary) binary=$(realpath "$2") ;;
        --arch) arch=$2 ;;
        --sysroot) sysroot=$(realpath "$2") ;;
        *) echo "unknown option $1" >&2; exit 2 ;;
    esac
    shift 2
done
out="${1:-$repo/.build-deb}"
export PATH="/opt/swift/usr/bin:$PATH"
version="0.1.0+$(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo local)"

# The Swift standard library and Foundation linked in: the target needs no Swift toolchain.
if [[ -z "$binary" ]]; then
    (cd "$repo" && swift build -c release --static-swift-stdlib --product snapstation 2>&1 | tail -n 1)
    binary="$repo/.build/release/snapstation"
fi

root=$(mktemp -d)
work=""
trap 'rm -rf "$root" $work' EXIT
# Without its debug information (the symbol table stays, so a crash report still names each function):
# 165 MB is 105 MB for arm64 (ICU's data, linked in with Foundation, is much of the rest). llvm-objcopy
# (the Swift toolchain's) reads every architecture.
mkdir -p "$root/usr/bin"
objcopy=$(command -v llvm-objcopy || command -v objcopy)
"$objcopy" --strip-debug "$binary" "$root/usr/bin/snapstation"
chmod 0755 "$root/usr/bin/snapstation"
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

# Dependencies: dpkg-shlibdeps names the package of every shared library the binary loads, with the
# lowest version that has the symbols it uses (from the packages' symbols files). For another
# architecture it reads the target's libraries and dpkg database in the sysroot.
shlibdeps=(dpkg-shlibdeps -O)
if [[ -n "$sysroot" ]]; then
    multiarch=$(dpkg-architecture -a"$arch" -qDEB_HOST_MULTIARCH 2>/dev/null)
    shlibdeps+=("--admindir=$sysroot/var/lib/dpkg" "-l$sysroot/usr/lib/$multiarch" "-l$sysroot/lib/$multiarch")
fi
work=$(mktemp -d)
mkdir -p "$work/debian" "$root/DEBIAN" # DEBIAN: the package's root, for the binary's $ORIGIN run path
printf 'Source: snapstation\n\nPackage: snapstation\nArchitecture: any\n' > "$work/debian/control"
# (Its notes of libraries linked but unused, pulled in by pkg-config's Libs, are left out.)
depends=$(cd "$work" && DEB_HOST_ARCH=$arch "${shlibdeps[@]}" "$root/usr/bin/snapstation" \
    2> >(grep -v "useless dependency" >&2) | sed -n 's/^shlibs:Depends=//p')
rm -rf "$work"
[[ -n "$depends" ]] || { echo "dpkg-shlibdeps found no dependencies for $binary" >&2; exit 1; }
installed=$(du -sk "$root" | cut -f1)
mkdir -p "$root/DEBIAN"
cat > "$root/DEBIAN/control" <<CONTROL
Package: snapstation
Version: $version
Architecture: $arch
Maintainer: SnapStation developers <snapstation@localhost>
Installed-Size: $installed
Depends: $depends, fonts-dejavu-core, systemd
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
