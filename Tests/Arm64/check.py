#!/usr/bin/env python3
"""The arm64 station where it is made to run, as far as this x86_64 machine goes: the binary of the arm64
.deb (image-recipes/arm64/build-arm64.sh) under qemu-user, each output held to the x86 binary's from the
same checkout.

- the package: an ARM aarch64 binary; every symbol version it needs (GLIBC_, GLIBCXX_, ...) defined by
  the trixie library it names; Depends from dpkg-shlibdeps, naming no Swift package;
- `--version`, `check-config` on every board file, `selftest` on the simulated devices (libgpiod's v2
  API found, as trixie has it);
- `screens` at two sizes: the same screens, each the same size and the same layout (LAYOUT_PSNR below);
- `process` on two photos by three paths: PSNR against the same float reference within 0.1 dB of x86's
  (NEON and AVX2 paths of libjpeg-turbo and libyuv round differently);
- the simulated station through one meal (the OpenAI stand-in) and one group photo (the Supabase stand-in
  on the test PostgreSQL).

    python3 Tests/Arm64/check.py --deb PATH --sysroot .build-arm64/sysroot [--x86 .build/debug/snapstation]

Needs qemu-user-static, Pillow with NumPy (from PyPI into .build-bench/venv when missing), and for the
station Tests/Group/postgres.sh (started here when it is not).
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "Support"))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "Imaging"))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "Benchmarks"))
from common import ensure_pillow  # noqa: E402  (Tests/Benchmarks)
from pychecks import ROOT, check, finish  # noqa: E402

# Screens: the same screen, drawn by another distribution's text stack (trixie's Pango, cairo and FreeType
# here, bookworm's on x86: glyph edges differ, and Pango 1.56 breaks a long line at another place than
# 1.50) and, in the jar, by another processor's floating point: Debian's arm64 libchipmunk has 635 fused
# multiply-adds (GCC contracts a*b+c on aarch64), each rounding once where x86's rounds twice, so the
# stickers settle a little apart. Compared at 1/8 scale, where the text's edges average out
# and the layout stays: the same screen on both scored 32 dB and up on 2026-11-27, two screens that differ
# in one line of text (03b and 03c, the update's two notes) 15.6 dB, any two others under 19 dB.
LAYOUT_SCALE = 8
LAYOUT_PSNR = 30.0
# process: NEON against AVX2 (libjpeg-turbo's IDCT and colour conversion, libyuv's scaling).
PROCESS_TOLERANCE = 0.1
PATHS = {
    "default": ["--max", "1024"],
    "exact size": ["--max", "1024", "--strict-max"],
    "BGRX": ["--max", "1024", "--filter", "sepia", "--intensity", "0"],
}


class Arm64:
    """The arm64 binary under qemu-user, its libraries from the sysroot (trixie's, as on the Pi)."""

    def __init__(self, binary, sysroot, folder):
        self.binary = binary
        self.sysroot = sysroot
        # A program that runs it as a native one would be run: Station and the helpers take a path.
        self.wrapper = os.path.join(folder, "snapstation-arm64")
        with open(self.wrapper, "w") as f:
            f.write(f"""#!/bin/sh
export QEMU_LD_PREFIX='{sysroot}' LD_LIBRARY_PATH=/usr/lib/aarch64-linux-gnu
exec qemu-aarch64-static '{binary}' "$@"
""")
        os.chmod(self.wrapper, 0o755)


def run(binary, *arguments, check_status=True, timeout=600):
    result = subprocess.run([binary, *arguments], capture_output=True, text=True, timeout=timeout)
    if check_status and result.returncode != 0:
        raise AssertionError(f"{os.path.basename(binary)} {' '.join(arguments)}: exit {result.returncode}: "
                             f"{result.stderr[-800:]}")
    return result


def version_needs(binary):
    """(library, version) the binary needs, from its .gnu.version_r."""
    out = subprocess.run(["readelf", "-V", "--wide", binary], capture_output=True, text=True, check=True).stdout
    needs, library = [], None
    for line in out.splitlines():
        found = re.search(r"File: (\S+)\s+Cnt:", line)
        if found:
            library = found.group(1)
            continue
        found = re.search(r"Name: (\S+)\s+Flags:", line)
        if found and library:
            needs.append((library, found.group(1)))
    return needs


def version_definitions(library):
    out = subprocess.run(["readelf", "-V", "--wide", library], capture_output=True, text=True, check=True).stdout
    return set(re.findall(r"Rev: \d+\s+Flags: \S+\s+Index: \d+\s+Cnt: \d+\s+Name: (\S+)", out))


def find_library(sysroot, name):
    for folder in ("usr/lib/aarch64-linux-gnu", "lib/aarch64-linux-gnu", "usr/lib", "lib"):
        path = os.path.join(sysroot, folder, name)
        if os.path.exists(path):
            return path
    raise AssertionError(f"{name} is not in the sysroot")


def key(version):
    return tuple(int(part) for part in re.findall(r"\d+", version))


def psnr(first, second, scale=1):
    """PSNR in dB of two same-sized images over RGB, after a box filter to 1/`scale` of their size."""
    import numpy
    from PIL import Image

    def pixels(image):
        image = image.convert("RGB")
        if scale > 1:
            image = image.resize((image.width // scale, image.height // scale), Image.BOX)
        return numpy.asarray(image, dtype=numpy.float64)

    with Image.open(first) as a, Image.open(second) as b:
        assert a.size == b.size, f"{os.path.basename(first)}: {a.size} against {b.size}"
        x, y = pixels(a), pixels(b)
    mse = numpy.mean((x - y) ** 2)
    return float("inf") if mse == 0 else 10 * numpy.log10(255 ** 2 / mse)


def main():
    ensure_pillow()
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--deb", required=True)
    parser.add_argument("--sysroot", required=True)
    parser.add_argument("--x86", default=os.path.join(ROOT, ".build/debug/snapstation"))
    args = parser.parse_args()
    sysroot = os.path.realpath(args.sysroot)
    folder = tempfile.mkdtemp(prefix="snaparm64-")
    unpacked = os.path.join(folder, "deb")
    subprocess.run(["dpkg-deb", "-x", args.deb, unpacked], check=True)
    binary = os.path.join(unpacked, "usr/bin/snapstation")
    arm = Arm64(binary, sysroot, folder).wrapper
    x86 = args.x86
    if not os.path.exists(x86):
        sys.exit(f"no x86 binary at {x86}: swift build first (Tests/run's swift test does)")

    with check("the package: an ARM aarch64 binary, Depends from dpkg-shlibdeps, every symbol version "
               "it needs defined by trixie's libraries"):
        kind = subprocess.run(["file", "-b", binary], capture_output=True, text=True, check=True).stdout
        assert "ARM aarch64" in kind, kind
        fields = {name: subprocess.run(["dpkg-deb", "-f", args.deb, name], capture_output=True, text=True,
                                       check=True).stdout.strip() for name in ("Architecture", "Depends")}
        assert fields["Architecture"] == "arm64", fields
        assert "libcamera" in fields["Depends"] and "swift" not in fields["Depends"], fields["Depends"]
        needs = version_needs(binary)
        assert needs, "no version needs read"
        missing = [(library, version) for library, version in needs
                   if version not in version_definitions(find_library(sysroot, library))]
        assert not missing, f"not in trixie's libraries: {missing}"
        glibc = max((version for _, version in needs if version.startswith("GLIBC_")), key=key)
        print(f"     {kind.strip()[:60]}...")
        print(f"     Depends: {fields['Depends']}")
        print(f"     highest GLIBC needed: {glibc}; {len(needs)} symbol versions, all in trixie's libraries")

    with check("--version: the same as x86's"):
        mine, theirs = run(arm, "--version").stdout.strip(), run(x86, "--version").stdout.strip()
        assert mine == theirs, f"{mine!r} against {theirs!r}"
        print(f"     {mine}")

    boards = sorted(os.path.join(ROOT, "board", name, "snapstation.toml") for name in os.listdir(os.path.join(ROOT, "board"))
                    if os.path.exists(os.path.join(ROOT, "board", name, "snapstation.toml")))
    with check(f"check-config on every board file ({len(boards)}): OK, as on x86"):
        assert boards, "no board/*/snapstation.toml found"
        for board in boards:
            mine, theirs = run(arm, "check-config", board), run(x86, "check-config", board)
            assert mine.stdout == theirs.stdout, f"{board}: {mine.stdout!r} against {theirs.stdout!r}"
            assert "OK" in mine.stdout, mine.stdout

    with check("selftest on the simulated devices: libgpiod's v2 API, the config's devices as on x86"):
        config = os.path.join(ROOT, "docs/snapstation.example.toml")
        mine, theirs = run(arm, "selftest", "--config", config), run(x86, "selftest", "--config", config)
        assert "libgpiod v2" in mine.stdout, mine.stdout
        tail = lambda text: text[text.index("This config"):]  # noqa: E731
        assert tail(mine.stdout) == tail(theirs.stdout), f"{tail(mine.stdout)!r} against {tail(theirs.stdout)!r}"
        print("     " + mine.stdout.strip().replace("\n", "\n     "))

    for size in ("800x480", "480x800"):
        with check(f"screens at {size}: the same screens as x86's, each the same layout ({LAYOUT_PSNR} dB at "
                   f"1/{LAYOUT_SCALE} scale)"):
            mine, theirs = os.path.join(folder, f"arm-{size}"), os.path.join(folder, f"x86-{size}")
            run(arm, "screens", "--size", size, "--out", mine)
            run(x86, "screens", "--size", size, "--out", theirs)
            names = sorted(os.listdir(theirs))
            assert names and sorted(os.listdir(mine)) == names, f"{sorted(os.listdir(mine))} against {names}"
            layout = {name: psnr(os.path.join(mine, name), os.path.join(theirs, name), LAYOUT_SCALE) for name in names}
            whole = {name: psnr(os.path.join(mine, name), os.path.join(theirs, name)) for name in names}
            worst = min(layout, key=layout.get)
            print(f"     {len(names)} screens; at 1/{LAYOUT_SCALE} scale lowest {layout[worst]:.1f} dB ({worst}), "
                  f"median {statistics.median(layout.values()):.1f} dB; whole, median "
                  f"{statistics.median(whole.values()):.1f} dB, lowest {min(whole.values()):.1f} dB")
            low = {name: round(score, 1) for name, score in layout.items() if score < LAYOUT_PSNR}
            assert not low, f"another layout: {low}"

    from check_orientation import photos  # noqa: E402  (Tests/Imaging)
    from photo_reference import Reference  # noqa: E402  (Tests/Support)

    for source in photos(folder):
        reference = Reference(source)
        name = os.path.basename(source)[:-4]
        for path, options in PATHS.items():
            with check(f"process {name}, {path}: PSNR against the float reference within "
                       f"{PROCESS_TOLERANCE} dB of x86's"):
                scores = {}
                for label, program in (("arm64", arm), ("x86", x86)):
                    out = os.path.join(folder, f"{name}-{label}.jpg")
                    if os.path.exists(out):
                        os.remove(out)  # the last path's, which must not be scored for this one
                    run(program, "process", source, "-o", out, *options)
                    scores[label] = reference.psnr(out, 1)
                delta = scores["arm64"] - scores["x86"]
                print(f"     arm64 {scores['arm64']:.3f} dB, x86 {scores['x86']:.3f} dB ({delta:+.3f})")
                assert abs(delta) <= PROCESS_TOLERANCE, f"{delta:+.3f} dB"

    station_checks(arm, folder)
    finish("arm64 under qemu-user: ")


def station_checks(arm, folder):
    """The simulated station, arm64, through one meal and one group photo against the stand-ins."""
    from common import Station  # noqa: E402  (Tests/Benchmarks)
    from supabase_members import sign_up_member, standin_on_postgres  # noqa: E402  (Tests/Support)

    fake, base, anon = standin_on_postgres(ROOT)
    try:
        member = sign_up_member(base, anon, "Arm", "Kitchen")
        environment = {"ARM_AI_KEY": "test-key", "ARM_GROUP_KEY": member["password"]}
        state = os.path.join(folder, "state")
        # The meal's result screen; the group photo's delivery as UploadService logs it ("delivered ID to
        # GROUP"), not the station's "not delivered" of a photo that failed.
        for mode, shows in (("meal", r"screen: meal-result"), ("group", r"\] delivered \S+ to Arm")):
            with check(f"the station in {mode} mode: press, 3-2-1, the photo taken and "
                       f"{'analysed by the OpenAI stand-in' if mode == 'meal' else 'shared with the group'}"):
                station = Station(arm, write_config(folder, base, member, mode), state, environment)
                try:
                    station.wait("screen: ready", timeout=120)
                    _, start = station.type("press")
                    station.wait("screen: countdown", after=start, timeout=60)
                    if mode == "group":
                        station.wait("screen: group-review", after=start, timeout=120)
                    line = station.match(shows + r".*", after=start, timeout=240)
                    print(f"     {line[:140]}")
                finally:
                    station.stop()
    finally:
        fake.stdin.close()
        fake.wait(timeout=10)


def write_config(folder, base, member, mode):
    path = os.path.join(folder, f"{mode}.toml")
    with open(path, "w") as config:
        config.write(f"""[station]
time_zone = "UTC"
default_mode = "{mode}"
[display]
idle_seconds = 0
[countdown]
seconds = 1
[ai]
base_url = "{base}/v1"
key_source = "env:ARM_AI_KEY"
[group]
name = "Arm"
review_seconds = 1
backend = "supabase"
url = "{base}"
email = "{member["email"]}"
key_source = "env:ARM_GROUP_KEY"
anon_key = "{member["anon_key"]}"
""")
    return path


if __name__ == "__main__":
    main()
