#!/bin/sh
# rpi-image-gen's post-image hook for this source tree (bin/runner runs SRCROOT:post-image.sh after
# genimage, with the image output folder as $1 and the build's IGconf_* variables; it skips a hook that
# is not executable): writes rauc.slot=A into boot_a's cmdline.txt and rauc.slot=B into boot_b's, in
# the disk image.
#
#   post-image.sh OUTPUT_DIR        the image is OUTPUT_DIR/$IGconf_image_name.$IGconf_image_suffix
#
# Why here: rpi-image-gen makes one FAT image for both boot partitions (image/gpt/ab_userdata/
# genimage.cfg.in.ext4 places boot.vfat twice; its slot-post-process.sh edits that one cmdline.txt), so
# no layer can tell them apart. RAUC needs rauc.slot= to name the booted slot (image-recipes/ota/
# system-rpi.conf); after an install, the post-install handler writes it into the new slot, and this
# uses the same edit (rpi-post-install.sh --set-slot). No loop device: sfdisk reads the partition table
# and mtools reads and writes the FAT at its offset (both in rpi-image-gen's depends).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
edit_cmdline="$here/../ota/rpi-post-install.sh"
output=${1:?usage: post-image.sh OUTPUT_DIR}
image="$output/${IGconf_image_name:?}.${IGconf_image_suffix:-img}"

fail() {
    echo "post-image.sh: $*" >&2
    exit 1
}

[ -f "$image" ] || fail "$image is missing"
table=$(sfdisk --dump "$image") || fail "cannot read the partition table of $image"
sector_size=$(printf '%s\n' "$table" | sed -n 's/^sector-size: *\([0-9][0-9]*\).*/\1/p')
sector_size=${sector_size:-512}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export MTOOLS_SKIP_CHECK=1

for slot in A B; do
    label=boot_$(printf '%s' "$slot" | tr AB ab)
    start=$(printf '%s\n' "$table" | sed -n "s/.*start= *\([0-9][0-9]*\),.*name=\"$label\".*/\1/p")
    [ -n "$start" ] || fail "$image has no partition named $label (not rpi-image-gen's A/B layout?)"
    fat="$image@@$((start * sector_size))"
    mtype -i "$fat" ::/cmdline.txt > "$work/cmdline.txt" || fail "$label has no cmdline.txt"
    sh "$edit_cmdline" --set-slot "$work/cmdline.txt" "$slot"
    mcopy -o -i "$fat" "$work/cmdline.txt" ::/cmdline.txt || fail "cannot write $label's cmdline.txt"
    echo "post-image.sh: $label's cmdline.txt: $(head -n 1 "$work/cmdline.txt")"
done
