#!/usr/bin/env bash
# The system test of updates: the x86 A/B disk with the real station (image-recipes/debian's root made
# a slot by image-recipes/ota/build-rootfs.sh, the disk by build-disk.sh), booted from its own GRUB in
# qemu under TCG on the hardware-in-the-loop VM's virtual devices (vkms, gpio-sim, vimc), through
#   1 a v2 bundle installed on slot A: the station restarts into B at an idle moment, v2 runs from B
#     and is marked good after READY and confirm_seconds;
#   2 a bundle whose station never becomes ready: the guard reboots, GRUB is back on A by itself, B bad,
#     and the station says "did not start — running … again";
#   3 qemu killed in the middle of an install: A boots and the station runs;
#   4 an unsigned and a tampered bundle: refused, slot B untouched;
#   5 a group photo and its queued upload made before: there after the update and after the rollback;
#   6 a power cut as the updated slot starts again (qemu killed once GRUB spent B's try): A comes up,
#     the station goes back to B at an idle moment, and B is confirmed at once;
#   7 GRUB's last resort: with both slots' tries spent, ORDER's first is started again.
# Three qemu runs, seven boots: the first run ends in the kill (3); the second reboots by itself from the
# kill's aftermath through the broken slot and the rollback to v2, and ends in the cut (6); the third
# goes back to B (Tests/Update/system-guest.sh runs one step per boot). Prints each check PASS/FAIL, the bundle size, the install times, the downtime
# and the time of each part, and ends with "N passed, N failed"; exit 1 on a failure.
#
#   Tests/Update/system.sh [--deb PATH] [--keep]
#
# Test keys are made at test time in a temporary directory. The test adds to the image only what stands
# in for hardware, time and a short wait: the virtual drivers, the gpio-sim unit, a masked
# systemd-time-wait-sync, [update] confirm_seconds = 15 (when the binary has `snapstation update`), a
# 60 s grace for the guard, group.folder on a USB stick that is out (so the upload waits), sqlite3 to
# read the store, and a unit that notes when the station stopped (the downtime's start). Built in
# .build-hil/ (shared with Tests/System/run); --keep leaves the disk and the console logs there.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
ota="$repo/image-recipes/ota"
cache="${SNAPSTATION_HIL_CACHE:-$repo/.build-hil}"
deb="" keep=0
while (($#)); do
    case $1 in
        --deb) deb=$(readlink -f "$2"); shift 2 ;;
        --keep) keep=1; shift ;;
        *) echo "unknown argument $1" >&2; exit 2 ;;
    esac
done
passed=0 failed=0
pass() { echo "PASS: $*"; passed=$((passed + 1)); }
fail() { echo "FAIL: $*"; failed=$((failed + 1)); }
step() { echo "== update system: $*"; }
timings=()
clock=$SECONDS
timed() { timings+=("$(printf '%4ds  %s' $((SECONDS - clock)) "$1")"); clock=$SECONDS; }

missing=()
for tool in rauc:rauc mksquashfs:squashfs-tools openssl:openssl grub-mkimage:grub-common sfdisk:fdisk \
    mke2fs:e2fsprogs cpio:cpio objcopy:binutils perl:perl; do
    command -v "${tool%%:*}" >/dev/null || missing+=("${tool#*:}")
done
[[ -f /usr/lib/grub/i386-pc/boot.img ]] || missing+=(grub-pc-bin)
[[ -x /bin/busybox ]] || missing+=(busybox-static)
if ((${#missing[@]})); then
    step "installing ${missing[*]}"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
modules="" tree="" abi=""
eval "$("$repo/Tests/HIL/run" --prepare | grep -E "^(kernel|modules|tree|abi)=")"   # kernel, modules, tree, abi
if [[ -z $deb ]]; then
    step "building the .deb"
    deb=$("$repo/image-recipes/deb/build-deb.sh" "$cache/deb" | tail -n 1)
fi
timed "the kernel, modules and .deb"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
step "test keys in $work (never kept)"
"$ota/make-keys.sh" "$work/keys" --name "SnapStation test" >/dev/null
keys=(--cert "$work/keys/signing.cert.pem" --key "$work/keys/signing.key.pem" --keyring "$work/keys/keyring.pem")

# MARK: the slot's root filesystem
step "the Debian root (image-recipes/debian/build-image.sh), made a slot (image-recipes/ota/build-rootfs.sh)"
# In its own folder (Tests/System/run changes the root in $cache/debian), from the same debootstrap.
mkdir -p "$cache/ota"
if [[ -f $cache/debian/bookworm-minbase.tar && ! -f $cache/ota/bookworm-minbase.tar ]]; then
    ln "$cache/debian/bookworm-minbase.tar" "$cache/ota/bookworm-minbase.tar"
fi
root=$("$repo/image-recipes/debian/build-image.sh" "$deb" "$cache/ota" | tail -n 1)
"$ota/build-rootfs.sh" "$root" --kernel "$cache/image-$abi" --keyring "$work/keys/keyring.pem" --version 1.0.0 >/dev/null
timed "the slot's root filesystem"

step "adding the test's stand-ins for hardware and time"
"$repo/Tests/System/standins.sh" --devices-only "$root" "$tree" "$modules" "$abi"
# The photo's upload waits: the folder backend's USB stick is not plugged in.
config="$root/etc/snapstation/snapstation.toml"
sed -i 's|^backend = "folder"|backend = "folder"\nfolder = "/media/snapstation-stick"|' "$config"
# (Asked on this machine, which has the libraries it loads: in the chroot, without /proc, it hangs.)
if timeout 60 "$root/usr/bin/snapstation" --help 2>/dev/null | grep -q "^  update "; then
    printf '\n[update]\nconfirm_seconds = 15\n' >> "$config"
    echo "   the binary has 'snapstation update': confirm_seconds = 15"
else
    echo "   the binary has no 'snapstation update' yet: the scenarios run RAUC directly and the test stands in for the station's mark-good and restart"
fi
mkdir -p "$root/etc/systemd/system/snapstation-update-guard.service.d"
printf '[Service]\nEnvironment=SNAPSTATION_GUARD_GRACE=60\nStandardOutput=journal+console\n' \
    > "$root/etc/systemd/system/snapstation-update-guard.service.d/test.conf"
DEBIAN_FRONTEND=noninteractive chroot "$root" apt-get install -y -qq --no-install-recommends sqlite3 curl >/dev/null
chroot "$root" apt-get clean
install -D -m 0755 "$here/system-guest.sh" "$root/usr/local/lib/snapstation-update-test/guest.sh"
cat > "$root/etc/systemd/system/snapstation-updatetest.service" <<'UNIT'
[Unit]
Description=SnapStation update system test, one step per boot
After=snapstation-hil-devices.service rauc.service dbus.service
# Started before the station and stopped after it: a restart the station asks for ends this step only
# once the station has stopped.
Before=snapstation.service
RequiresMountsFor=/data /var/lib/snapstation
[Service]
Type=exec
ExecStart=/usr/local/lib/snapstation-update-test/guest.sh
[Install]
WantedBy=multi-user.target
UNIT
# Stops after the station (it started before it): the station's last frame, for the downtime.
cat > "$root/etc/systemd/system/snapstation-updatetest-stopped.service" <<'UNIT'
[Unit]
Description=Notes when the station stopped (the update test's downtime)
Before=snapstation.service
RequiresMountsFor=/data
[Service]
Type=oneshot
RemainAfterExit=yes
ExecStart=/bin/true
ExecStop=/bin/sh -c 'date +%%s.%%N > /data/updatetest/station-stopped; sync'
[Install]
WantedBy=multi-user.target
UNIT
chroot "$root" systemctl enable snapstation-hil-devices.service snapstation-updatetest.service \
    snapstation-updatetest-stopped.service >/dev/null 2>&1
used=$(du -s --block-size=1M "$root" | cut -f1)
slot_size=$(( (used + used / 4 + 64 + 63) / 64 * 64 ))
timed "the test's stand-ins"

# MARK: the disk and the bundles
step "the disk (image-recipes/ota/build-disk.sh): $used MiB root, ${slot_size} MiB slots"
"$ota/build-disk.sh" "$work/disk.img" --rootfs "$root" --slot-size "$slot_size" --data-size 128 >/dev/null
timed "the disk"
step "the bundles (image-recipes/ota/build-bundle.sh)"
bundles="$work/bundles"
mkdir -p "$bundles"
image_version() { sed -i "s/^IMAGE_VERSION=.*/IMAGE_VERSION=$1/" "$root/usr/lib/os-release"; }
image_version 2.0.0
started=$SECONDS
"$ota/build-bundle.sh" "$root" 2.0.0 "$bundles/v2.raucb" "${keys[@]}" --compression zstd >/dev/null
bundle_line="   BUNDLE: v2.raucb $(( $(stat -c %s "$bundles/v2.raucb") / 1048576 )) MiB ($(stat -c %s "$bundles/v2.raucb") bytes) of a $used MiB root, built in $((SECONDS - started)) s"
echo "$bundle_line"
# A station that never becomes ready: it is started and never says READY.
image_version 2.1.0-broken
mkdir -p "$root/etc/systemd/system/snapstation.service.d"
printf '[Service]\nExecStart=\nExecStart=/bin/sleep infinity\n' > "$root/etc/systemd/system/snapstation.service.d/broken.conf"
"$ota/build-bundle.sh" "$root" 2.1.0-broken "$bundles/broken.raucb" "${keys[@]}" --compression zstd >/dev/null
rm "$root/etc/systemd/system/snapstation.service.d/broken.conf"
image_version 1.0.0
# Unsigned: the squashfs alone; tampered: a byte of the squashfs's metadata table flipped (bundles.sh).
python3 - "$bundles" <<'PYTHON'
import struct, sys
folder = sys.argv[1]
bundle = open(f"{folder}/v2.raucb", "rb").read()
signature = struct.unpack(">Q", bundle[-8:])[0]
open(f"{folder}/unsigned.raucb", "wb").write(bundle[:len(bundle) - 8 - signature])
squashfs_bytes = struct.unpack("<Q", bundle[40:48])[0]
flipped = bytearray(bundle)
flipped[squashfs_bytes - 16] ^= 0x01
open(f"{folder}/tampered.raucb", "wb").write(flipped)
PYTHON
total=$(du -s --block-size=1M "$bundles" | cut -f1)
mke2fs -q -t ext4 -L bundles -d "$bundles" -E root_owner=0:0 "$work/bundles.img" "$((total + 64))M" >/dev/null
timed "the bundles"

# MARK: qemu
log="$work/console"
# vm NAME SECONDS: boots the disk under TCG (this machine's KVM stalls Debian's kernel) until the guest
# says DONE or KILL (then qemu is killed at once, as a power cut) or SECONDS pass. Each console line
# gets the host's time.
vm() {
    local name=$1 limit=$2 waited=0 done_at=0
    : > "$log-$name"
    qemu-system-x86_64 -accel tcg -cpu max -m 2048 -smp 2 -nographic \
        -drive "file=$work/disk.img,format=raw,if=none,id=disk" -device virtio-blk-pci,drive=disk,bootindex=0 \
        -drive "file=$work/bundles.img,format=raw,if=virtio,readonly=on" \
        > >(perl -MTime::HiRes=time -ne 'BEGIN { $| = 1 } s/\r//g; printf "%.2f %s", time, $_' > "$log-$name") 2>&1 &
    local qemu=$!
    while kill -0 "$qemu" 2>/dev/null; do
        if grep -q -a "UPDATE: KILL" "$log-$name"; then
            kill -KILL "$qemu"
            break
        fi
        # CUT: killed as soon as GRUB has chosen a slot (and spent its try) at the next boot.
        # (awk, not a pipe: under pipefail a grep -q that ends first can fail the sed before it)
        local cut_at
        cut_at=$(awk '/UPDATE: CUT/ { cut = 1 } cut && /SnapStation: booting slot/ {
            sub(/.*booting slot /, ""); print substr($0, 1, 1); exit }' "$log-$name")
        if [[ -n $cut_at ]]; then
            kill -KILL "$qemu"
            echo "   qemu killed as GRUB started slot $cut_at (its try spent)"
            break
        fi
        # DONE: the guest powers off; qemu ends by itself, or is stopped here after 30 s.
        if ((done_at == 0)) && grep -q -a "UPDATE: DONE" "$log-$name"; then done_at=$waited; fi
        if (( (done_at > 0 && waited - done_at >= 30) || waited >= limit )); then
            ((done_at > 0)) || echo "   the VM did not finish within $limit s"
            kill -KILL "$qemu"
            break
        fi
        sleep 1
        waited=$((waited + 1))
    done
    wait "$qemu" 2>/dev/null || true
    sleep 1
}
report() {
    local line
    while IFS= read -r line; do
        case $line in
            *"UPDATE: PASS "*) pass "${line#*UPDATE: PASS }" ;;
            *"UPDATE: FAIL "*) fail "${line#*UPDATE: FAIL }" ;;
            *"UPDATE: INFO "*) echo "   ${line#*UPDATE: INFO }" ;;
            *"UPDATE: KILL"*) echo "   qemu killed: ${line#*UPDATE: }" ;;
            *"update-guard: "*) echo "   guard: ${line#*update-guard: }" ;;
        esac
    done < <(grep -a -E "UPDATE: (PASS|FAIL|INFO|KILL)|update-guard: " "$log-$1" | sed 's/^[0-9.]* //')
}

step "run 1 under TCG: boot 1 on a fresh disk, ending in a power cut during an install"
vm first 900
report first
grep -q -a "UPDATE: KILL" "$log-first" || fail "run 1 did not reach the install to kill: $(tail -n 5 "$log-first" | tr '\n' '|')"
timed "run 1: boot 1 (scenarios 4, 5 and the kill of 3)"
step "run 2 under TCG: after the power cut, the broken slot and the rollback, v2"
vm second 1500
report second
timed "run 2: boots 2-5 (scenarios 3, 2, 1, 5)"
: > "$log-third"
if grep -q -a "UPDATE: CUT" "$log-second"; then
    step "run 3 under TCG: after a power cut as slot B started, the way back to it"
    vm third 900
    report third
    grep -q -a "UPDATE: DONE" "$log-third" || fail "run 3 did not finish: $(tail -n 8 "$log-third" | tr '\n' '|')"
    # [7] after DONE: both slots' tries spent; GRUB gives them back and starts ORDER's first, B.
    last_resort=$(awk '/UPDATE: CUT at the next boot.s GRUB: \[7\]/ { cut = 1 }
        cut && /every slot has been tried/ { said = 1 }
        said && /SnapStation: booting slot/ { sub(/.*booting slot /, ""); print substr($0, 1, 1); exit }' "$log-third")
    if [[ $last_resort == B ]]; then
        pass "[7] GRUB's last resort on the A/B disk: with both slots' tries spent it gave them back and started ORDER's first, slot B"
    else
        fail "[7] GRUB with both tries spent: started '${last_resort:-nothing}'; $(grep -a -o 'SnapStation: [^[]*' "$log-third" | tail -n 3 | tr '\n' '|')"
    fi
    timed "run 3: boots 6-7 and GRUB's last resort (scenarios 6, 7)"
else
    grep -q -a "UPDATE: DONE" "$log-second" || fail "run 2 did not finish: $(tail -n 8 "$log-second" | tr '\n' '|')"
fi
# GRUB's line, once per boot (its menu draws it twice on one console line).
slots=$(grep -a -h "SnapStation: booting slot" "$log-first" "$log-second" "$log-third" | sed 's/.*booting slot \([AB]\).*/\1/')
echo "   $(wc -l <<<"$slots") boots, GRUB started: $(paste -sd ' ' <<<"$slots")"
# The restart into v2, in parts (the downtime's): the console's host times from the install's end to the
# kernel's "reboot:", GRUB's choice and the test's start in B, and any stop job systemd waited for.
awk '
    /waiting for the station to restart into slot/ { t0 = $1; t1 = t2 = t3 = ""; jobs = "" }
    t0 != "" && t1 == "" && /stop job is running for/ {
        sub(/.*stop job is running for /, ""); sub(/ *\(.*$/, "")
        if (index(jobs, "[" $0 "]") == 0) jobs = jobs " [" $0 "]"
    }
    t0 != "" && t1 == "" && /reboot: / { t1 = $1 }
    t1 != "" && t2 == "" && /SnapStation: booting slot/ { t2 = $1 }
    t2 != "" && t3 == "" && /UPDATE: INFO boot: / { t3 = $1 }
    END {
        if (t3 != "") printf "   the last restart: %.1f s to the reboot (the idle moment, the shutdown)%s, %.1f s to GRUB'"'"'s choice, %.1f s to the system up in the new slot\n", t1 - t0, (jobs == "" ? "" : ", waiting for" jobs), t2 - t1, t3 - t2
    }' "$log-second" | tr -d '\033' || true
if ((keep)); then
    cp "$log-first" "$log-second" "$log-third" "$work/disk.img" "$cache/ota/"
    echo "   kept: $cache/ota/console-first, console-second, console-third, disk.img"
fi

echo "== figures"
echo "   ${bundle_line# *BUNDLE: }"
grep -a -h -o -E "installed into slot B in [0-9.]+ s|refused in [0-9.]+ s|downtime [0-9.]+ s|READY [0-9.]+ s after the install ended" \
    "$log-first" "$log-second" "$log-third" | sed 's/^/   /' || true
echo "== time taken"
printf '%s\n' "${timings[@]}"
echo "$passed passed, $failed failed"
((failed == 0 && passed > 0))
