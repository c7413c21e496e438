#!/usr/bin/env bash
# What Debian's debug build of Chipmunk2D costs the jar, end to end: gets Chipmunk's source the Debian
# way (apt-get source chipmunk), builds it twice as a shared library, once with the flags Debian's
# package uses (no -DNDEBUG: the debug build the station links) and once with -DNDEBUG and otherwise
# the same flags, builds Tests/Benchmarks/chipmunk_debug.c once, runs it against the installed library
# and both builds, and prints a table: CPU µs per cpSpaceStep (medians) and instructions per step
# (callgrind) for the jar's cases. docs/benchmarks.md, "The jar: Debian's debug Chipmunk", has the
# figures and what they mean.
#
#   Tests/Benchmarks/chipmunk_debug.sh [WORKDIR]        # WORKDIR defaults to /tmp/chipmunk-bench
#   SIZES="800x480 1920x1080" STICKERS="60" RUNS=15 ROUNDS=5 Tests/Benchmarks/chipmunk_debug.sh
#
# Needs (Debian bookworm):
#   * a deb-src entry for Debian's main archive, and its index fetched (apt-get update): e.g. a file
#     /etc/apt/sources.list.d/debian-src.sources holding
#         Types: deb-src
#         URIs: http://deb.debian.org/debian
#         Suites: bookworm bookworm-updates
#         Components: main
#         Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
#     (run as root, the script runs apt-get update itself when the source is not found the first time);
#   * dpkg-dev (dpkg-source, dpkg-buildflags), gcc, binutils, and libchipmunk-dev (the headers, and the
#     installed library that is compared);
#   * optional: valgrind (instruction counts) and hyperfine (whole-process times); left out when missing.
# Nothing is installed and nothing outside WORKDIR is written (but apt-get update, as root, when needed).
# It does not touch the Swift build: the benchmark is plain C.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
WORK=${1:-/tmp/chipmunk-bench}
SIZES=${SIZES:-800x480 1920x1080}
STICKERS=${STICKERS:-60}
RUNS=${RUNS:-15}      # runs of the three cases in one process; its figure is their median
ROUNDS=${ROUNDS:-5}   # processes per library, interleaved across the libraries; the table has their median
INSTALLED=$(ls /usr/lib/"$(gcc -print-multiarch)"/libchipmunk.so.7.* 2>/dev/null | head -1 || true)

fail() { echo "chipmunk_debug.sh: $*" >&2; exit 1; }
say() { echo "== $*" >&2; }

for tool in apt-get dpkg-source dpkg-buildflags dpkg-query cc objcopy strings awk; do
    command -v "$tool" >/dev/null || fail "needs $tool (apt-get install dpkg-dev gcc binutils)"
done
[ -f /usr/include/chipmunk/chipmunk.h ] && [ -n "$INSTALLED" ] ||
    fail "needs libchipmunk-dev installed (the headers and the library to compare: apt-get install libchipmunk-dev)"

# ---- 1. The source, as Debian ships it. ----
has_deb_src() {
    grep -rqsE '^[[:space:]]*(deb-src[[:space:]]|Types:.*deb-src)' /etc/apt/sources.list /etc/apt/sources.list.d/
}
mkdir -p "$WORK/src"
SRC=$(ls -d "$WORK"/src/chipmunk-*/ 2>/dev/null | head -1 || true)
if [ -z "$SRC" ]; then
    has_deb_src || fail "no deb-src entry in /etc/apt/sources.list or /etc/apt/sources.list.d/: apt-get source
cannot fetch Chipmunk's Debian source. Add one (see the top of this script for the lines), run
apt-get update as root, and run this again."
    say "apt-get source chipmunk (into $WORK/src)"
    if ! (cd "$WORK/src" && apt-get source chipmunk >"$WORK/src/apt-get-source.log" 2>&1); then
        if [ "$(id -u)" = 0 ]; then
            say "not found: apt-get update, then again"
            apt-get update >"$WORK/src/apt-get-update.log" 2>&1 || fail "apt-get update failed: $WORK/src/apt-get-update.log"
            (cd "$WORK/src" && apt-get source chipmunk >"$WORK/src/apt-get-source.log" 2>&1) ||
                fail "apt-get source chipmunk failed even after apt-get update: $WORK/src/apt-get-source.log"
        else
            fail "apt-get source chipmunk failed ($WORK/src/apt-get-source.log): is there a deb-src entry, and has
apt-get update (as root) fetched its index since it was added?"
        fi
    fi
    SRC=$(ls -d "$WORK"/src/chipmunk-*/ | head -1)
fi
SRC=${SRC%/}
SOURCE_VERSION=$(cd "$SRC" && dpkg-parsechangelog -S Version 2>/dev/null || head -1 debian/changelog | sed 's/.*(\(.*\)).*/\1/')
INSTALLED_VERSION=$(dpkg-query -W -f '${Version}' libchipmunk7 2>/dev/null || echo unknown)
say "source $SRC ($SOURCE_VERSION); installed libchipmunk7 $INSTALLED_VERSION ($INSTALLED)"
[ "$SOURCE_VERSION" = "$INSTALLED_VERSION" ] || echo "warning: the source ($SOURCE_VERSION) is not the installed version ($INSTALLED_VERSION)" >&2

# Is NDEBUG really absent? debian/rules sets only hardening; debhelper's CMake build passes
# CMAKE_BUILD_TYPE=None, so upstream's Release flags (-O3 -DNDEBUG -ffast-math) are not used: the flags
# are dpkg-buildflags' CFLAGS and CPPFLAGS and upstream's -std=gnu99.
if grep -q NDEBUG "$SRC/debian/rules"; then NDEBUG_IN_RULES=yes; else NDEBUG_IN_RULES=no; fi
BANNER=$(strings -a "$INSTALLED" | grep -c 'Debug Enabled' || true)

# ---- 2. Two builds: Debian's flags, and the same with -DNDEBUG. ----
eval "$(cd "$SRC" && DEB_BUILD_MAINT_OPTIONS=hardening=+all dpkg-buildflags --export=sh)"
build() {  # build OUT [extra flags]: every src/*.c, as CMake's chipmunk target compiles and links them
    local out=$WORK/$1
    shift
    rm -rf "$out"
    mkdir -p "$out/obj"
    for f in "$SRC"/src/*.c; do
        # shellcheck disable=SC2086  # the flags are words
        cc $CFLAGS $CPPFLAGS "$@" -std=gnu99 -fPIC -I"$SRC/include" -c "$f" -o "$out/obj/$(basename "$f" .c).o" \
            2>>"$out/build.log" || fail "compiling $f failed: $out/build.log"
    done
    # shellcheck disable=SC2086
    cc -shared -fPIC $CFLAGS $LDFLAGS -Wl,-soname,libchipmunk.so.7 -o "$out/libchipmunk.so.7.0.3" "$out"/obj/*.o -lm
    ln -sf libchipmunk.so.7.0.3 "$out/libchipmunk.so.7"
    ln -sf libchipmunk.so.7 "$out/libchipmunk.so"
}
say "building $WORK/debian (CFLAGS=$CFLAGS CPPFLAGS=$CPPFLAGS -std=gnu99)"
build debian
say "building $WORK/ndebug (the same and -DNDEBUG)"
build ndebug -DNDEBUG
same_section() {  # same_section SECTION A B: whether the two libraries' SECTION bytes are the same
    objcopy -O binary --only-section="$1" "$2" "$WORK/a.sec" && objcopy -O binary --only-section="$1" "$3" "$WORK/b.sec" &&
        cmp -s "$WORK/a.sec" "$WORK/b.sec"
}
if same_section .text "$INSTALLED" "$WORK/debian/libchipmunk.so.7.0.3" && same_section .rodata "$INSTALLED" "$WORK/debian/libchipmunk.so.7.0.3"; then
    REPRO="byte-identical .text and .rodata"
else
    REPRO="differs (another compiler or flags than the package's)"
fi
rm -f "$WORK/a.sec" "$WORK/b.sec"

# ---- 3. The benchmark, built once, run against each library. ----
mkdir -p "$WORK/bin"
cc -O2 -o "$WORK/bin/chipmunk_debug" "$ROOT/Tests/Benchmarks/chipmunk_debug.c" -lchipmunk -lm
BIN=$WORK/bin/chipmunk_debug
LIBS="installed debian ndebug"
libpath() { [ "$1" = installed ] && echo "" || echo "$WORK/$1"; }

RESULTS=$WORK/results.txt   # lib size stickers case steps median_us checksum (one line a process and case)
INSTR=$WORK/instructions.txt  # lib size stickers case steps instructions
: >"$RESULTS"
: >"$INSTR"
for size in $SIZES; do
    for count in $STICKERS; do
        say "timing $size, $count stickers: $ROUNDS rounds x $RUNS runs per library"
        for round in $(seq "$ROUNDS"); do
            for lib in $LIBS; do
                LD_LIBRARY_PATH=$(libpath "$lib") "$BIN" --runs "$RUNS" --size "$size" --stickers "$count" >"$WORK/run.txt"
                awk -v lib="$lib" -v size="$size" -v n="$count" '
                    /^checksum/ { sum = $2 }
                    $1 == "settle" || $1 == "drop" || $1 == "shake" { line[$1] = $2 " " $3 }
                    END { print lib, size, n, "settle", line["settle"], sum; print lib, size, n, "drop", line["drop"], sum
                          print lib, size, n, "shake", line["shake"], sum }' "$WORK/run.txt" >>"$RESULTS"
            done
        done
        if command -v valgrind >/dev/null; then
            for lib in $LIBS; do
                say "callgrind $lib $size $count"
                rm -f "$WORK/cg.out"*
                LD_LIBRARY_PATH=$(libpath "$lib") valgrind --tool=callgrind --toggle-collect=cpSpaceStep \
                    --callgrind-out-file="$WORK/cg.out" "$BIN" --runs 1 --no-timing --size "$size" --stickers "$count" \
                    >"$WORK/run.txt" 2>"$WORK/cg.log" || fail "valgrind failed: $WORK/cg.log"
                i=0
                for c in settle drop shake; do
                    i=$((i + 1))
                    steps=$(awk -v c="$c" '$1 == c { print $2 }' "$WORK/run.txt")
                    ir=$(awk '/^(totals|summary):/ { print $2; exit }' "$WORK/cg.out.$i")
                    echo "$lib $size $count $c $steps $ir" >>"$INSTR"
                done
            done
        fi
    done
done

# Every library must have replayed the same world: the same steps and final positions.
if [ "$(awk '{ print $2, $3, $4, $5, $7 }' "$RESULTS" | sort -u | wc -l)" != "$(awk '{ print $2, $3, $4 }' "$RESULTS" | sort -u | wc -l)" ]; then
    echo "warning: the libraries did not all take the same steps to the same places (see $RESULTS)" >&2
fi

# ---- The table. ----
echo
echo "Chipmunk $SOURCE_VERSION: debian/rules mentions NDEBUG: $NDEBUG_IN_RULES; installed library's banner strings: $BANNER;"
echo "rebuild with Debian's flags vs installed: $REPRO"
echo "CPU µs per cpSpaceStep, median of $ROUNDS processes x $RUNS runs (each run: the mean over the case's steps);"
echo "instructions per step inside cpSpaceStep (callgrind); debug = Debian's flags (no -DNDEBUG), ndebug = the same + -DNDEBUG"
echo
awk '
    function median(list,   n, a, i, j, t) {
        n = split(list, a, " ")
        for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] + 0 > a[j] + 0; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
        return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
    }
    FNR == 1 { file++ }
    file == 1 { key = $2 " " $3 " " $4; t[$1, key] = t[$1, key] " " $6; steps[key] = $5; if (!(key in seen)) { seen[key] = 1; order[++keys] = key } }
    file == 2 && $5 > 0 { ir[$1, $2 " " $3 " " $4] = $6 / $5 }
    END {
        printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", "size", "stickers", "case", "steps",
            "installed µs/step", "debug µs/step", "ndebug µs/step", "time debug/ndebug", "debug instr/step",
            "ndebug instr/step", "instr debug/ndebug"
        print "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|"
        for (k = 1; k <= keys; k++) {
            key = order[k]; split(key, p, " ")
            mi = median(t["installed", key]); md = median(t["debian", key]); mn = median(t["ndebug", key])
            di = ir["debian", key]; ni = ir["ndebug", key]
            printf "| %s | %s | %s | %d | %.2f | %.2f | %.2f | %.3f× | %s | %s | %s |\n", p[1], p[2], p[3],
                steps[key], mi, md, mn, md / mn, di ? sprintf("%.0f", di) : "-", ni ? sprintf("%.0f", ni) : "-",
                ni ? sprintf("%.3f×", di / ni) : "-"
        }
    }' "$RESULTS" "$INSTR"

if command -v hyperfine >/dev/null; then
    size=${SIZES%% *}
    count=${STICKERS%% *}
    echo
    echo "Whole processes (hyperfine; $size, $count stickers, 5 runs of the three cases a process; wall ms):"
    hyperfine --style basic --warmup 2 --runs 30 --export-json "$WORK/hyperfine.json" \
        -n installed "$BIN --runs 5 --size $size --stickers $count" \
        -n debug "LD_LIBRARY_PATH=$WORK/debian $BIN --runs 5 --size $size --stickers $count" \
        -n ndebug "LD_LIBRARY_PATH=$WORK/ndebug $BIN --runs 5 --size $size --stickers $count" >"$WORK/hyperfine.log" 2>&1 ||
        fail "hyperfine failed: $WORK/hyperfine.log"
    # hyperfine's JSON has one result a command: its name, then mean, stddev, median, user, system, min, max.
    tr -d ' \n' <"$WORK/hyperfine.json" | sed 's/"command":/\n&/g' | awk -F'[:,"]+' '
        BEGIN { print "| library | median | mean | min | max | user |"; print "|---|---:|---:|---:|---:|---:|" }
        /^"command"/ { for (i = 1; i < NF; i++) v[$i] = $(i + 1)
            printf "| %s | %.1f | %.1f | %.1f | %.1f | %.1f |\n", v["command"], 1000 * v["median"], 1000 * v["mean"],
                1000 * v["min"], 1000 * v["max"], 1000 * v["user"] }'
fi
echo
echo "(raw figures: $RESULTS, $INSTR; load average now: $(cut -d' ' -f1-3 /proc/loadavg))"
