#!/usr/bin/env bash
# Signed update bundles, end to end: test keys made now in a temporary directory (never kept), a tiny
# root filesystem, v1 and v2 bundles from image-recipes/ota/build-bundle.sh, and then
#   on this machine: `rauc info` with the device's system.conf accepts the good bundles and refuses an
#     unsigned one and one signed by another CA; `rauc extract` (which checks the payload against the
#     signed verity root hash) refuses a tampered one, which `rauc info` cannot see;
#   in a VM: `rauc install`, as the station's update will run it, into two disks standing for slots A
#     and B: the good bundles are installed to B and GRUB's environment switched to it; the refused
#     ones leave slot B and the environment as they were; then the same through the Pi's system.conf
#     and the tryboot backend.
# The VM part needs qemu and the kernel image of Debian's linux-image-amd64 (downloaded with apt into
# .build-ota/ once): RAUC mounts a verity bundle through device-mapper, which this machine's kernel
# lacks, and `rauc install` asks the RAUC service over D-Bus, so it runs where both are (a busybox
# initramfs on Debian's kernel, KVM or else TCG). --no-vm leaves it out, saying so.
#
#   Tests/Update/bundles.sh [--no-vm]          ends with "N passed, N failed"; exit 1 on a failure
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
ota="$repo/image-recipes/ota"
cache="${SNAPSTATION_OTA_CACHE:-$repo/.build-ota}"
vm=1
[[ ${1:-} == --no-vm ]] && vm=0
passed=0 failed=0 skipped=0
pass() { echo "PASS: $*"; passed=$((passed + 1)); }
fail() { echo "FAIL: $*"; failed=$((failed + 1)); }
skip() { echo "SKIP: $*"; skipped=$((skipped + 1)); }
step() { echo "== update: $*"; }
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }'; }
# kvm_worth_trying and kvm_stalls: KVM is not tried again where an earlier VM of the run found it stalls.
source "$repo/Tests/HIL/vm.sh"

missing=()
for tool in rauc:rauc mke2fs:e2fsprogs mksquashfs:squashfs-tools openssl:openssl grub-editenv:grub-common \
    mkfs.vfat:dosfstools mcopy:mtools; do
    command -v "${tool%%:*}" >/dev/null || missing+=("${tool#*:}")
done
if ((${#missing[@]})); then
    step "installing ${missing[*]}"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
step "test keys in $work (a CA and a codeSigning key; another CA for the bundle that must be refused)"
"$ota/make-keys.sh" "$work/keys" --name "SnapStation test" >/dev/null
"$ota/make-keys.sh" "$work/other-keys" --name "Someone else" >/dev/null
keys=(--cert "$work/keys/signing.cert.pem" --key "$work/keys/signing.key.pem")

# The device's own system.conf with the test's keyring.
sed "s|^path=.*|path=$work/keys/keyring.pem|" "$ota/system.conf" > "$work/device.conf"

step "a tiny root filesystem"
make_root() {  # DIR VERSION
    mkdir -p "$1"/{etc,usr/bin,var/lib/snapstation}
    echo "$2" > "$1/etc/snapstation-version"
    echo snapstation > "$1/etc/hostname"
    # Stands for the binary: incompressible, so the squashfs is more than its 4 KiB minimum.
    head -c 262144 /dev/urandom > "$1/usr/bin/snapstation"
    chmod 0755 "$1/usr/bin/snapstation"
}
make_root "$work/root-v1" 1.0.0
make_root "$work/root-v2" 2.0.0
make_root "$work/root-pi" 3.0.0-pi

step "bundles"
bundles="$work/bundles"
mkdir -p "$bundles"
for version in v1 v2; do
    started=$(now)
    "$ota/build-bundle.sh" "$work/root-$version" "$(cat "$work/root-$version/etc/snapstation-version")" \
        "$bundles/$version.raucb" "${keys[@]}" --keyring "$work/keys/keyring.pem" --size 24 >/dev/null
    echo "   $version.raucb: $(stat -c %s "$bundles/$version.raucb") bytes (a 24 MiB ext4 image of $(du -sh "$work/root-$version" | cut -f1)), built and checked in $(since "$started") s"
done
"$ota/build-bundle.sh" "$work/root-v1" 1.0.0 "$bundles/other-key.raucb" --size 24 \
    --cert "$work/other-keys/signing.cert.pem" --key "$work/other-keys/signing.key.pem" >/dev/null
"$ota/build-bundle.sh" "$work/root-pi" 3.0.0-pi "$bundles/rpi.raucb" --size 24 "${keys[@]}" \
    --compatible snapstation-rpi >/dev/null
# A bundle is the squashfs, the CMS signature and the signature's size (8 bytes, big-endian): the
# unsigned one is the squashfs alone; the tampered ones have one byte flipped, in the squashfs's
# metadata table (at its end) or in the middle of the root filesystem's image.
python3 - "$bundles" <<'PYTHON'
import struct, sys
folder = sys.argv[1]
bundle = open(f"{folder}/v2.raucb", "rb").read()
signature = struct.unpack(">Q", bundle[-8:])[0]
payload = len(bundle) - 8 - signature
open(f"{folder}/unsigned.raucb", "wb").write(bundle[:payload])
squashfs_bytes = struct.unpack("<Q", bundle[40:48])[0]          # bytes_used, in the superblock
for name, offset in (("tampered-metadata", squashfs_bytes - 16), ("tampered-data", squashfs_bytes // 2)):
    flipped = bytearray(bundle)
    flipped[offset] ^= 0x01
    open(f"{folder}/{name}.raucb", "wb").write(flipped)
PYTHON

# MARK: rauc info / extract here
step "checking signatures with rauc info --conf image-recipes/ota/system.conf (the test's keyring)"
info() { rauc info --conf "$work/device.conf" "$1" 2>&1; }
reason() { grep -v -E '^rauc-Message|^\s*$' <<<"$1" | tail -n 1; }
for version in v1 v2; do
    if out=$(info "$bundles/$version.raucb"); then
        if grep -q "Compatible:.*'snapstation-x86-vm'" <<<"$out" && grep -q "Bundle Format:.*verity" <<<"$out"; then
            pass "$version.raucb verifies: $(grep -m1 'Version:' <<<"$out" | tr -s ' \t' ' ' | sed 's/^ //'), $(grep -m1 'Bundle Format:' <<<"$out" | tr -s ' \t' ' ' | sed 's/^ //'), signed by $(grep -m1 'Subject:' <<<"$out" | sed 's/.*Subject: //')"
        else
            fail "$version.raucb verifies but reads: $(head -n 12 <<<"$out" | tr '\n' '|')"
        fi
    else
        fail "$version.raucb does not verify: $(reason "$out")"
    fi
done
for name in unsigned other-key; do
    if out=$(info "$bundles/$name.raucb"); then
        fail "$name.raucb was accepted by rauc info"
    else
        pass "$name.raucb refused by rauc info: $(reason "$out")"
    fi
done
if out=$(rauc extract --conf "$work/device.conf" "$bundles/v2.raucb" "$work/extract-good" 2>&1) &&
    [[ $(cat "$work/extract-good/manifest.raucm" 2>/dev/null) == *"version=2.0.0"* ]]; then
    pass "v2.raucb's payload matches its signed verity root hash (rauc extract)"
else
    fail "rauc extract of v2.raucb: $(reason "$out")"
fi
for name in tampered-metadata tampered-data; do
    info_out=$(info "$bundles/$name.raucb") && note="rauc info accepts it (the signature covers the manifest and its verity root hash, not each block)" ||
        note="rauc info refuses it too: $(reason "$info_out")"
    if out=$(rauc extract --conf "$work/device.conf" "$bundles/$name.raucb" "$work/extract-$name" 2>&1); then
        fail "$name.raucb was extracted without complaint; $note"
    else
        pass "$name.raucb refused by rauc extract: $(reason "$out"); $note"
    fi
done

# MARK: rauc install in a VM
run_vm() {
    if ! command -v qemu-system-x86_64 >/dev/null; then
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends qemu-system-x86 >/dev/null 2>&1 ||
            { skip "rauc install in a VM: qemu-system-x86 is not installable here"; return; }
    fi
    command -v busybox >/dev/null || [[ -x /bin/busybox ]] ||
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends busybox-static cpio binutils >/dev/null
    local package abi kernel tree
    package=$(apt-cache depends linux-image-amd64 2>/dev/null | awk '/Depends: linux-image-/ {print $2; exit}')
    abi=${package#linux-image-}
    kernel="$cache/kernel-$abi"
    if [[ -z $abi ]]; then skip "rauc install in a VM: apt knows no linux-image-amd64 (run apt-get update)"; return; fi
    if [[ ! -f "$kernel/boot/vmlinuz-$abi" ]]; then
        step "downloading $package (once, into $cache)"
        mkdir -p "$cache"
        (cd "$cache" && apt-get download "$package" >/dev/null 2>&1) ||
            { skip "rauc install in a VM: could not download $package"; return; }
        rm -rf "$kernel" && mkdir -p "$kernel" && dpkg-deb -x "$cache/${package}"_*.deb "$kernel" && rm -f "$cache/${package}"_*.deb
    fi
    tree="$kernel/lib/modules/$abi"

    step "the VM: RAUC, D-Bus and busybox on Debian's $abi kernel"
    local root="$work/vm-root"
    mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,etc/rauc,modules,test,lib64}
    cp /bin/busybox "$root/bin/busybox"
    install -m 0755 "$here/guest.sh" "$root/init"
    local tool elf
    for tool in rauc dbus-daemon grub-editenv resize2fs e2fsck mkfs.ext4 mke2fs; do
        elf=$(command -v "$tool")
        cp -L "$elf" "$root/usr/bin/$tool"
        ldd "$elf" | awk '/=> \// {print $3}'
    done | sort -u | while read -r library; do
        mkdir -p "$root$(dirname "$library")" && cp -L "$library" "$root$library"
    done
    cp -L /lib64/ld-linux-x86-64.so.2 "$root/lib64/"
    python3 "$repo/Tests/HIL/modules.py" --tree "$tree" --extra "$work/no-extra-modules" --out "$root/modules" \
        virtio_pci virtio_blk loop dm_mod dm_verity squashfs ext4 crc32c_generic vfat nls_cp437 nls_ascii \
        > "$root/modules/order"
    cp "$bundles"/{v1,v2,unsigned,other-key,rpi,tampered-metadata,tampered-data}.raucb "$root/test/" 2>/dev/null
    mkdir -p "$root/test/bundles" && mv "$root"/test/*.raucb "$root/test/bundles/"
    cp "$work/keys/keyring.pem" "$root/etc/rauc/keyring.pem"
    cp "$ota/rpi-tryboot-backend.sh" "$ota/rpi-post-install.sh" "$root/test/"
    sed -e "s|/dev/disk/by-partlabel/rootfs-a|/dev/vda|; s|/dev/disk/by-partlabel/rootfs-b|/dev/vdb|" \
        "$ota/system.conf" > "$root/test/x86.conf"
    sed -e "s|/dev/disk/by-partlabel/system_a|/dev/vda|; s|/dev/disk/by-partlabel/system_b|/dev/vdb|" \
        -e "s|/dev/disk/by-partlabel/boot_a|/dev/vdd|; s|/dev/disk/by-partlabel/boot_b|/dev/vde|" \
        -e "s|^data-directory=.*|data-directory=/data/rauc-pi|" "$ota/system-rpi.conf" > "$root/test/rpi.conf"
    cat > "$root/test/dbus.conf" <<'DBUS'
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:path=/run/test-bus</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
DBUS
    echo "0123456789abcdef0123456789abcdef" > "$root/etc/machine-id"
    echo "root:x:0:0:root:/root:/bin/sh" > "$root/etc/passwd"
    echo "root:x:0:" > "$root/etc/group"

    # The slots: A holds the running system (v0), B an older one; the boot partition has grubenv.
    local disks="$work/disks"
    mkdir -p "$disks/boot"
    make_root "$work/root-v0" 0.9.0
    mke2fs -q -t ext4 -d "$work/root-v0" "$disks/slot-a.img" 48M >/dev/null
    make_root "$work/root-old" 0.8.0
    mke2fs -q -t ext4 -d "$work/root-old" "$disks/slot-b.img" 48M >/dev/null
    grub-editenv "$disks/boot/grubenv" create
    grub-editenv "$disks/boot/grubenv" set ORDER="A B" A_OK=1 A_TRY=0 B_OK=1 B_TRY=0
    mke2fs -q -t ext2 -d "$disks/boot" "$disks/boot.img" 4M >/dev/null
    # The Pi's boot partitions: FAT, each with rpi-image-gen's cmdline.txt (its root= and no rauc.slot=
    # yet), which the post-install handler writes into once RAUC installed into the slot.
    local part
    for part in a b; do
        rm -f "$disks/boot-$part.img"
        mkfs.vfat -C -n "BOOT_${part^^}" "$disks/boot-$part.img" 8192 >/dev/null
        printf 'console=serial0,115200 root=/dev/disk/by-slot/active/system rootwait quiet\n' > "$work/cmdline.txt"
        mcopy -i "$disks/boot-$part.img" "$work/cmdline.txt" ::cmdline.txt
    done
    sha256sum "$disks/slot-a.img" | cut -d' ' -f1 > "$root/test/slot-a.sha256"
    (cd "$root" && find . | cpio -o -H newc -R 0:0 --quiet | gzip -1) > "$work/initramfs.gz"
    local slot_a_before
    slot_a_before=$(cat "$root/test/slot-a.sha256")

    local log="$work/console.log" accel started
    # Boots the VM in the background; gives up after $3 seconds without the guest's first line (a
    # stalled accelerator: some hosts' KVM stalls a stock guest) or $4 seconds in all.
    boot_vm() {
        qemu-system-x86_64 -accel "$1" -cpu "$2" -m 1024 -smp 2 -nographic -no-reboot \
            -kernel "$kernel/boot/vmlinuz-$abi" -initrd "$work/initramfs.gz" \
            -append "console=ttyS0 panic=-1 quiet loglevel=3" \
            -drive "file=$disks/slot-a.img,format=raw,if=virtio" -drive "file=$disks/slot-b.img,format=raw,if=virtio" \
            -drive "file=$disks/boot.img,format=raw,if=virtio" -drive "file=$disks/boot-a.img,format=raw,if=virtio" \
            -drive "file=$disks/boot-b.img,format=raw,if=virtio" > "$log" 2>&1 &
        local qemu=$! waited=0
        while kill -0 "$qemu" 2>/dev/null; do
            if grep -q "UPDATE: DONE" "$log" || { ! grep -q "UPDATE: BOOTED" "$log" && ((waited >= $3)); } ||
                ((waited >= $4)); then
                sleep 1
                kill "$qemu" 2>/dev/null
                break
            fi
            sleep 1
            waited=$((waited + 1))
        done
        wait "$qemu" 2>/dev/null || true
        grep -q "UPDATE: BOOTED" "$log"
    }
    started=$(now)
    accel=tcg
    if kvm_worth_trying; then
        if boot_vm kvm host 20 240; then accel=kvm; else
            echo "   KVM did not start the guest within 20 s; TCG (-accel tcg -cpu max)"
            kvm_stalls "the update bundles' VM"
            started=$(now)
        fi
    fi
    [[ $accel == kvm ]] || boot_vm tcg max 120 600 || true
    echo "   $(since "$started") s in the VM ($accel)"
    local line
    while IFS= read -r line; do
        case $line in
            *"UPDATE: PASS "*) pass "VM: ${line#*UPDATE: PASS }" ;;
            *"UPDATE: FAIL "*) fail "VM: ${line#*UPDATE: FAIL }" ;;
            *"UPDATE: INFO "*) echo "   ${line#*UPDATE: INFO }" ;;
        esac
    done < <(tr -d '\r' < "$log")
    if ! grep -q "UPDATE: DONE" "$log"; then
        fail "VM: did not finish ($accel); the console's end: $(tr -d '\r' < "$log" | tail -n 15 | tr '\n' '|')"
    fi
    # From outside: the running slot's disk was never written; the boot partition names B.
    if [[ $(sha256sum "$disks/slot-a.img" | cut -d' ' -f1) == "$slot_a_before" ]]; then
        pass "slot A's image file is byte for byte what it was before the VM"
    else
        fail "slot A's image file changed"
    fi
    local env
    env=$(debugfs -R "cat /grubenv" "$disks/boot.img" 2>/dev/null | grep -E '^(ORDER|[AB]_(OK|TRY))=' | tr '\n' ' ')
    if [[ $env == *'ORDER=B A'* && $env == *'B_OK=1'* && $env == *'B_TRY=0'* ]]; then
        pass "the boot partition's grubenv, read from the host: $env"
    else
        fail "the boot partition's grubenv, read from the host: $env"
    fi
}
if ((vm)); then run_vm; else skip "rauc install in a VM: --no-vm"; fi

echo "$passed passed, $failed failed$( ((skipped)) && echo ", $skipped skipped")"
((failed == 0 && passed > 0))
