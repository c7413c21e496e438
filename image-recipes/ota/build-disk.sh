#!/usr/bin/env bash
# The x86 VM's A/B disk, as image-recipes/ota/system.conf and grub.cfg expect it, for BIOS boot:
#
#   1 bios_grub   1 MiB   GRUB's core.img
#   2 boot        16 MiB  ext2: grub.cfg, grubenv, GRUB's modules (the running system mounts it at /boot/grub)
#   3 rootfs-a    SLOT    ext4, slot A: the root filesystem given
#   4 rootfs-b    SLOT    ext4, slot B: the same (or --rootfs-b), so that either can boot from the start
#   5 data        DATA    ext4, empty: /data
#
#   image-recipes/ota/build-disk.sh OUT.img --rootfs DIR [--rootfs-b DIR] [--slot-size MB] [--data-size MB]
#
# A root filesystem must hold /vmlinuz and /initrd.img (Debian's linux-image-amd64 leaves both links);
# grub.cfg boots them with rauc.slot=A|B. grubenv starts with slot A good and first, slot B good after it.
#
# Made without loop devices or mounts: each partition is an image file (mke2fs -d) copied into place,
# the GPT written by sfdisk, and GRUB installed by hand as grub-bios-setup would: boot.img's code into
# the MBR, told where core.img starts; core.img (grub-mkimage) into the bios_grub partition, its first
# sector told where the rest of it is. Needs grub-pc-bin, grub-common, e2fsprogs, fdisk.
set -euo pipefail
usage() { sed -n 9p "$0" | sed 's/^# *//' >&2; exit 2; }
(($# >= 1)) || usage
out=$1
shift
rootfs="" rootfs_b="" slot_size=256 data_size=64
while (($#)); do
    case $1 in
        --rootfs) rootfs=$2; shift 2 ;;
        --rootfs-b) rootfs_b=$2; shift 2 ;;
        --slot-size) slot_size=$2; shift 2 ;;
        --data-size) data_size=$2; shift 2 ;;
        *) echo "build-disk.sh: unknown argument $1" >&2; usage ;;
    esac
done
[[ -d $rootfs ]] || { echo "build-disk.sh: --rootfs DIR is required" >&2; exit 2; }
rootfs_b=${rootfs_b:-$rootfs}
for file in vmlinuz initrd.img; do
    for tree in "$rootfs" "$rootfs_b"; do
        [[ -e $tree/$file || -L $tree/$file ]] || { echo "build-disk.sh: $tree has no /$file" >&2; exit 1; }
    done
done
here="$(cd "$(dirname "$0")" && pwd)"
grub=/usr/lib/grub/i386-pc
[[ -f $grub/boot.img ]] || { echo "build-disk.sh: $grub/boot.img is missing (apt-get install grub-pc-bin)" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
sector=512

# MARK: the partitions' contents
mkdir -p "$work/boot/i386-pc"
cp "$here/grub.cfg" "$work/boot/grub.cfg"
cp "$grub"/*.mod "$grub"/*.lst "$work/boot/i386-pc/"
grub-editenv "$work/boot/grubenv" create
grub-editenv "$work/boot/grubenv" set ORDER="A B" A_OK=1 A_TRY=0 B_OK=1 B_TRY=0
mke2fs -q -t ext2 -L boot -d "$work/boot" "$work/boot.img" 16M >/dev/null
mke2fs -q -t ext4 -L snapstation-root -d "$rootfs" -E root_owner=0:0 "$work/rootfs-a.img" "${slot_size}M" >/dev/null
mke2fs -q -t ext4 -L snapstation-root -d "$rootfs_b" -E root_owner=0:0 "$work/rootfs-b.img" "${slot_size}M" >/dev/null
mke2fs -q -t ext4 -L data "$work/data.img" "${data_size}M" >/dev/null

# MARK: the disk
# Starts in MiB; 1 MiB before the first partition and after the last for the GPT and its backup.
bios_start=1 boot_start=2 a_start=18
b_start=$((a_start + slot_size))
data_start=$((b_start + slot_size))
total=$((data_start + data_size + 1))
rm -f "$out"
truncate -s "${total}M" "$out"
sfdisk --quiet --label gpt "$out" <<LAYOUT
start=$((bios_start * 2048)), size=2048, type=21686148-6449-6E6F-744E-656564454649, name=bios_grub
start=$((boot_start * 2048)), size=$((16 * 2048)), type=0FC63DAF-8483-4772-8E79-3D69D8477DE4, name=boot
start=$((a_start * 2048)), size=$((slot_size * 2048)), type=0FC63DAF-8483-4772-8E79-3D69D8477DE4, name=rootfs-a
start=$((b_start * 2048)), size=$((slot_size * 2048)), type=0FC63DAF-8483-4772-8E79-3D69D8477DE4, name=rootfs-b
start=$((data_start * 2048)), size=$((data_size * 2048)), type=0FC63DAF-8483-4772-8E79-3D69D8477DE4, name=data
LAYOUT
place() { dd if="$1" of="$out" bs=1M seek="$2" conv=notrunc status=none; }
place "$work/boot.img" "$boot_start"
place "$work/rootfs-a.img" "$a_start"
place "$work/rootfs-b.img" "$b_start"
place "$work/data.img" "$data_start"

# MARK: GRUB for BIOS
# core.img: enough to read the boot partition; everything else (normal, loadenv, linux…) is loaded
# from there as grub.cfg needs it.
grub-mkimage -O i386-pc -o "$work/core.img" -p "(hd0,gpt2)" biosdisk part_gpt ext2
core_sectors=$(( ($(stat -c %s "$work/core.img") + sector - 1) / sector ))
((core_sectors <= 2048)) || { echo "build-disk.sh: core.img ($core_sectors sectors) does not fit bios_grub" >&2; exit 1; }
python3 - "$out" "$grub/boot.img" "$work/core.img" "$((bios_start * 2048))" "$core_sectors" <<'PYTHON'
import struct, sys
disk, boot_img, core_img, core_lba, core_sectors = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
boot = bytearray(open(boot_img, "rb").read())
core = bytearray(open(core_img, "rb").read())
core += bytes(-len(core) % 512)
# boot.img (GRUB's i386-pc boot.S): the LBA of core.img's first sector at 0x5c; at 0x66 a jump over the
# boot-drive check, replaced by two NOPs for a hard disk so that a BIOS passing a wrong drive number is
# corrected to 0x80.
struct.pack_into("<Q", boot, 0x5C, core_lba)
boot[0x66:0x68] = b"\x90\x90"
# core.img's first sector (diskboot.S) ends with a block list, read from its end backwards: the rest of
# core.img as one run of sectors, loaded at segment 0x820 (0x800, where the first sector went, + 512 B).
struct.pack_into("<QHH", core, 512 - 12, core_lba + 1, core_sectors - 1, 0x820)
with open(disk, "r+b") as image:
    image.seek(0)
    image.write(boot[:440])          # the code only: the protective MBR's disk signature and table stay
    image.seek(core_lba * 512)
    image.write(core)
PYTHON
echo "$out"
