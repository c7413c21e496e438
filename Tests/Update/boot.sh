#!/usr/bin/env bash
# GRUB's slot choice, booted: image-recipes/ota/build-disk.sh's disk (GRUB for BIOS, grub.cfg, grubenv)
# with two tiny systems, one a slot (Debian's kernel and a busybox initrd that says which slot it is and
# stands in for RAUC on grubenv; Tests/Update/boot-guest.sh), started again and again in qemu. Each boot
# is given an action and must start the slot RAUC's scheme says:
#   1 fresh disk                                   -> A   install: B written and made primary
#   2 B's first boot never reaches mark-good       -> B   nothing (its try is spent)
#   3 the reset after it                           -> A   the rollback; A marks itself good
#   4 a plain reboot                               -> A   B is not tried again; install B once more
#   5 B's first boot, this time healthy            -> B   mark-good
#   6 a plain reboot                               -> B   committed; then a power cut before mark-good
#   7 the boot after that power cut                -> A   (RAUC's scheme: a missed mark-good falls back)
#   8 both slots' tries spent                      -> B   grub.cfg gives the tries back, ORDER's first
# qemu under TCG (this machine's KVM does not start Debian's kernel); about 15 s a boot.
#
#   Tests/Update/boot.sh          ends with "N passed, N failed"; exit 1 on a failure
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
cache="${SNAPSTATION_OTA_CACHE:-$repo/.build-ota}"
passed=0 failed=0
pass() { echo "PASS: $*"; passed=$((passed + 1)); }
fail() { echo "FAIL: $*"; failed=$((failed + 1)); }
step() { echo "== boot: $*"; }

missing=()
for tool in qemu-system-x86_64:qemu-system-x86 grub-mkimage:grub-common sfdisk:fdisk mke2fs:e2fsprogs; do
    command -v "${tool%%:*}" >/dev/null || missing+=("${tool#*:}")
done
[[ -f /usr/lib/grub/i386-pc/boot.img ]] || missing+=(grub-pc-bin)
[[ -x /bin/busybox ]] || missing+=(busybox-static)
command -v cpio >/dev/null || missing+=(cpio)
if ((${#missing[@]})); then
    step "installing ${missing[*]}"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
package=$(apt-cache depends linux-image-amd64 | awk '/Depends: linux-image-/ {print $2; exit}')
abi=${package#linux-image-}
kernel="$cache/kernel-$abi"
if [[ ! -f "$kernel/boot/vmlinuz-$abi" ]]; then
    step "downloading $package (once, into $cache)"
    mkdir -p "$cache"
    (cd "$cache" && apt-get download "$package" >/dev/null 2>&1)
    rm -rf "$kernel" && mkdir -p "$kernel" && dpkg-deb -x "$cache/${package}"_*.deb "$kernel" && rm -f "$cache/${package}"_*.deb
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
step "two slot systems: Debian's $abi kernel and a busybox initrd each"
initrd="$work/initrd"
mkdir -p "$initrd"/{bin,usr/bin,modules,etc,lib64}
cp /bin/busybox "$initrd/bin/busybox"
install -m 0755 "$here/boot-guest.sh" "$initrd/init"
cp -L "$(command -v grub-editenv)" "$initrd/usr/bin/grub-editenv"
ldd "$(command -v grub-editenv)" | awk '/=> \// {print $3}' | while read -r library; do
    mkdir -p "$initrd$(dirname "$library")" && cp -L "$library" "$initrd$library"
done
cp -L /lib64/ld-linux-x86-64.so.2 "$initrd/lib64/"
python3 "$repo/Tests/HIL/modules.py" --tree "$kernel/lib/modules/$abi" --extra "$work/none" --out "$initrd/modules" \
    virtio_pci virtio_blk ext4 crc32c_generic > "$initrd/modules/order"
for slot in A B; do
    mkdir -p "$work/root-$slot"
    [[ $slot == A ]] && version=1.0.0 || version=2.0.0
    echo "$version" > "$initrd/etc/slot-version"
    (cd "$initrd" && find . | cpio -o -H newc -R 0:0 --quiet | gzip -1) > "$work/root-$slot/initrd.img"
    cp "$kernel/boot/vmlinuz-$abi" "$work/root-$slot/vmlinuz"
done

step "the disk (image-recipes/ota/build-disk.sh)"
started=$(date +%s.%N)
"$repo/image-recipes/ota/build-disk.sh" "$work/disk.img" --rootfs "$work/root-A" --rootfs-b "$work/root-B" \
    --slot-size 32 --data-size 8 >/dev/null
echo "   $(du -h --apparent-size "$work/disk.img" | cut -f1) disk in $(awk -v a="$started" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s"
sfdisk --dump "$work/disk.img" | grep -E 'name=' | sed 's/^/   /'

boot=0
# boots ACTION EXPECTED_SLOT WHY
boots() {
    boot=$((boot + 1))
    printf '%s\n' "$1" | dd of="$work/action.img" bs=512 count=1 conv=sync status=none
    local log="$work/console-$boot.log" started
    started=$(date +%s)
    timeout 240 qemu-system-x86_64 -accel tcg -cpu max -m 512 -nographic -no-reboot \
        -drive "file=$work/disk.img,format=raw,if=none,id=disk" -device virtio-blk-pci,drive=disk,bootindex=0 \
        -drive "file=$work/action.img,format=raw,if=virtio" > "$log" 2>&1 || true
    local seen expected_version
    seen=$(tr -d '\r' < "$log" | grep -m 1 -a "BOOT: slot=" || true)
    [[ $2 == A ]] && expected_version=1.0.0 || expected_version=2.0.0
    if [[ $seen == *"slot=$2 version=$expected_version"* ]] && grep -q -a "BOOT: DONE" "$log"; then
        pass "boot $boot ($(( $(date +%s) - started )) s), $3: GRUB started slot $2 (${seen#*BOOT: }); then $1"
    else
        fail "boot $boot, $3: expected slot $2, saw '${seen:-nothing}'; the console's end: $(tr -d '\r' < "$log" | sed 's/\x1b\[[0-9;?]*[a-zA-Z]//g' | grep -a -v '^ *$' | tail -n 4 | tr '\n' '|')"
    fi
}
step "booting in qemu (TCG)"
boots install A "a fresh disk"
boots nothing B "B just installed and primary"
boots mark-good A "the reset after B's try that never reached mark-good"
boots install A "a plain reboot after the rollback"
boots mark-good B "B installed again"
boots nothing B "a plain reboot after B was marked good; then a power cut before mark-good"
boots nothing A "after that power cut (RAUC's scheme: any boot that misses mark-good falls back); A too misses it"
boots mark-good B "both slots tried: their tries given back, the first in ORDER again"

echo "$passed passed, $failed failed"
((failed == 0 && passed > 0))
