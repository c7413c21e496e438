#!/bin/busybox sh
# shellcheck shell=dash
# /init of the update test's VM (Tests/Update/bundles.sh): RAUC's service on a private D-Bus, installing
# the test's bundles into two virtio disks that stand for the slots, as the x86 VM's system.conf and
# then the Pi's (the tryboot backend, over a fake bootconfig partition and device tree) configure it.
# Results go to the serial console as "UPDATE: PASS|FAIL|INFO …" lines, then "UPDATE: DONE".
#
# Disks: vda slot A (rootfs-a / system_a), vdb slot B, vdc the boot partition (ext2 with grubenv,
# mounted at /boot/grub), vdd and vde the Pi's boot_a and boot_b.
/bin/busybox --install -s /bin
export PATH=/bin:/sbin:/usr/bin:/usr/sbin TZ=UTC HOME=/root
mkdir -p /dev /proc /sys /tmp /run /root /data /boot/grub /mnt/rauc /mnt/slot
mount -t devtmpfs dev /dev
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t tmpfs tmp /tmp
mount -t tmpfs run /run
mount -t tmpfs data /data
echo "UPDATE: BOOTED $(cut -d' ' -f1 /proc/uptime)s"
for module in $(cat /modules/order); do insmod /modules/$module || echo "UPDATE: FAIL insmod $module"; done
for _ in $(seq 50); do [ -b /dev/vde ] && break; sleep 0.1; done
mount -t ext2 /dev/vdc /boot/grub || echo "UPDATE: FAIL mount the boot partition"

pass() { echo "UPDATE: PASS $*"; }
fail() { echo "UPDATE: FAIL $*"; }
info() { echo "UPDATE: INFO $*"; }
env_of() { grub-editenv /boot/grub/grubenv list | sed -n "s/^$1=//p"; }
grubenv_line() { grub-editenv /boot/grub/grubenv list | tr '\n' ' '; }
slot_version() {
    mount -o ro -t ext4 "$1" /mnt/slot 2>/dev/null || { echo "(no filesystem)"; return; }
    cat /mnt/slot/etc/snapstation-version 2>/dev/null || echo "(no version file)"
    umount /mnt/slot
}

dbus-daemon --config-file=/test/dbus.conf --fork --print-address=3 3>/run/bus-address
DBUS_SESSION_BUS_ADDRESS=$(cat /run/bus-address)
export DBUS_SESSION_BUS_ADDRESS DBUS_STARTER_BUS_TYPE=session
service=""
start_service() {  # CONF BOOTED_SLOT
    [ -n "$service" ] && { kill "$service"; wait "$service" 2>/dev/null; }
    rauc service --conf "$1" --mount /mnt/rauc --override-boot-slot="$2" > "/tmp/service-$2.log" 2>&1 &
    service=$!
    for _ in $(seq 50); do rauc status >/dev/null 2>&1 && return 0; sleep 0.1; done
    fail "rauc service did not start: $(tail -n 3 "/tmp/service-$2.log" | tr '\n' ' ')"
}

# try_install NAME BUNDLE: runs rauc install, prints its time, leaves its output in /tmp/install.log.
try_install() {
    started=$(cut -d' ' -f1 /proc/uptime)
    rauc install "$2" > /tmp/install.log 2>&1
    status=$?
    took=$(awk -v a="$started" -v b="$(cut -d' ' -f1 /proc/uptime)" 'BEGIN { printf "%.2f", b - a }')
    return $status
}

# refused NAME BUNDLE: the install must fail with RAUC's reason, and slot B and the boot choice stay.
refused() {
    before=$(sha256sum /dev/vdb | cut -c1-16)
    env_before=$(grubenv_line)
    a_before=$(sha256sum /dev/vda | cut -c1-16)
    if try_install "$1" "$2"; then
        fail "$1: rauc install accepted it: $(tail -n 2 /tmp/install.log | tr '\n' ' ')"
        return
    fi
    reason=$(grep -m 1 "^LastError:" /tmp/install.log | sed 's/^LastError: //')
    [ -n "$reason" ] || reason=$(grep -v '^ *[0-9]*%' /tmp/install.log | tail -n 1)
    after=$(sha256sum /dev/vdb | cut -c1-16)
    if [ "$before" = "$after" ] && [ "$env_before" = "$(grubenv_line)" ] && [ "$a_before" = "$(sha256sum /dev/vda | cut -c1-16)" ]; then
        pass "$1 refused in ${took}s, slot B untouched ($after), grubenv unchanged; RAUC: $reason"
    else
        fail "$1 refused (RAUC: $reason) but slot B $before -> $after, grubenv '$env_before' -> '$(grubenv_line)'"
    fi
}

# MARK: the x86 VM's configuration (GRUB)
start_service /test/x86.conf A
booted=$(rauc status --output-format=shell 2>/dev/null | sed -n "s/^RAUC_SYSTEM_BOOTED_BOOTNAME='\?\([^']*\)'\?$/\1/p")
[ "$booted" = A ] && pass "rauc service runs with the x86 system.conf, booted from A" || fail "booted slot '$booted'"

if try_install v1 /test/bundles/v1.raucb; then
    version=$(slot_version /dev/vdb)
    if [ "$(env_of ORDER)" = "B A" ] && [ "$(env_of B_OK)" = 1 ] && [ "$(env_of B_TRY)" = 0 ] && [ "$version" = 1.0.0 ]; then
        pass "v1 installed to slot B in ${took}s: slot B holds $version, grubenv $(grubenv_line)"
    else
        fail "v1 installed but slot B holds '$version', grubenv $(grubenv_line)"
    fi
else
    fail "v1 install: $(tail -n 3 /tmp/install.log | tr '\n' ' ')"
fi

refused "unsigned bundle" /test/bundles/unsigned.raucb
refused "bundle signed by another CA" /test/bundles/other-key.raucb
refused "bundle for another device (compatible snapstation-rpi)" /test/bundles/rpi.raucb
refused "tampered bundle (one byte of the squashfs's metadata flipped)" /test/bundles/tampered-metadata.raucb

# A flipped byte in the root filesystem's image: dm-verity finds it only when RAUC reads that block,
# which is while it writes slot B. RAUC marked B bad before writing, so no bootloader starts it.
before=$(sha256sum /dev/vdb | cut -c1-16)
if try_install "tampered data" /test/bundles/tampered-data.raucb; then
    fail "tampered bundle (a byte of the image flipped): rauc install accepted it"
else
    reason=$(grep -m 1 "^LastError:" /tmp/install.log | sed 's/^LastError: //')
    after=$(sha256sum /dev/vdb | cut -c1-16)
    if [ "$(env_of ORDER)" = "B A" ] && [ "$(env_of B_OK)" = 0 ] && [ "$(env_of A_OK)" = 1 ]; then
        if [ "$before" = "$after" ]; then what="untouched"; else what="partly overwritten ($before -> $after) and"; fi
        pass "tampered bundle (a byte of the image flipped) refused in ${took}s; slot B $what marked bad (B_OK=0), so GRUB boots A; RAUC: $reason"
    else
        fail "tampered bundle (image byte) refused (RAUC: $reason) but grubenv $(grubenv_line)"
    fi
fi

if try_install v2 /test/bundles/v2.raucb && [ "$(slot_version /dev/vdb)" = 2.0.0 ] && [ "$(env_of B_OK)" = 1 ]; then
    pass "v2 installed to slot B in ${took}s over the refused attempts: slot B holds 2.0.0, grubenv $(grubenv_line)"
else
    fail "v2 install: $(tail -n 3 /tmp/install.log | tr '\n' ' '); grubenv $(grubenv_line)"
fi

# GRUB starts B and spends its try; the booted system marks itself good.
grub-editenv /boot/grub/grubenv set B_TRY=1
start_service /test/x86.conf B
rauc status mark-good > /tmp/mark.log 2>&1
if [ "$(env_of B_OK)" = 1 ] && [ "$(env_of B_TRY)" = 0 ] && [ "$(env_of ORDER)" = "B A" ]; then
    pass "mark-good in slot B clears its try: grubenv $(grubenv_line)"
else
    fail "mark-good in B: $(cat /tmp/mark.log | tr '\n' ' '); grubenv $(grubenv_line)"
fi
a_hash=$(sha256sum /dev/vda | cut -c1-16)
[ "$a_hash" = "$(cat /test/slot-a.sha256 | cut -c1-16)" ] && pass "slot A (the running system) was never written: $a_hash" ||
    fail "slot A changed: $a_hash"

# MARK: the Pi's configuration (the tryboot backend) on the same disks
mkdir -p /bootfs /fake-dt /usr/lib/snapstation
cp /test/rpi-tryboot-backend.sh /usr/lib/snapstation/rpi-tryboot-backend.sh
cp /test/rpi-post-install.sh /usr/lib/snapstation/rpi-post-install.sh
printf '[all]\ntryboot_a_b=1\nboot_partition=2\n[tryboot]\nboot_partition=3\n' > /bootfs/autoboot.txt
cell() { printf "\\000\\000\\000\\$(printf '%03o' "$2")" > "/fake-dt/$1"; }
cell partition 2
cell tryboot 0
export RPI_DEVICE_TREE=/fake-dt RPI_BOOTCONFIG=/bootfs
start_service /test/rpi.conf A
if try_install "pi" /test/bundles/rpi.raucb; then
    if grep -q "boot_partition=3" /bootfs/autoboot.txt && [ "$(sed -n 3p /bootfs/autoboot.txt)" = boot_partition=2 ] &&
        [ "$(cat /run/systemd/reboot-param 2>/dev/null)" = "0 tryboot" ] && [ "$(slot_version /dev/vdb)" = 3.0.0-pi ]; then
        pass "Pi: rauc install wrote system_b in ${took}s and asked the backend for a tryboot of B: autoboot.txt $(tr '\n' ' ' < /bootfs/autoboot.txt), reboot-param '$(cat /run/systemd/reboot-param)', states $(tr '\n' ' ' < /bootfs/rauc-slots.txt)"
        # The post-install handler named the slot in boot_b's cmdline.txt; boot_a's is as it was.
        mkdir -p /mnt/boot-b /mnt/boot-a
        if mount -t vfat -o ro /dev/vde /mnt/boot-b && mount -t vfat -o ro /dev/vdd /mnt/boot-a &&
            grep -q " rauc.slot=B$" /mnt/boot-b/cmdline.txt && grep -q "root=/dev/disk/by-slot/active/system" /mnt/boot-b/cmdline.txt &&
            [ -s /mnt/boot-a/cmdline.txt ] && ! grep -q "rauc.slot" /mnt/boot-a/cmdline.txt; then
            pass "Pi: RAUC's post-install handler wrote rauc.slot=B into boot_b's cmdline.txt: '$(cat /mnt/boot-b/cmdline.txt)'"
        else
            fail "Pi: boot_b's cmdline.txt '$(cat /mnt/boot-b/cmdline.txt 2>&1)', boot_a's '$(cat /mnt/boot-a/cmdline.txt 2>&1)'"
        fi
        umount /mnt/boot-b /mnt/boot-a 2>/dev/null
    else
        fail "Pi install: autoboot.txt $(tr '\n' ' ' < /bootfs/autoboot.txt), reboot-param '$(cat /run/systemd/reboot-param 2>/dev/null)'; $(grep tryboot /tmp/service-A.log | tail -n 2)"
    fi
else
    fail "Pi install: $(tail -n 3 /tmp/install.log | tr '\n' ' '); the service: $(grep -a -i 'post-install\|handler' /tmp/service-A.log | tail -n 4 | tr '\n' ' ')"
fi
# The firmware tries B; the tried system marks itself good, which commits it.
rm -f /run/systemd/reboot-param
cell partition 3
cell tryboot 1
start_service /test/rpi.conf B
rauc status mark-good > /tmp/mark.log 2>&1
primary=$(/usr/lib/snapstation/rpi-tryboot-backend.sh get-primary)
if [ "$primary" = B ] && [ "$(sed -n 3p /bootfs/autoboot.txt)" = boot_partition=3 ]; then
    pass "Pi: rauc status mark-good in the tried B commits it: primary $primary, autoboot.txt $(tr '\n' ' ' < /bootfs/autoboot.txt)"
else
    fail "Pi mark-good: $(cat /tmp/mark.log | tr '\n' ' '); primary $primary; autoboot.txt $(tr '\n' ' ' < /bootfs/autoboot.txt)"
fi

kill "$service" 2>/dev/null
umount /boot/grub
sync
echo "UPDATE: DONE"
poweroff -f
