#!/usr/bin/env bash
# What the system test adds to an appliance's root filesystem: only what stands in for hardware and time.
# The virtual drivers (with the modules they need, from the kernel's tree) in lib/modules/ABI/extra and
# loaded at boot, a unit that sets up gpio-sim, WatchdogSec= (8 s, or SNAPSTATION_TEST_WATCHDOG), the
# test-hang switch, the test itself as a unit, a masked systemd-time-wait-sync (the VM has no network to
# sync from), and /init as systemd for a root booted as the initramfs. Tests/System/run uses it for the
# x86 image, Tests/Arm64/vm for the arm64 one (its chroot commands run through qemu-user there).
#
#   Tests/System/standins.sh [--devices-only] ROOT KERNEL_TREE EXTRA_MODULES ABI
#
# --devices-only stops after the virtual devices and the masked time sync (Tests/Update/system.sh's slots,
# which bring their own test unit and init).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
devices_only=0
[[ $1 == --devices-only ]] && { devices_only=1; shift; }
root=$1
tree=$2
modules=$3
abi=$4
extra="$root/lib/modules/$abi/extra"
mkdir -p "$extra"
python3 "$repo/Tests/HIL/modules.py" --tree "$tree" --extra "$modules" --out "$extra" \
    configfs drm_kms_helper vkms gpio-sim vimc >/dev/null
cp "$tree/modules.builtin" "$tree/modules.builtin.modinfo" "$tree/modules.order" "$root/lib/modules/$abi/" 2>/dev/null || true
chroot "$root" depmod "$abi"
printf '%s\n' configfs vkms gpio-sim vimc > "$root/etc/modules-load.d/snapstation-hil.conf"
cat > "$root/etc/modprobe.d/snapstation-hil.conf" <<'CONF'
options drm_kms_helper fbdev_emulation=0
options vkms enable_writeback=0 enable_cursor=0
CONF
install -D -m 0755 /dev/stdin "$root/usr/local/lib/snapstation-hil/devices.sh" <<'SCRIPT'
#!/bin/sh
# gpio-sim as a Pi header: one bank, lines 17, 22, 27 named GPIO17, GPIO22, GPIO27.
sim=/sys/kernel/config/gpio-sim/snap
mkdir -p $sim/bank0
echo 32 > $sim/bank0/num_lines
echo snapstation-sim > $sim/bank0/label
for line in 17 22 27; do mkdir -p $sim/bank0/line$line; echo GPIO$line > $sim/bank0/line$line/name; done
echo 1 > $sim/live
SCRIPT
cat > "$root/etc/systemd/system/snapstation-hil-devices.service" <<'UNIT'
[Unit]
Description=Virtual hardware for the system test (gpio-sim lines)
After=systemd-modules-load.service sys-kernel-config.mount
Before=snapstation.service
[Service]
Type=oneshot
RemainAfterExit=yes
ExecStart=/usr/local/lib/snapstation-hil/devices.sh
[Install]
WantedBy=multi-user.target
UNIT
ln -sf /dev/null "$root/etc/systemd/system/systemd-time-wait-sync.service"
((devices_only)) && exit 0

mkdir -p "$root/etc/systemd/system/snapstation.service.d"
cat > "$root/etc/systemd/system/snapstation.service.d/system-test.conf" <<UNIT
[Service]
WatchdogSec=${SNAPSTATION_TEST_WATCHDOG:-8s}
Environment=SNAPSTATION_TEST_HANG=1
UNIT
install -D -m 0755 "$here/systemtest.sh" "$root/usr/local/lib/snapstation-hil/systemtest.sh"
cat > "$root/etc/systemd/system/snapstation-systemtest.service" <<'UNIT'
[Unit]
Description=SnapStation system test
After=snapstation-hil-devices.service
[Service]
Type=oneshot
ExecStart=/usr/local/lib/snapstation-hil/systemtest.sh
StandardOutput=journal+console
[Install]
WantedBy=multi-user.target
UNIT
chroot "$root" systemctl enable snapstation-hil-devices.service snapstation-systemtest.service >/dev/null 2>&1
ln -sf /lib/systemd/systemd "$root/init"

