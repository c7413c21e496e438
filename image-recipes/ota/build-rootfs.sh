#!/usr/bin/env bash
# Makes a Debian root filesystem (image-recipes/debian/build-image.sh's, the station installed) into
# one slot of the x86 A/B disk, in place: what build-disk.sh and build-bundle.sh then take.
#
#   image-recipes/ota/build-rootfs.sh ROOT --kernel DIR --keyring PEM [--version VERSION]
#
# --kernel is Debian's linux-image-ABI package unpacked (DIR/boot/vmlinuz-ABI, DIR/lib/modules/ABI;
# Tests/HIL/run --prepare leaves one in .build-hil/). --keyring is the CA certificate bundles must be
# signed under (image-recipes/ota/make-keys.sh; the tests make one at test time). --version goes into
# /usr/lib/os-release as IMAGE_VERSION (default 1.0.0).
#
# Adds:
#   /vmlinuz, /initrd.img   the kernel, and a busybox initramfs (initramfs-init) that mounts the root
#                           GRUB names (root=PARTLABEL=rootfs-a|b) and starts systemd. Chosen over
#                           linux-image-amd64 with initramfs-tools: that puts 400 MB of modules and a
#                           30 MB initramfs into every slot and every bundle; this adds 10 MB. The
#                           modules the system needs (disk, ext4, and loop, device-mapper, dm-verity
#                           and squashfs for RAUC's verity bundles) go to /lib/modules/ABI/extra.
#   RAUC                    rauc and rauc-service (Debian's 1.8), grub-common (grub-editenv, which
#                           RAUC's GRUB backend runs), /etc/rauc/system.conf (system.conf
#                           here), /etc/rauc/keyring.pem; its status on /data (rauc-data.conf); D-Bus
#                           access for root and the station's user only (snapstation-rauc.conf)
#   /etc/fstab              boot partition at /boot/grub, data partition at /data, /etc/snapstation
#                           and /var/lib/snapstation bind-mounted from /data (fstab), seeded from the
#                           slot on the first boot (snapstation-data-seed.service, data-seed)
#   enabled units           snapstation-reboot.path (the station's restart into an installed update)
#                           and snapstation-update-guard.service (the rollback when it never confirms),
#                           both from the .deb (systemd/)
# Runs as root (chroot, apt-get in the root for RAUC). Needs busybox-static, cpio, binutils, python3.
set -euo pipefail
usage() { sed -n 5p "$0" | sed 's/^# *//' >&2; exit 2; }
(($# >= 1)) || usage
root=$(readlink -f "$1")
shift
kernel="" keyring="" version=1.0.0
while (($#)); do
    case $1 in
        --kernel) kernel=$(readlink -f "$2"); shift 2 ;;
        --keyring) keyring=$2; shift 2 ;;
        --version) version=$2; shift 2 ;;
        *) echo "build-rootfs.sh: unknown argument $1" >&2; usage ;;
    esac
done
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
[[ -x $root/usr/bin/snapstation ]] || { echo "build-rootfs.sh: $root has no station (build-image.sh first)" >&2; exit 1; }
[[ -f $keyring ]] || { echo "build-rootfs.sh: --keyring PEM is required" >&2; exit 2; }
vmlinuz=$(find "$kernel/boot" -maxdepth 1 -name "vmlinuz-*" 2>/dev/null | head -n 1)
[[ -f $vmlinuz ]] || { echo "build-rootfs.sh: --kernel DIR has no boot/vmlinuz-*" >&2; exit 2; }
abi=${vmlinuz##*/vmlinuz-}
tree="$kernel/lib/modules/$abi"
for unit in snapstation-reboot.path snapstation-reboot.service snapstation-update-guard.service; do
    [[ -f $root/usr/lib/systemd/system/$unit ]] ||
        { echo "build-rootfs.sh: the station's .deb has no $unit (an older .deb?)" >&2; exit 1; }
done
[[ -x /bin/busybox ]] || { echo "build-rootfs.sh: /bin/busybox is missing (apt-get install busybox-static)" >&2; exit 1; }
work=$(mktemp -d)
mount --bind /proc "$root/proc"
trap 'umount "$root/proc" 2>/dev/null || true; rm -rf "$work"' EXIT

# MARK: RAUC
DEBIAN_FRONTEND=noninteractive chroot "$root" apt-get install -y -qq --no-install-recommends \
    rauc rauc-service dbus grub-common >/dev/null
chroot "$root" apt-get clean
install -D -m 0644 "$here/system.conf" "$root/etc/rauc/system.conf"
install -D -m 0644 "$keyring" "$root/etc/rauc/keyring.pem"
install -D -m 0644 "$here/rauc-data.conf" "$root/etc/systemd/system/rauc.service.d/snapstation.conf"
install -D -m 0644 "$here/snapstation-rauc.conf" "$root/etc/dbus-1/system.d/snapstation-rauc.conf"

# MARK: kernel, modules, initramfs
install -D -m 0644 "$vmlinuz" "$root/boot/vmlinuz-$abi"
mkdir -p "$root/lib/modules/$abi/extra"
python3 "$repo/Tests/HIL/modules.py" --tree "$tree" --extra "$work/none" --out "$root/lib/modules/$abi/extra" \
    virtio_pci virtio_blk ext4 crc32c_generic loop dm_mod dm_verity squashfs autofs4 >/dev/null
cp "$tree"/modules.builtin "$tree"/modules.builtin.modinfo "$tree"/modules.order "$root/lib/modules/$abi/" 2>/dev/null || true
chroot "$root" depmod "$abi"
# Loaded at boot rather than on demand: RAUC opens a loop device, device-mapper and dm-verity as it
# mounts a bundle.
printf '%s\n' loop dm_mod dm_verity squashfs > "$root/etc/modules-load.d/snapstation-rauc.conf"
initramfs="$work/initramfs"
mkdir -p "$initramfs"/{bin,modules}
cp /bin/busybox "$initramfs/bin/busybox"
install -m 0755 "$here/initramfs-init" "$initramfs/init"
python3 "$repo/Tests/HIL/modules.py" --tree "$tree" --extra "$work/none" --out "$initramfs/modules" \
    virtio_pci virtio_blk ext4 crc32c_generic > "$initramfs/modules/order"
(cd "$initramfs" && find . | cpio -o -H newc -R 0:0 --quiet | gzip -9) > "$root/boot/initrd.img-$abi"
ln -sfn "boot/vmlinuz-$abi" "$root/vmlinuz"
ln -sfn "boot/initrd.img-$abi" "$root/initrd.img"

# MARK: the data partition
install -m 0644 "$here/fstab" "$root/etc/fstab"
mkdir -p "$root/boot/grub" "$root/data" "$root/var/lib/snapstation"
install -D -m 0755 "$here/data-seed" "$root/usr/lib/snapstation/data-seed"
install -D -m 0644 "$here/snapstation-data-seed.service" "$root/etc/systemd/system/snapstation-data-seed.service"

# MARK: the machine-id: none in the image, so that systemd makes one on each station's first boot
# (machine-id(5): an empty file is filled at boot where the root is writable), which data-seed keeps on
# the data partition and initramfs-init gives to either slot. D-Bus's copy would be taken instead of a
# new one (systemd's machine-id-setup reads it first): it becomes a link to systemd's.
: > "$root/etc/machine-id"
if [[ -e $root/var/lib/dbus/machine-id || -L $root/var/lib/dbus/machine-id ]]; then
    ln -sfn /etc/machine-id "$root/var/lib/dbus/machine-id"
fi

# MARK: the update's units, and the image's version
chroot "$root" systemctl enable snapstation-reboot.path snapstation-update-guard.service >/dev/null 2>&1
sed -i '/^IMAGE_ID=/d; /^IMAGE_VERSION=/d' "$root/usr/lib/os-release"
printf 'IMAGE_ID=snapstation\nIMAGE_VERSION=%s\n' "$version" >> "$root/usr/lib/os-release"
echo "$root"
