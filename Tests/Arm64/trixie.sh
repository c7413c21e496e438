# Sourced by Tests/Arm64/install.sh and Tests/Arm64/vm: a Debian trixie arm64 system on this x86_64
# machine, its programs run through qemu-user.
#
#   arm64_emulation             arm64 programs run through qemu-user from now on (binfmt_misc)
#   trixie_root DIR             DIR holds a fresh trixie arm64 system (apt variant, from the cached base)
#   in_root DIR COMMAND...      COMMAND run inside DIR with /proc mounted, unmounted after
#
# Needs root (chroot, binfmt_misc). The base is cached in $cache/trixie-base.tar (about 2 minutes to
# make); set `cache` and `mirror` before calling.

# The kernel hands arm64 programs to qemu-user (binfmt_misc, flag F: the emulator is opened now, so it
# works inside a chroot too).
arm64_emulation() {
    [[ -e /proc/sys/fs/binfmt_misc/register ]] || mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc
    if [[ ! -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ]]; then
        command -v qemu-aarch64-static >/dev/null ||
            DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends qemu-user-static >/dev/null
        cat /usr/lib/binfmt.d/qemu-aarch64.conf > /proc/sys/fs/binfmt_misc/register
    fi
}

trixie_root() {
    local base="$cache/trixie-base.tar"
    if [[ ! -e "$base" ]]; then
        echo "   a Debian trixie arm64 system (mmdebstrap, apt variant, under qemu-user)"
        command -v mmdebstrap >/dev/null ||
            DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends mmdebstrap >/dev/null
        rm -rf "$base.part"
        mmdebstrap --quiet --variant=apt --architectures=arm64 --format=tar --include=ca-certificates trixie \
            "$base.part" "$mirror"
        mv "$base.part" "$base"
    fi
    rm -rf "$1" && mkdir -p "$1"
    tar -xf "$base" -C "$1"
    cp /etc/resolv.conf "$1/etc/resolv.conf"
}

in_root() {
    local root=$1
    shift
    mount -t proc proc "$root/proc"
    local status=0
    chroot "$root" "$@" || status=$?
    umount "$root/proc"
    return $status
}
