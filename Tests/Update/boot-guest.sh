#!/bin/busybox sh
# shellcheck shell=dash
# /init of each slot's test system in Tests/Update/boot.sh: says which slot GRUB started (rauc.slot=
# on the command line, and the version this slot's initrd carries), then does to grubenv what the
# boot's action (the first line of /dev/vdb) asks, with grub-editenv, writing what RAUC's GRUB backend
# writes (rauc 1.8 src/bootchooser.c):
#   mark-good   the booted slot came up well:       <slot>_OK=1 <slot>_TRY=0   (rauc status mark-good)
#   install     the other slot was just written:    ORDER="<other> <slot>" <other>_OK=1 <other>_TRY=0
#               (rauc install's set-primary), and this slot is marked good as well
#   nothing     the booted system never comes up well (no mark-good)
/bin/busybox --install -s /bin
export PATH=/bin:/usr/bin
mkdir -p /dev /proc /sys /boot/grub
mount -t devtmpfs dev /dev
mount -t proc proc /proc
mount -t sysfs sys /sys
for module in $(cat /modules/order); do insmod /modules/$module 2>/dev/null; done
for _ in $(seq 50); do [ -b /dev/vdb ] && break; sleep 0.1; done
slot=$(sed -n 's/.*rauc\.slot=\([A-Z]\).*/\1/p' /proc/cmdline)
action=$(head -n 1 /dev/vdb | tr -d '\0')
mount -t ext2 /dev/vda2 /boot/grub || echo "BOOT: FAIL mount /dev/vda2"
env() { grub-editenv /boot/grub/grubenv list | tr '\n' ' '; }
echo "BOOT: slot=$slot version=$(cat /etc/slot-version) root=$(sed -n 's/.*root=\([^ ]*\).*/\1/p' /proc/cmdline) action=$action grubenv: $(env)"
other=A
[ "$slot" = A ] && other=B
case $action in
    mark-good) grub-editenv /boot/grub/grubenv set "${slot}_OK=1" "${slot}_TRY=0" ;;
    install)
        grub-editenv /boot/grub/grubenv set "${slot}_OK=1" "${slot}_TRY=0"
        grub-editenv /boot/grub/grubenv set "ORDER=$other $slot" "${other}_OK=1" "${other}_TRY=0" ;;
    nothing) ;;
esac
echo "BOOT: after: $(env)"
umount /boot/grub
sync
echo "BOOT: DONE"
poweroff -f
