#!/usr/bin/env bash
# A signed RAUC update bundle (verity format) of one root filesystem, for the slot class "rootfs".
#
#   image-recipes/ota/build-bundle.sh ROOTFS_DIR_OR_IMAGE VERSION OUT.raucb --cert CERT --key KEY
#       [--compatible NAME] [--keyring PEM] [--size MB] [--description TEXT] [--compression NAME]
#
# ROOTFS_DIR_OR_IMAGE is a directory (made into an ext4 image here with mke2fs -d, no mount needed) or
# an ext4 image already built. --compatible must match the device's system.conf ([system] compatible):
# snapstation-x86-vm (the default) or snapstation-rpi. --keyring checks the signature once the bundle
# is made, as the device would (codeSigning certificates only). --size is the ext4 image's size in MiB (default: the tree's size plus
# a quarter and 16 MiB); the slot's resize=true grows it to the partition on install. --compression is
# the squashfs's (mksquashfs -comp): gzip, RAUC's default and the default here, or zstd (level 3),
# which made the same size from a 400 MiB root in 2 s instead of 35 s here and which the target's
# kernel must read (CONFIG_SQUASHFS_ZSTD: Debian's has it).
# Needs rauc (1.8 or later), e2fsprogs and squashfs-tools. Prints the bundle's path.
set -euo pipefail
usage() { sed -n 4,5p "$0" | sed 's/^# *//' >&2; exit 2; }
(($# >= 3)) || usage
input=$1 version=$2 out=$3
shift 3
cert="" key="" keyring="" size="" compatible="snapstation-x86-vm" description="SnapStation root filesystem"
compression=gzip
while (($#)); do
    case $1 in
        --cert) cert=$2; shift 2 ;;
        --key) key=$2; shift 2 ;;
        --keyring) keyring=$2; shift 2 ;;
        --compatible) compatible=$2; shift 2 ;;
        --size) size=$2; shift 2 ;;
        --description) description=$2; shift 2 ;;
        --compression) compression=$2; shift 2 ;;
        *) echo "build-bundle.sh: unknown argument $1" >&2; usage ;;
    esac
done
[[ -n $cert && -n $key ]] || { echo "build-bundle.sh: --cert and --key are required" >&2; exit 2; }
[[ $version =~ ^[A-Za-z0-9][A-Za-z0-9.+~_-]*$ ]] ||
    { echo "build-bundle.sh: version '$version' is not a plain version string" >&2; exit 2; }
for tool in rauc mke2fs mksquashfs; do
    command -v "$tool" >/dev/null || { echo "build-bundle.sh: $tool is missing (apt-get install rauc e2fsprogs squashfs-tools)" >&2; exit 1; }
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
content="$work/content"
mkdir -p "$content"
image="$content/rootfs.ext4"
if [[ -d $input ]]; then
    if [[ -z $size ]]; then
        used=$(du -s --block-size=1M "$input" | cut -f1)
        size=$((used + used / 4 + 16))
    fi
    # Owners and modes as in the tree (build it as root, as debootstrap does); no journal replay on a
    # fresh image; the label is the same in both slots, the partition label tells the slots apart.
    mke2fs -q -t ext4 -L snapstation-root -d "$input" -E root_owner=0:0 "$image" "${size}M" >/dev/null
elif dumpe2fs -h "$input" >/dev/null 2>&1; then
    cp --sparse=always "$input" "$image"
else
    echo "build-bundle.sh: $input is neither a directory nor an ext4 image" >&2
    exit 1
fi

cat > "$content/manifest.raucm" <<MANIFEST
[update]
compatible=$compatible
version=$version
description=$description
build=$(date -u +%Y-%m-%dT%H:%M:%SZ)

[bundle]
format=verity

[image.rootfs]
filename=rootfs.ext4
MANIFEST

mkdir -p "$(dirname "$out")"
rm -f "$out"
case $compression in
    gzip) squashfs_args="-comp gzip" ;;
    zstd) squashfs_args="-comp zstd -Xcompression-level 3" ;;
    *) echo "build-bundle.sh: --compression is gzip or zstd, not $compression" >&2; exit 2 ;;
esac
rauc bundle --cert "$cert" --key "$key" --mksquashfs-args="$squashfs_args" "$content" "$out" > "$work/rauc.log" 2>&1 ||
    { echo "build-bundle.sh: rauc bundle failed:" >&2; cat "$work/rauc.log" >&2; exit 1; }
if [[ -n $keyring ]]; then
    # As the device checks it: its compatible, and only a certificate made for code signing
    # (check-purpose=codesign, which rauc info takes from a system.conf alone).
    printf '[system]\ncompatible=%s\nbootloader=noop\n[keyring]\npath=%s\ncheck-purpose=codesign\n' \
        "$compatible" "$(readlink -f "$keyring")" > "$work/check.conf"
    rauc info --conf "$work/check.conf" "$out" > "$work/info.log" 2>&1 ||
        { echo "build-bundle.sh: the new bundle does not verify against $keyring:" >&2; cat "$work/info.log" >&2; exit 1; }
fi
echo "$out"
