#!/usr/bin/env bash
# Builds the station for the Raspberry Pi (arm64, Debian trixie or Raspberry Pi OS trixie) on this x86_64
# machine, from Debian's packages alone, and packs it as snapstation_VERSION_arm64.deb.
#
#   image-recipes/arm64/build-arm64.sh [--tests] [OUT_DIR]     -> OUT_DIR/snapstation_VERSION_arm64.deb
#
# The pieces, each cached in .build-arm64/ (SNAPSTATION_ARM64_CACHE) and made again only when gone, or, with
# SNAPSTATION_CACHE, kept there under their keys and linked in (Tests/Support/cache.sh):
# - the compiler: Debian sid's swiftlang (6.2.3 on 2026-11-27; trixie's 6.0.3 is older than the package
#   graph's tools versions), which needs sid's glibc, so it runs in a sid amd64 chroot (debootstrap);
# - the target: a trixie arm64 sysroot holding the `-dev` packages .ci/install-deps names (mmdebstrap,
#   extracted, not installed: nothing arm64 runs), with a dpkg database written from the packages so that
#   dpkg-shlibdeps can name the packages the binary needs; and sid's arm64 Swift runtime and modules
#   (swiftlang:arm64, libswiftlang:arm64) in its usr/lib/swift and swift_static, where the driver looks;
# - a Swift SDK bundle (schema 4.0) naming that sysroot, linking with swiftlang's own lld (ld.lld, next to
#   its clang: the sid chroot's binutils link only amd64).
# Then `swift build -c release --static-swift-stdlib` for aarch64 in the chroot (the repository and the
# Swift package mirror bound in, in a mount namespace of its own, so nothing stays mounted), and
# image-recipes/deb/build-deb.sh packs the binary with its Depends from dpkg-shlibdeps against the sysroot.
#
# --tests also builds the test targets for arm64 (debug) with the same compiler: what CI checks so that a
# construct the host's Swift takes and Debian's 6.2 does not is caught the day it lands.
# A warning in the project's own sources or tests fails the build (the dependencies' are left alone): each
# warning of what this build compiled, so all of them on a clean build, as CI's is.
# Needs root (chroot, mount namespace); installs debootstrap, mmdebstrap and dpkg-dev when missing.
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
source "$repo/Tests/Support/cache.sh"
tests=0
if [[ ${1:-} == --tests ]]; then tests=1; shift; fi
cache="${SNAPSTATION_ARM64_CACHE:-$repo/.build-arm64}"
out="${1:-$cache/out}"
mirror="${SNAPSTATION_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
mkdir -p "$cache" "$out"
# Absolute and without links: the sysroot's dpkg database records where its files lie.
cache="$(cd "$cache" && pwd -P)"
out="$(cd "$out" && pwd -P)"
sid="$cache/sid"
sysroot="$cache/sysroot"
sdks="$cache/sdks"
sdk=snapstation-trixie-arm64

started=$SECONDS
step() { echo "== arm64 ($((SECONDS - started)) s): $*" >&2; }

missing=()
for tool in debootstrap mmdebstrap dpkg-shlibdeps; do command -v "$tool" >/dev/null || missing+=("$tool"); done
if ((${#missing[@]})); then
    step "installing debootstrap, mmdebstrap, dpkg-dev"
    apt-get install -y -qq --no-install-recommends debootstrap mmdebstrap dpkg-dev >/dev/null
fi

# The arm64 libraries the station links: the `-dev` packages of .ci/install-deps (one list for both
# architectures), with the C and C++ runtimes' development files (trixie's GCC is 14).
mapfile -t devs < <(grep -o '\blib[a-z0-9.+-]*-dev\b' "$repo/.ci/install-deps" | sort -u)
target_packages=(libc6-dev libgcc-14-dev libstdc++-14-dev "${devs[@]}")

# Runs a command in the sid chroot, as root, with /proc, /dev, the repository at /src, this cache at
# /cache and the Swift package mirror (where this machine has one) bound in a mount namespace that ends
# with the command.
in_sid() {
    unshare --mount --propagation private /bin/bash -s "$sid" "$repo" "$cache" "$@" <<'INSIDE'
set -euo pipefail
sid=$1 repo=$2 cache=$3
shift 3
mount -t proc proc "$sid/proc"
mount --rbind /dev "$sid/dev"
mkdir -p "$sid/src" "$sid/cache"
mount --bind "$repo" "$sid/src"
mount --bind "$cache" "$sid/cache"
# A piece kept in SNAPSTATION_CACHE is linked in by its absolute path: that path, bound in too, so the
# link leads there inside the chroot as well.
if [[ -L "$cache/sysroot" && -d "$cache/sysroot/" ]]; then
    kept=$(readlink -f "$cache/sysroot")
    mkdir -p "$sid$kept"
    mount --bind "$kept" "$sid$kept"
fi
if [[ -d /opt/swift-packages ]]; then
    mkdir -p "$sid/opt/swift-packages"
    mount --bind /opt/swift-packages "$sid/opt/swift-packages"
    mount -o remount,ro,bind "$sid/opt/swift-packages"
fi
exec chroot "$sid" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 TERM=dumb \
    PKG_CONFIG_SYSROOT_DIR=/cache/sysroot \
    PKG_CONFIG_LIBDIR=/cache/sysroot/usr/lib/aarch64-linux-gnu/pkgconfig:/cache/sysroot/usr/share/pkgconfig \
    PKG_CONFIG_PATH=/cache/sysroot/usr/lib/aarch64-linux-gnu/pkgconfig:/cache/sysroot/usr/share/pkgconfig \
    "$@"
INSIDE
}

# 1. The compiler.
# Makes the sid chroot with swiftlang in FOLDER.
make_sid() {  # FOLDER
    local sid=$1 # in_sid's chroot
    step "the compiler: a Debian sid chroot with swiftlang (debootstrap, apt)"
    rm -rf "$sid"
    debootstrap --variant=minbase --include=ca-certificates sid "$sid" "$mirror" >/dev/null
    # sid's Release file can be older than its Valid-Until on a mirror that lags; the packages are
    # still checked against the archive's key.
    echo 'Acquire::Check-Valid-Until "false";' > "$sid/etc/apt/apt.conf.d/99snapstation"
    cp /etc/resolv.conf "$sid/etc/resolv.conf"
    # The package mirror of this workplace answers for github.com (as the host's git is told).
    { git config --system --get-regexp '^url\.' 2>/dev/null || true; } | while read -r key value; do
        git config --file "$sid/etc/gitconfig" --add "$key" "$value"
    done
    in_sid /bin/sh -c 'dpkg --add-architecture arm64 && apt-get update -qq &&
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends swiftlang git libc6-dev >/dev/null'
    touch "$sid/.snapstation-ready"
}
# With SNAPSTATION_CACHE (Tests/Support/cache.sh) the chroot is kept there and linked in. Its key: this
# recipe, the mirror, the git redirections, and the week: sid changes every day, and a kept chroot's
# compiler is sid's of the week it was made (printed below), so it is made again each week. Without the
# cache, it is made here once and kept in this clone as before.
sid_key="arm64 sid chroot: recipe $(recipe_hash "${BASH_SOURCE[0]}" '^make_sid()' '^}'), from $mirror, sid of \
week $(date -u +%G-W%V); $({ git config --system --get-regexp '^url\.' 2>/dev/null || true; } | tr '\n' ' ')"
if cache_enabled; then
    cache_make arm64-sid "$sid_key" .snapstation-ready make_sid
    kept=$cache_kept
    [[ -L "$sid" ]] || rm -rf "$sid"
    ln -sfn "$kept" "$sid"
    step "the compiler's chroot kept in $kept"
elif [[ -L "$sid" || ! -e "$sid/.snapstation-ready" ]]; then
    rm -rf "$sid"
    make_sid "$sid"
fi
swift_version=$(in_sid swift --version 2>/dev/null | head -n 1)
swift_package=$(in_sid dpkg-query -W -f='${Version}' swiftlang)
step "compiler: $swift_version (swiftlang $swift_package)"

# 2. The target's libraries and Swift runtime.
# Made again when the compiler changed (its runtime and modules must be the same version) or the packages
# changed (a library newly bound); the marker says both. Its dpkg database names each file where it lies:
# `.snapstation-root` says where that was, and relocate_sysroot rewrites it when the sysroot moved.
ready="swiftlang $swift_package: ${target_packages[*]}"
# SNAPSTATION_ARM64_SOURCES adds an apt source line (Raspberry Pi's archive: its libcamera-dev then
# replaces Debian's; image-recipes/raspberry-pi/README.md).
sources=("$mirror")
[[ -n "${SNAPSTATION_ARM64_SOURCES:-}" ]] && sources+=("$SNAPSTATION_ARM64_SOURCES")
# Makes the sysroot in FOLDER.
make_sysroot() {  # FOLDER
    local sysroot=$1
    step "the target: a trixie arm64 sysroot with ${#target_packages[@]} -dev packages (mmdebstrap, extracted)"
    rm -rf "$sysroot"
    mmdebstrap --quiet --variant=extract --architectures=arm64 --skip=cleanup/apt/cache \
        --include="$(IFS=,; echo "${target_packages[*]}")" trixie "$sysroot" "${sources[@]}"
    sysroot=$(cd "$sysroot" && pwd -P)
    # trixie's merged /usr, which the installed system gets from its essential packages' hooks: the
    # linker scripts (libm.so, libc.so) name /lib/aarch64-linux-gnu/...
    for folder in bin sbin lib; do [[ -e "$sysroot/$folder" ]] || ln -s "usr/$folder" "$sysroot/$folder"; done
    # dpkg's database, written from the extracted packages: what dpkg-shlibdeps reads (which package
    # holds a library, and its symbols or shlibs file).
    local admin="$sysroot/var/lib/dpkg"
    mkdir -p "$admin/info"
    : > "$admin/status"
    echo 1 > "$admin/info/format" # the multiarch layout: NAME:ARCH.list for a Multi-Arch: same package
    multiarch_same() { dpkg-deb --field "$1" Multi-Arch | grep -qx same; }
    local control deb name arch key file
    control=$(mktemp -d)
    for deb in "$sysroot"/var/cache/apt/archives/*.deb; do
        rm -rf "${control:?}"/*
        dpkg-deb --control "$deb" "$control"
        name=$(dpkg-deb --field "$deb" Package)
        arch=$(dpkg-deb --field "$deb" Architecture)
        key=$name
        if multiarch_same "$deb"; then key="$name:$arch"; fi
        for file in shlibs symbols; do
            [[ -f "$control/$file" ]] && cp "$control/$file" "$admin/info/$key.$file"
        done
        # Each file where it lies on this machine (under the sysroot): dpkg-shlibdeps asks dpkg-query
        # which package holds the library it found there.
        dpkg-deb --fsys-tarfile "$deb" | tar -t | sed -e "s|^\./|$sysroot/|" -e 's|/$||' > "$admin/info/$key.list"
        { sed '/^Status:/d' "$control/control" | sed '1a Status: install ok installed'; echo; } >> "$admin/status"
    done
    rm -rf "$control" "$sysroot"/var/cache/apt/archives/*.deb
    echo "$sysroot" > "$sysroot/.snapstation-root"

    step "the target's Swift: sid's swiftlang:arm64 and libswiftlang:arm64 (unpacked, not installed)"
    local runtime="$cache/swift-arm64"
    rm -rf "$runtime" && mkdir -p "$runtime/debs"
    in_sid /bin/sh -c "apt-get update -qq && cd /cache/swift-arm64/debs &&
        apt-get download -qq -o APT::Sandbox::User=root swiftlang:arm64=$swift_package libswiftlang:arm64=$swift_package"
    for deb in "$runtime"/debs/*.deb; do dpkg-deb -x "$deb" "$runtime"; done
    mkdir -p "$sysroot/usr/lib/swift"
    cp -a "$runtime/usr/libexec/swift/lib/clang" "$sysroot/usr/lib/clang"
    (cd "$runtime/usr/libexec/swift/lib/swift" && tar --exclude=./host -cf - .) | tar -xf - -C "$sysroot/usr/lib/swift"
    cp -a "$runtime/usr/libexec/swift/lib/swift_static" "$sysroot/usr/lib/swift_static"
    rm -rf "$runtime"
    echo "$ready" > "$sysroot/.snapstation-ready"
}
# The dpkg database of the sysroot FOLDER naming each file where it lies now.
relocate_sysroot() {  # FOLDER
    local real recorded
    real=$(cd "$1" && pwd -P)
    recorded=$(cat "$1/.snapstation-root" 2>/dev/null || true)
    [[ $real == "$recorded" ]] && return 0
    if [[ -z $recorded ]]; then
        echo "the sysroot $1 does not say where its dpkg database was written (made again)" >&2
        return 1
    fi
    sed -i "s|^$recorded/|$real/|" "$1"/var/lib/dpkg/info/*.list
    echo "$real" > "$1/.snapstation-root"
}
sysroot_key="arm64 sysroot: recipe $(recipe_hash "${BASH_SOURCE[0]}" '^make_sysroot()' '^}'), $ready, from ${sources[*]}"
if cache_enabled; then
    cache_make arm64-sysroot "$sysroot_key" .snapstation-ready make_sysroot
    kept=$cache_kept
    relocate_sysroot "$kept"
    [[ -L "$sysroot" ]] || rm -rf "$sysroot"
    ln -sfn "$kept" "$sysroot"
    step "the target's sysroot kept in $kept"
elif [[ -L "$sysroot" || "$(cat "$sysroot/.snapstation-ready" 2>/dev/null)" != "$ready" ]] ||
    ! relocate_sysroot "$sysroot"; then
    rm -rf "$sysroot"
    make_sysroot "$sysroot"
fi

# 3. The Swift SDK bundle: the sysroot, the resources in it, lld.
bundle="$sdks/snapstation-arm64.artifactbundle"
mkdir -p "$bundle/trixie-arm64"
ln -sfn ../../../sysroot "$bundle/trixie-arm64/sysroot" # the same from the host and from the chroot
cat > "$bundle/info.json" <<JSON
{
  "schemaVersion": "1.0",
  "artifacts": {
    "$sdk": {
      "type": "swiftSDK",
      "version": "1",
      "variants": [{ "path": "trixie-arm64", "supportedTriples": ["x86_64-unknown-linux-gnu", "x86_64-pc-linux-gnu"] }]
    }
  }
}
JSON
cat > "$bundle/trixie-arm64/swift-sdk.json" <<'JSON'
{
  "schemaVersion": "4.0",
  "targetTriples": {
    "aarch64-unknown-linux-gnu": {
      "sdkRootPath": "sysroot",
      "swiftResourcesPath": "sysroot/usr/lib/swift",
      "swiftStaticResourcesPath": "sysroot/usr/lib/swift_static",
      "toolsetPaths": ["toolset.json"]
    }
  }
}
JSON
cat > "$bundle/trixie-arm64/toolset.json" <<'JSON'
{
  "schemaVersion": "1.0",
  "swiftCompiler": { "extraCLIOptions": ["-use-ld=lld"] }
}
JSON

# 4. The build, in the chroot. The scratch folder is the cache's (the packages' clones and the objects).
# Prints the project's own warnings and fails on one.
build() {
    local log
    log=$(mktemp)
    if ! in_sid swift build --package-path /src --scratch-path /cache/build --swift-sdks-path /cache/sdks \
        --swift-sdk "$sdk" "$@" > "$log" 2>&1; then
        grep -E 'error:|warning:' "$log" | grep -v '^warning: .*(prohibited flag|unhandled)' | head -n 40 >&2 ||
            tail -n 40 "$log" >&2
        rm -f "$log"
        return 1
    fi
    local own
    own=$(grep -E '^/src/(Sources|Tests)/.*: warning:' "$log" | sort -u || true)
    rm -f "$log"
    if [[ -n "$own" ]]; then
        echo "$own" >&2
        echo "the project's code has warnings under $swift_version (above)" >&2
        return 1
    fi
}
step "building the release station for aarch64 (--static-swift-stdlib)"
build -c release --static-swift-stdlib --product snapstation
binary="$cache/build/aarch64-unknown-linux-gnu/release/snapstation"
if ((tests)); then
    step "building the tests for aarch64 (debug), the same compiler"
    # Debian's swiftlang ships the module of swift-testing's Foundation overlay (_Testing_Foundation) but
    # not its library, so a test that imports both fails to link; the tests use nothing of it.
    build --build-tests -Xswiftc -Xfrontend -Xswiftc -disable-cross-import-overlays
fi

# 5. The package: Depends from dpkg-shlibdeps against the sysroot.
step "packing the .deb"
deb=$("$repo/image-recipes/deb/build-deb.sh" --binary "$binary" --arch arm64 --sysroot "$sysroot" "$out" | tail -n 1)
step "done: $deb"
echo "$deb"
