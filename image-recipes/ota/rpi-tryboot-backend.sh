#!/bin/sh
# RAUC's custom bootloader backend for the Raspberry Pi firmware's tryboot, over autoboot.txt's A/B
# switch (RAUC docs: integration.rst "Custom" > "Custom bootloader backend interface"; Raspberry Pi
# docs: config_txt/autoboot.adoc, the [tryboot] filter and tryboot_a_b).
#
#   rpi-tryboot-backend.sh get-primary | set-primary A|B | get-state A|B | set-state A|B good|bad
#                          | get-current
#
# autoboot.txt, on the small FAT partition the firmware reads first (rpi-image-gen's bootconfig,
# mounted at /bootfs), names the boot partition of the committed slot under [all] and of the slot to
# try under [tryboot]. RAUC installs to the other slot and calls set-primary for it: that points
# [tryboot] at it and leaves "0 tryboot" in /run/systemd/reboot-param, so the next `systemctl reboot`
# asks the firmware for one tryboot. The firmware clears the flag before it starts, so a crash, a
# watchdog reset or a power cut during the try comes back to the committed slot. Once the tried
# system is healthy, `rauc status mark-good` calls set-state SLOT good, and that commits it: [all]
# names it from then on. A try never marked good leaves [all], and so the old slot, as it was.
#
# Firmware: tryboot itself came with the Pi 4 bootloader EEPROM of 2020-10-28 (beta; in the default
# release from 2021-04-19); autoboot.txt's [tryboot] filter and tryboot_a_b=1, which this relies on,
# with the EEPROM of 2022-10-18 (beta; default from 2022-12-01, pieeprom-2022-11-25). Every Pi 5
# bootloader has both. Older EEPROMs ignore [tryboot] in autoboot.txt and never try the new slot:
# the update then looks as if it failed, and the old slot keeps running (check with
# `rpi-eeprom-update`; rpi-eeprom's firmware-2711/release-notes.md).
#
# Paths, overridable so that a test can point the script at a fake boot partition and device tree:
#   RPI_BOOTCONFIG      the partition holding autoboot.txt (/bootfs)
#   RPI_STATE_FILE      each slot's good/bad as RAUC last set it (RPI_BOOTCONFIG/rauc-slots.txt)
#   RPI_DEVICE_TREE     the firmware's chosen/bootloader node (/proc/device-tree/chosen/bootloader):
#                       "partition" (the partition booted) and "tryboot" (1 in a try), each one
#                       big-endian 32-bit cell
#   RPI_REBOOT_PARAM    where systemd takes the next reboot's argument (/run/systemd/reboot-param)
#   RPI_PARTITION_A, RPI_PARTITION_B   the slots' boot partitions (2 and 3)
set -eu

bootconfig=${RPI_BOOTCONFIG:-/bootfs}
autoboot=$bootconfig/autoboot.txt
state_file=${RPI_STATE_FILE:-$bootconfig/rauc-slots.txt}
device_tree=${RPI_DEVICE_TREE:-/proc/device-tree/chosen/bootloader}
reboot_param=${RPI_REBOOT_PARAM:-/run/systemd/reboot-param}
partition_a=${RPI_PARTITION_A:-2}
partition_b=${RPI_PARTITION_B:-3}

fail() {
    echo "rpi-tryboot-backend: $*" >&2
    exit 1
}

partition_of() {
    case $1 in
        A) echo "$partition_a" ;;
        B) echo "$partition_b" ;;
        *) fail "unknown slot '$1' (the bootnames are A and B)" ;;
    esac
}

slot_of() {
    if [ "$1" = "$partition_a" ]; then echo A
    elif [ "$1" = "$partition_b" ]; then echo B
    else fail "partition $1 is neither slot's boot partition ($partition_a, $partition_b)"
    fi
}

other_slot() {
    if [ "$1" = A ]; then echo B; else echo A; fi
}

# A device-tree cell: four bytes, most significant first.
read_cell() {
    [ -r "$device_tree/$1" ] || return 1
    od -An -v -tu1 "$device_tree/$1" | awk '{ for (i = 1; i <= NF; i++) value = value * 256 + $i }
        END { if (NR == 0) exit 1; print value + 0 }'
}

# A file replaced whole: written beside, flushed, renamed over (FAT has no atomic rename, but the old
# file stays whole until the rename, and the firmware reads either one).
replace_file() {
    target=$1
    cat > "$target.new"
    sync "$target.new" 2>/dev/null || sync
    mv -f "$target.new" "$target"
    sync "$(dirname "$target")" 2>/dev/null || sync
}

# The boot_partition of a section of autoboot.txt ("all" or "tryboot").
autoboot_partition() {
    [ -r "$autoboot" ] || fail "$autoboot is missing"
    awk -v want="$1" '
        /^\[/ { section = tolower(substr($0, 2, index($0, "]") - 2)); next }
        section == want && /^boot_partition=/ { value = substr($0, 16) }
        END { if (value == "") exit 1; print value }' "$autoboot" ||
        fail "$autoboot has no boot_partition under [$1]"
}

write_autoboot() {
    replace_file "$autoboot" <<AUTOBOOT
[all]
tryboot_a_b=1
boot_partition=$(partition_of "$1")
[tryboot]
boot_partition=$(partition_of "$2")
AUTOBOOT
}

committed_slot() {
    slot_of "$(autoboot_partition all)"
}

# good or bad, as RAUC last set it; a slot RAUC never marked is good when it is the committed one.
slot_state() {
    recorded=""
    [ -r "$state_file" ] && recorded=$(sed -n "s/^$1=//p" "$state_file" | tail -n 1)
    if [ -n "$recorded" ]; then echo "$recorded"
    elif [ "$(committed_slot)" = "$1" ]; then echo good
    else echo bad
    fi
}

record_state() {
    a=$(slot_state A)
    b=$(slot_state B)
    if [ "$1" = A ]; then a=$2; else b=$2; fi
    printf 'A=%s\nB=%s\n' "$a" "$b" | replace_file "$state_file"
}

in_tryboot() {
    [ "$(read_cell tryboot 2>/dev/null || echo 0)" = 1 ]
}

booted_slot() {
    partition=$(read_cell partition) || fail "cannot read $device_tree/partition (not booted by the Pi firmware?)"
    slot_of "$partition"
}

cancel_pending_try() {
    if [ -f "$reboot_param" ] && grep -q tryboot "$reboot_param"; then rm -f "$reboot_param"; fi
}

# The slot running in a try becomes the committed one.
commit() {
    write_autoboot "$1" "$(other_slot "$1")"
    cancel_pending_try
    echo "rpi-tryboot-backend: slot $1 committed: autoboot.txt boots partition $(partition_of "$1") from now on" >&2
}

command=${1:-}
case $command in
    get-primary)
        committed_slot
        ;;
    set-primary)
        slot=${2:?set-primary needs a slot}
        partition_of "$slot" >/dev/null
        if [ "$(committed_slot)" = "$slot" ]; then
            write_autoboot "$slot" "$(other_slot "$slot")"
            cancel_pending_try
        elif in_tryboot && [ "$(booted_slot)" = "$slot" ]; then
            commit "$slot"
        else
            write_autoboot "$(committed_slot)" "$slot"
            mkdir -p "$(dirname "$reboot_param")"
            printf '0 tryboot\n' | replace_file "$reboot_param"
            echo "rpi-tryboot-backend: slot $slot is tried at the next reboot (partition $(partition_of "$slot"))" >&2
        fi
        ;;
    get-state)
        slot=${2:?get-state needs a slot}
        partition_of "$slot" >/dev/null
        slot_state "$slot"
        ;;
    set-state)
        slot=${2:?set-state needs a slot}
        state=${3:?set-state needs good or bad}
        partition_of "$slot" >/dev/null
        case $state in
            good)
                record_state "$slot" good
                if in_tryboot && [ "$(booted_slot)" = "$slot" ] && [ "$(committed_slot)" != "$slot" ]; then
                    commit "$slot"
                fi
                ;;
            bad)
                record_state "$slot" bad
                # A slot about to be written, or found wanting, is tried no more.
                if [ "$(committed_slot)" != "$slot" ] && [ "$(slot_of "$(autoboot_partition tryboot)")" = "$slot" ]; then
                    cancel_pending_try
                fi
                ;;
            *) fail "unknown state '$state' (good or bad)" ;;
        esac
        ;;
    get-current)
        booted_slot
        ;;
    *)
        fail "unknown command '$command' (get-primary, set-primary, get-state, set-state, get-current)"
        ;;
esac
