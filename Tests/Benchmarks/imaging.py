#!/usr/bin/env python3
"""Times `snapstation process` against vipsthumbnail (libvips) and Pillow on a 12 MP JPEG.

Each tool runs as its own process, the way a station or a script would call it, alternating so that
machine noise falls on all of them alike. The figures are the median wall time and the peak resident
memory per run (GNU time). "Floor" is libjpeg-turbo alone decoding at 1/2 scale and encoding the 3 MP
result, compiled here from a few lines of C, through BGRX pixels and (the lower bound) in YUV: no tool
that must decode and re-encode can do less work.

    python3 Tests/Benchmarks/imaging.py [--runs 9] [--input photo.jpg] [--binary .build/release/snapstation]
                                        [--callgrind]

The exact-size rows (2048 px, as vipsthumbnail makes) are also scored for quality: PSNR against a float
reference (the input decoded at full size and area-averaged to the output's size in floating point), so a
faster path cannot buy its speed with a worse picture. With --callgrind, each tool's instruction count
(valgrind's callgrind, one run each) is printed beside the medians: a figure that does not move with the
machine's load.

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


def psnr_against_reference(source, outputs):
    """PSNR (dB, over RGB) of each output against the source area-averaged in floating point to its size."""
    import numpy
    from PIL import Image

    with Image.open(source) as im:
        channels = [band.convert("F") for band in im.convert("RGB").split()]
    references, scores = {}, {}
    for name, path in outputs.items():
        with Image.open(path) as out:
            size = out.size
            got = numpy.asarray(out.convert("RGB"), dtype=numpy.float64)
        if size not in references:
            references[size] = numpy.stack(
                [numpy.asarray(c.resize(size, Image.BOX), dtype=numpy.float64) for c in channels], axis=-1)
        error = numpy.mean((got - references[size]) ** 2)
        scores[name] = 10 * numpy.log10(255 ** 2 / error) if error > 0 else float("inf")
    return scores


def image_size(path):
    from PIL import Image

    with Image.open(path) as im:
        return f"{im.width}x{im.height}"


def main():
    ensure_pillow()
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--input")
    parser.add_argument("--binary", default=BINARY)
    parser.add_argument("--callgrind", action="store_true", help="count instructions with valgrind too")
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

    for command in tools.values():  # warm the page cache and the dynamic loader once
        run_once(command)
    times = {name: [] for name in tools}
    memory = {name: [] for name in tools}
    for run in range(args.runs):
        names = list(tools) if run % 2 == 0 else list(reversed(tools))
        for name in names:
            seconds, megabytes = run_once(tools[name])
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
    quality = psnr_against_reference(source, {name: out(files[name]) for name in (
        "snapstation --strict-max", "vipsthumbnail -s 2048", "Pillow thumbnail")})
    print(f"exact size (2048 px): snapstation --strict-max takes {strict / vips:.2f}x vipsthumbnail's time "
          f"(target: at most 0.8x); PSNR against a float reference: snapstation "
          f"{quality['snapstation --strict-max']:.2f} dB, vipsthumbnail {quality['vipsthumbnail -s 2048']:.2f} dB, "
          f"Pillow {quality['Pillow thumbnail']:.2f} dB")
    if args.callgrind:
        counted_binary = without_debug_info(args.binary, work)
        counted_tools = {name: [counted_binary if part == args.binary else part for part in command]
                         for name, command in tools.items()}
        counted = {name: instructions(counted_tools[name]) for name in (
            "snapstation process", "snapstation --strict-max", "vipsthumbnail -s 2048", "floor in YUV")}
        base = counted["snapstation process"]
        print("instructions (callgrind, one run each, all threads):")
        for name, count in counted.items():
            print(f"  {name:30} {count / 1e6:10.1f} M   {count / base:5.2f}x")
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
