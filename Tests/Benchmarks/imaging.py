#!/usr/bin/env python3
"""Times `snapstation process` against vipsthumbnail (libvips) and Pillow on a 12 MP JPEG.

Each tool runs as its own process, the way a station or a script would call it, alternating so that
machine noise falls on all of them alike. The figures are the median wall time and the peak resident
memory per run (GNU time). "Floor" is libjpeg-turbo alone decoding at 1/2 scale and encoding the 3 MP
result, compiled here from a few lines of C, through BGRX pixels and (the lower bound) in YUV: no tool
that must decode and re-encode can do less work.

    python3 Tests/Benchmarks/imaging.py [--runs 9] [--input photo.jpg] [--binary .build/release/snapstation]
                                        [--callgrind] [--no-orientations]

The exact-size rows (2048 px, as vipsthumbnail makes) are also scored for quality: PSNR against a float
reference (the input decoded at full size and area-averaged to the output's size in floating point), so a
faster path cannot buy its speed with a worse picture. With --callgrind, each tool's instruction count
(valgrind's callgrind, one run each) is printed beside the medians: a figure that does not move with the
machine's load.

Orientations: the same photo with each EXIF orientation 2-8 (the same compressed image with an APP1
segment inserted) and the upright photo with the configured rotation (`--rotation 90`, as a
portrait-mounted station's camera.rotation), each through snapstation, snapstation --strict-max and
vipsthumbnail in the same alternating runs: the median, its ratio to vips, and the cost of turning (over
the upright file's median); the exact-size outputs scored against the reference turned by Pillow's
exif_transpose.

Needs: a release build (built here if missing), Debian's libvips-tools and time, and Pillow (python3-pil or pip).
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

from common import BINARY, ensure_pillow, instructions, release_binary, without_debug_info  # noqa: E402  (Tests/Benchmarks/common.py)
from photo_reference import AS_OPTIONS, Reference, with_orientation  # noqa: E402  (Tests/Support, on common's path)

FLOOR_C = r"""
#include <stdio.h>
#include <stdlib.h>
#include <turbojpeg.h>
int main(int argc, char **argv) {
    FILE *f = fopen(argv[1], "rb"); fseek(f, 0, SEEK_END); long n = ftell(f); fseek(f, 0, SEEK_SET);
    unsigned char *jpeg = malloc(n); if (fread(jpeg, 1, n, f) != (size_t)n) return 1; fclose(f);
    tjhandle d = tjInitDecompress(); int w, h, s, c;
    tjDecompressHeader3(d, jpeg, n, &w, &h, &s, &c);
    int sw = (w + 1) / 2, sh = (h + 1) / 2;
    tjhandle e = tjInitCompress(); unsigned char *out = NULL; unsigned long size = 0;
    if (argc > 3) {  /* "yuv": stay in YUV 4:2:0, as snapstation does for such photos */
        int cw = (sw + 1) / 2, ch = (sh + 1) / 2, strides[3] = {sw, cw, cw};
        unsigned char *planes[3] = {malloc((size_t)sw * sh), malloc((size_t)cw * ch), malloc((size_t)cw * ch)};
        if (tjDecompressToYUVPlanes(d, jpeg, n, planes, sw, strides, sh, TJFLAG_ACCURATEDCT)) return 1;
        if (tjCompressFromYUVPlanes(e, (const unsigned char **)planes, sw, strides, sh, TJSAMP_420, &out, &size, 80,
                                    TJFLAG_ACCURATEDCT)) return 1;
    } else {
        unsigned char *px = malloc((size_t)sw * sh * 4);
        if (tjDecompress2(d, jpeg, n, px, sw, 0, sh, TJPF_BGRX, TJFLAG_ACCURATEDCT)) return 1;
        if (tjCompress2(e, px, sw, 0, sh, TJPF_BGRX, &out, &size, TJSAMP_420, 80, TJFLAG_ACCURATEDCT)) return 1;
    }
    f = fopen(argv[2], "wb"); fwrite(out, 1, size, f); fclose(f);
    return 0;
}
"""

PILLOW = (
    "import sys; from PIL import Image; im = Image.open(sys.argv[1]); im.thumbnail((2048, 2048)); "
    "im.save(sys.argv[2], quality=80)"
)


def make_input(path):
    """A noisy synthetic 4056x3040 photo (the Pi HQ camera's full size): noise defeats JPEG's easy cases."""
    from PIL import Image

    size = (4056, 3040)
    noise = [Image.effect_noise(size, 45) for _ in range(3)]
    gradient = Image.linear_gradient("L").resize(size)
    channels = [Image.blend(n, gradient, 0.35) for n in noise]
    Image.merge("RGB", channels).save(path, quality=92)


def run_once(command):
    """Wall seconds and peak RSS in MB of one process.

    The peak comes from GNU time, not from this script's own wait4: a child forked from this (large)
    Python process carries the parent's resident size into its ru_maxrss, even across exec.
    """
    start = time.perf_counter()
    result = subprocess.run(["/usr/bin/time", "-f", "%M"] + command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    elapsed = time.perf_counter() - start
    if result.returncode != 0:
        sys.exit(f"failed: {' '.join(command)}: {result.stderr.decode()}")
    return elapsed, int(result.stderr.decode().strip().splitlines()[-1]) / 1024


def image_size(path):
    from PIL import Image

    with Image.open(path) as im:
        return f"{im.width}x{im.height}"


def orientation_cases(source, work):
    """The turned cases: name -> (input file, the EXIF value the output must match, the extra options),
    the upright file first. Each tagged file holds the source's bytes with an EXIF segment added."""
    with open(source, "rb") as f:
        jpeg = f.read()
    cases = {"upright": (source, 1, [])}
    for value in range(2, 9):
        path = os.path.join(work, f"exif{value}.jpg")
        with open(path, "wb") as f:
            f.write(with_orientation(jpeg, value))
        cases[f"EXIF {value}"] = (path, value, [])
    cases["camera.rotation 90"] = (source, 6, AS_OPTIONS[6])
    return cases


def orientation_commands(cases, snapstation, out):
    """(case, tool) -> (command, its output file): snapstation at its default, at exact size, and
    vipsthumbnail (which turns by EXIF; for the configured rotation its peer is the EXIF 6 file, the same
    picture)."""
    commands = {}
    for case, (path, value, options) in cases.items():
        common = [snapstation, "process", path, "--max", "2048", "--quality", "80", *options]
        tag = case.replace(" ", "").replace(".", "")
        commands[case, "default"] = (common + ["-o", out("snap-" + tag)], out("snap-" + tag))
        commands[case, "exact"] = (common + ["--strict-max", "-o", out("strict-" + tag)], out("strict-" + tag))
        if not options:
            vips = ["vipsthumbnail", path, "-s", "2048", "-o", out("vips-" + tag) + "[Q=80,strip]"]
            commands[case, "vips"] = (vips, out("vips-" + tag))
    return commands


def peer(case, tool):
    """The row whose vips time a case is compared with."""
    return ("EXIF 6" if case == "camera.rotation 90" else case), "vips"


def print_orientations(cases, commands, times, counted):
    """The table per orientation: medians, their ratio to vips, and the cost of turning over upright."""
    median = {key: statistics.median(times[key]) for key in commands}
    print("orientations (medians; x vips = the time over vipsthumbnail's on the same file; turn = over upright):")
    print(f"{'case':20} {'default ms':>10} {'x vips':>7} {'turn':>11} {'exact ms':>9} {'x vips':>7} {'turn':>11}"
          f" {'vips ms':>8} {'turn':>6}")
    worst = {"default": 0.0, "exact": 0.0}
    worst_exact_ratio = 0.0
    for case in cases:
        vips = median[peer(case, "vips")]
        cells = []
        for tool in ("default", "exact"):
            here, upright = median[case, tool], median["upright", tool]
            extra = (here - upright) / upright
            worst[tool] = max(worst[tool], extra)
            cells.append(f"{here * 1000:10.0f} {here / vips:6.2f}x {(here - upright) * 1000:+5.0f} {extra:+5.0%}")
        worst_exact_ratio = max(worst_exact_ratio, median[case, "exact"] / vips)
        vips_turn = (vips - median["upright", "vips"]) * 1000
        print(f"{case:20} {cells[0]} {cells[1]} {vips * 1000:8.0f} {vips_turn:+6.0f}")
    print(f"the dearest turn: default {worst['default']:+.0%}, exact {worst['exact']:+.0%} over upright "
          f"(target: within 10 %); exact size at most {worst_exact_ratio:.2f}x vipsthumbnail's time (target: 0.8x)")
    if counted:
        print("instructions (callgrind, one run each, all threads), M and the ratio to vips on the same file:")
        print(f"{'case':20} {'default':>9} {'x vips':>7} {'exact':>9} {'x vips':>7} {'vips':>9}")
        for case in cases:
            vips = counted[peer(case, "vips")]
            default, exact = counted[case, "default"], counted[case, "exact"]
            print(f"{case:20} {default / 1e6:9.0f} {default / vips:6.2f}x {exact / 1e6:9.0f} {exact / vips:6.2f}x "
                  f"{vips / 1e6:9.0f}")


def main():
    ensure_pillow()
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--input")
    parser.add_argument("--binary", default=BINARY)
    parser.add_argument("--callgrind", action="store_true", help="count instructions with valgrind too")
    parser.add_argument("--no-orientations", action="store_true", help="the upright photo only")
    args = parser.parse_args()

    release_binary(args.binary)
    if not shutil.which("vipsthumbnail") or not os.path.exists("/usr/bin/time"):
        sys.exit("vipsthumbnail or GNU time is missing: apt-get install libvips-tools time")

    work = tempfile.mkdtemp(prefix="snapbench-")
    source = args.input or os.path.join(work, "12mp.jpg")
    if not args.input:
        make_input(source)
    floor = os.path.join(work, "floor")
    subprocess.run(["gcc", "-O2", "-x", "c", "-", "-o", floor, "-lturbojpeg"], input=FLOOR_C.encode(), check=True)

    out = lambda name: os.path.join(work, name + ".jpg")
    tools = {
        "snapstation process": [args.binary, "process", source, "-o", out("snap"), "--max", "2048", "--quality", "80"],
        "snapstation --strict-max": [
            args.binary, "process", source, "-o", out("snapstrict"), "--max", "2048", "--quality", "80", "--strict-max"],
        "vipsthumbnail -s 2048": ["vipsthumbnail", source, "-s", "2048", "-o", out("vips") + "[Q=80,strip]"],
        "Pillow thumbnail": [sys.executable, "-c", PILLOW, source, out("pillow")],
        "floor (1/2 decode + encode)": [floor, source, out("floor")],
        "floor in YUV": [floor, source, out("flooryuv"), "yuv"],
    }
    files = {"snapstation process": "snap", "snapstation --strict-max": "snapstrict", "vipsthumbnail -s 2048": "vips",
             "Pillow thumbnail": "pillow", "floor (1/2 decode + encode)": "floor", "floor in YUV": "flooryuv"}
    cases = {} if args.no_orientations else orientation_cases(source, work)
    turned = orientation_commands(cases, args.binary, out)
    everything = {**tools, **{key: command for key, (command, _) in turned.items()}}

    for command in everything.values():  # warm the page cache and the dynamic loader once
        run_once(command)
    times = {name: [] for name in everything}
    memory = {name: [] for name in everything}
    for run in range(args.runs):
        names = list(everything) if run % 2 == 0 else list(reversed(everything))
        for name in names:
            seconds, megabytes = run_once(everything[name])
            times[name].append(seconds)
            memory[name].append(megabytes)

    from PIL import __version__ as pillow_version

    vips_version = subprocess.run(["vipsthumbnail", "--vips-version"], capture_output=True, text=True).stdout.strip()
    print(f"input: {source} ({image_size(source)}, {os.path.getsize(source) / 1e6:.1f} MB); {args.runs} runs each")
    print(f"peers: {vips_version}, Pillow {pillow_version}")
    ours = statistics.median(times["snapstation process"])
    print(f"{'tool':30} {'median s':>9} {'min s':>7} {'max s':>7} {'peak MB':>8} {'vs snapstation':>15} {'output':>10}")
    for name in tools:
        median = statistics.median(times[name])
        print(
            f"{name:30} {median:9.3f} {min(times[name]):7.3f} {max(times[name]):7.3f} {max(memory[name]):8.1f} "
            f"{median / ours:14.2f}x {image_size(out(files[name])):>10}"
        )
    strict = statistics.median(times["snapstation --strict-max"])
    vips = statistics.median(times["vipsthumbnail -s 2048"])
    reference = Reference(source)
    quality = {name: reference.psnr(out(files[name]), 1) for name in (
        "snapstation --strict-max", "vipsthumbnail -s 2048", "Pillow thumbnail")}
    print(f"exact size (2048 px): snapstation --strict-max takes {strict / vips:.2f}x vipsthumbnail's time "
          f"(target: at most 0.8x); PSNR against a float reference: snapstation "
          f"{quality['snapstation --strict-max']:.2f} dB, vipsthumbnail {quality['vipsthumbnail -s 2048']:.2f} dB, "
          f"Pillow {quality['Pillow thumbnail']:.2f} dB")
    counted, counted_turns = {}, {}
    if args.callgrind:
        counted_binary = without_debug_info(args.binary, work)
        swap = lambda command: [counted_binary if part == args.binary else part for part in command]
        counted = {name: instructions(swap(tools[name])) for name in (
            "snapstation process", "snapstation --strict-max", "vipsthumbnail -s 2048", "floor in YUV")}
        base = counted["snapstation process"]
        print("instructions (callgrind, one run each, all threads):")
        for name, count in counted.items():
            print(f"  {name:30} {count / 1e6:10.1f} M   {count / base:5.2f}x")
        counted_turns = {key: instructions(swap(command)) for key, (command, _) in turned.items()}
    if cases:
        print_orientations(cases, turned, times, counted_turns)
        scores = []
        for case, (path, value, options) in cases.items():
            got = {tool: reference.psnr(turned[case, tool][1], value) for tool in ("exact", "vips")
                   if (case, tool) in turned}
            scores.append(f"{case} {got['exact']:.2f}" + (f" (vips {got['vips']:.2f})" if "vips" in got else ""))
        print("PSNR of the exact-size outputs against the reference turned by exif_transpose, dB: " + "; ".join(scores))
    floor_median = statistics.median(times["floor in YUV"])
    print(f"snapstation is {statistics.median(times['vipsthumbnail -s 2048']) / ours:.2f}x as fast as vipsthumbnail, "
          f"{statistics.median(times['Pillow thumbnail']) / ours:.2f}x as fast as Pillow, "
          f"and takes {ours / floor_median:.2f}x the YUV floor's time")
    print(f"peak memory: snapstation {max(memory['snapstation process']):.1f} MB, "
          f"vipsthumbnail {max(memory['vipsthumbnail -s 2048']):.1f} MB, Pillow {max(memory['Pillow thumbnail']):.1f} MB")

    # Each filter at full intensity on the 2028x1520 result: the pipeline's time with it, minus without.
    print("filters at intensity 1 (median extra time over the plain pipeline):")
    for name in ["sepia", "mono", "vivid", "vignette", "sharpen"]:
        command = tools["snapstation process"] + ["--filter", name, "--intensity", "1"]
        extra = statistics.median(run_once(command)[0] for _ in range(args.runs)) - ours
        print(f"  {name:9} {max(0, extra) * 1000:6.0f} ms")
    shutil.rmtree(work)


if __name__ == "__main__":
    main()
