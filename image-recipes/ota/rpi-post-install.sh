#!/bin/sh
# RAUC's post-install handler on a Raspberry Pi (system-rpi.conf, [handlers] post-install=): writes
# rauc.slot=<bootname> into the cmdline.txt of the boot slot just installed, so that the kernel command
# line names the slot it was started from (rauc.slot=B on boot_b).
#
#   rpi-post-install.sh                          as RAUC runs it, after an install, with RAUC's environment
#   rpi-post-install.sh --set-slot FILE BOOTNAME  one cmdline.txt, edited in place
#                                                (image-recipes/raspberry-pi/post-image.sh, at image build)
#
# Why: RAUC takes the booted slot from the kernel command line: rauc.slot= first, else root= (RAUC's
# src/context.c, get_cmdline_bootname). rpi-image-gen's cmdline.txt always has
# root=/dev/disk/by-slot/active/system, so without rauc.slot= RAUC names the booted slot by its device
# (/dev/mmcblk0p4), and the custom backend's get-current is never asked. `rauc status` then says
# "booted": "/dev/mmcblk0p4", which matches no bootname, and the station cannot tell which slot runs;
# snapstation-update-guard.service also starts only where rauc.slot is on the command line. rpi-image-gen
# makes both boot partitions from one image (image/gpt/ab_userdata/image.adoc, "Slot Pairing"), and a
# bundle's boot image has no rauc.slot= of its own (or another slot's), so each install writes it here.
#
# RAUC's environment (docs/reference.rst "Custom Handlers (Interface)"; src/install.c,
# prepare_environment): RAUC_SLOTS and RAUC_TARGET_SLOTS list slot numbers; for each N,
# RAUC_SLOT_NAME_N (boot.1), RAUC_SLOT_CLASS_N (boot), RAUC_SLOT_DEVICE_N, RAUC_SLOT_BOOTNAME_N (empty for
# a child slot) and RAUC_SLOT_PARENT_N (rootfs.1: a slot name, not a bootname). RAUC numbers the slots
# in no fixed order. The target group holds every child of the chosen rootfs slot, whether or not the
# bundle has an image for it.
#
# RAUC has already made the new slot primary when this runs (install.c: the default handler marks it
# active, then the post-install handler runs). So when this fails, it marks that slot bad through the
# tryboot backend, which cancels the pending try: a slot whose cmdline.txt may name the wrong slot is
# never started.
#
# Overridable, so that a test can use a folder for the FAT partition:
#   RPI_MOUNT             the command that mounts a boot slot: RPI_MOUNT DEVICE DIR (mount -t vfat)
#   RPI_UMOUNT            the command that unmounts it: RPI_UMOUNT DIR (umount)
#   RPI_TRYBOOT_BACKEND   system-rpi.conf's bootloader-custom-backend
#                         (/usr/lib/snapstation/rpi-tryboot-backend.sh)
#   RPI_BOOT_CLASS        the class of the boot slots in system-rpi.conf (boot)
set -eu

mount_command=${RPI_MOUNT:-mount -t vfat}
umount_command=${RPI_UMOUNT:-umount}
backend=${RPI_TRYBOOT_BACKEND:-/usr/lib/snapstation/rpi-tryboot-backend.sh}
boot_class=${RPI_BOOT_CLASS:-boot}

fail() {
    echo "rpi-post-install: $*" >&2
    exit 1
}

# cmdline.txt is one line of arguments: every rauc.slot= in it goes, ours is added at the end, the rest
# stays in its order. A CR (the file edited on Windows) is dropped. Any further lines are kept as they
# are (the firmware reads the first). Each step checks its own failure: set -e does not hold where
# this runs in a subshell whose status is tested.
set_slot() {  # FILE BOOTNAME
    file=$1
    [ -f "$file" ] || fail "$file is missing: cannot write rauc.slot=$2 into it"
    [ -s "$file" ] || fail "$file is empty: cannot write rauc.slot=$2 into it"
    awk -v slot="rauc.slot=$2" '
        NR == 1 {
            sub(/\r$/, "")
            line = ""
            for (i = 1; i <= NF; i++) if ($i !~ /^rauc\.slot=/) line = line $i " "
            print line slot
            next
        }
        { print }' "$file" > "$file.new" || fail "cannot write $file.new"
    # FAT has no atomic rename; the old file stays whole until the rename, as in rpi-tryboot-backend.sh.
    sync "$file.new" 2>/dev/null || sync
    mv -f "$file.new" "$file" || fail "cannot replace $file"
}

if [ "${1:-}" = --set-slot ]; then
    [ $# -eq 3 ] || fail "usage: rpi-post-install.sh --set-slot FILE BOOTNAME"
    set_slot "$2" "$3"
    exit 0
fi
# RAUC 1.8 starts its handler with one empty argument (seen in Tests/Update/bundles.sh's VM): arguments
# other than --set-slot are RAUC's, and ignored.
[ -n "${RAUC_TARGET_SLOTS+set}" ] ||
    fail "RAUC_TARGET_SLOTS is not set: RAUC runs this as its post-install handler (system-rpi.conf)"

# Every number in RAUC's lists, checked once: each names its slot's variables below.
for i in ${RAUC_SLOTS-} $RAUC_TARGET_SLOTS; do
    case $i in
        '' | *[!0-9]*) fail "'$i' in RAUC_SLOTS or RAUC_TARGET_SLOTS is not a slot number" ;;
    esac
done
slot_variable() {  # NAME N: RAUC_SLOT_NAME_N
    eval "printf '%s' \"\${RAUC_SLOT_$1_$2-}\""
}

# The bootname of the slot named $1 (the boot slot's parent).
bootname_of() {
    for j in ${RAUC_SLOTS-}; do
        if [ "$(slot_variable NAME "$j")" = "$1" ]; then
            found=$(slot_variable BOOTNAME "$j")
            [ -n "$found" ] || fail "slot $1 has no bootname (system-rpi.conf: bootname=A|B)"
            printf '%s\n' "$found"
            return 0
        fi
    done
    fail "slot $1 is not among RAUC's slots (RAUC_SLOTS='${RAUC_SLOTS-}')"
}

# The slot installed, by its bootname: the target with one (rootfs.N).
installed=""
for i in $RAUC_TARGET_SLOTS; do
    bootname=$(slot_variable BOOTNAME "$i")
    if [ -n "$bootname" ]; then installed=$bootname; fi
done

abandon() {
    [ -n "$installed" ] || return 0
    if $backend set-state "$installed" bad; then
        echo "rpi-post-install: slot $installed marked bad, so it is not tried" >&2
    else
        echo "rpi-post-install: slot $installed could not be marked bad ($backend)" >&2
    fi
}
on_exit() {
    status=$?
    [ "$status" -eq 0 ] || abandon
    exit "$status"
}
trap on_exit EXIT

written=0
for i in $RAUC_TARGET_SLOTS; do
    [ "$(slot_variable CLASS "$i")" = "$boot_class" ] || continue
    name=$(slot_variable NAME "$i")
    device=$(slot_variable DEVICE "$i")
    parent=$(slot_variable PARENT "$i")
    [ -n "$device" ] || fail "slot $name has no device"
    [ -n "$parent" ] || fail "slot $name has no parent (system-rpi.conf: parent=rootfs.N)"
    bootname=$(bootname_of "$parent")
    mount_point=$(mktemp -d "${RAUC_MOUNT_PREFIX:-${TMPDIR:-/tmp}}/rpi-boot.XXXXXX")
    $mount_command "$device" "$mount_point" || { rmdir "$mount_point"; fail "cannot mount $device (slot $name)"; }
    edited=0
    (set_slot "$mount_point/cmdline.txt" "$bootname") || edited=$?
    $umount_command "$mount_point" || fail "cannot unmount $device (slot $name) from $mount_point"
    rmdir "$mount_point"
    [ "$edited" -eq 0 ] || fail "slot $name ($device): its cmdline.txt does not name slot $bootname"
    echo "rpi-post-install: slot $name ($device): cmdline.txt says rauc.slot=$bootname" >&2
    written=$((written + 1))
done
[ "$written" -gt 0 ] ||
    fail "no slot of class $boot_class among the targets ($RAUC_TARGET_SLOTS): no cmdline.txt names the new slot"
