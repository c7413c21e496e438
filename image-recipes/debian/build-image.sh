#!/usr/bin/env bash
# A Debian 12 (bookworm) x86_64 root filesystem with the station installed from its .deb, configured
# with board/x86-vm/snapstation.toml and enabled: the same unit and config as a Pi image. Built with
# debootstrap from Debian's mirror (about a minute); the bare debootstrap is cached as a tarball (in OUT_DIR,
# or with SNAPSTATION_CACHE, there under its key).
#
#   image-recipes/debian/build-image.sh DEB OUT_DIR      -> OUT_DIR/rootfs
set -euo pipefail
deb=$(readlink -f "$1")
out=$(readlink -f "$2")
repo="$(cd "$(dirname "$0")/../.." && pwd)"
mirror="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
mkdir -p "$out"
source "$repo/Tests/Support/cache.sh"
# Writes the bare debootstrap, as a tarball, to FILE.
make_base() {  # FILE
    local tree="$1.tree"
    command -v debootstrap >/dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null
    rm -rf "$tree"
    debootstrap --variant=minbase --include=systemd,systemd-sysv,udev,kmod,ca-certificates,procps \
        bookworm "$tree" "$mirror" >"$out/debootstrap.log" 2>&1 || { tail "$out/debootstrap.log"; exit 1; }
    tar -C "$tree" -cf "$1" . && rm -rf "$tree"
}
make_base_in() { make_base "$1/bookworm-minbase.tar"; }  # FOLDER
# With SNAPSTATION_CACHE (Tests/Support/cache.sh) the tarball is kept there. Its key: this recipe, the
# mirror and the month (bookworm's point releases; the image's own packages come from apt at each build).
base_key="debian bookworm minbase: recipe $(recipe_hash "${BASH_SOURCE[0]}" '^make_base()' '^}'), from $mirror, \
$(date -u +%Y-%m)"
if cache_enabled; then
    cache_make debian-base "$base_key" bookworm-minbase.tar make_base_in
    base="$cache_kept/bookworm-minbase.tar"
else
    base="$out/bookworm-minbase.tar"
    [[ -f "$base" ]] || make_base "$base"
fi
root="$out/rootfs"
rm -rf "$root" && mkdir -p "$root" && tar -C "$root" -xf "$base"
cp "$deb" "$root/tmp/snapstation.deb"
mount --bind /proc "$root/proc"
trap 'umount "$root/proc" 2>/dev/null || true' EXIT
chroot "$root" apt-get update -qq
DEBIAN_FRONTEND=noninteractive chroot "$root" apt-get install -y -qq --no-install-recommends \
    /tmp/snapstation.deb libcamera-ipa >/dev/null
rm "$root/tmp/snapstation.deb"
chroot "$root" apt-get clean
# The board's config, with the state where the unit's StateDirectory= puts it.
sed 's|^dir = .*|dir = "/var/lib/snapstation"|' "$repo/board/x86-vm/snapstation.toml" \
    > "$root/etc/snapstation/snapstation.toml"
echo snapstation > "$root/etc/hostname"
chroot "$root" systemctl is-enabled snapstation.service >/dev/null
echo "$root"
