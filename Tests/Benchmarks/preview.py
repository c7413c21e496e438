#!/usr/bin/env python3
"""CPU time per composed live-preview frame, snapstation against Pillow, and the trigger-to-still latency.

snapstation's figure comes from its hidden `bench-preview` command: an NV12 camera buffer converted to
pixels (libyuv), the ready screen drawn over it (cairo and pango: mode, group, the status lines), and the
canvas copied into an XRGB8888 scan-out buffer (libyuv): what the station does for every preview frame
on a panel without a YUV plane. The peer is the same work in Pillow, as Python photo booths do it:
NV12 to RGB (chroma upsampled, YCbCr converted), a translucent band with two lines of text drawn over
it, and the result packed as BGRX. Both are timed as CPU time of the composing thread, median per frame.

The latency part times stills from the trigger: the simulated camera (which renders on demand), and a
real camera through libcamera when one is there (trigger to the still's sensor timestamp); without a
camera that part is skipped and says so.

    python3 Tests/Benchmarks/preview.py [--frames 120] [--binary .build/release/snapstation] [--callgrind]

With --callgrind, instructions per composed 800x480 frame are counted for both (callgrind, all threads: a
run of N frames minus a run of one, over N - 1), printed beside the CPU medians: a figure that does not move
with the machine's load.

Needs: a release build (built here if missing), Pillow and NumPy, fonts-dejavu-core.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

from common import BINARY, ensure_pillow, instructions, release_binary, without_debug_info  # noqa: E402  (Tests/Benchmarks/common.py)

FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"


def pillow_frames(width, height, frames):
    from PIL import Image, ImageDraw, ImageFont
    import numpy as np

    title = ImageFont.truetype(FONT, max(16, height // 12))
    small = ImageFont.truetype(FONT, max(12, height // 24))
    y = np.full((height, width), 120, np.uint8)
    uv = np.full((height // 2, width // 2, 2), 128, np.uint8)
    times = []
    for frame in range(frames):
        bar = (frame * 7) % max(1, height - 8)
        y[bar:bar + 8, :] = 235
        start = time.thread_time()
        # NV12 -> RGB: split the interleaved chroma, upsample it, convert.
        luma = Image.frombuffer("L", (width, height), y.tobytes(), "raw", "L", 0, 1)
        cb = Image.fromarray(uv[:, :, 0]).resize((width, height), Image.BILINEAR)
        cr = Image.fromarray(uv[:, :, 1]).resize((width, height), Image.BILINEAR)
        picture = Image.merge("YCbCr", (luma, cb, cr)).convert("RGBA")
        # The overlay: a translucent band and two lines of text, drawn fresh as the screen is each frame.
        overlay = Image.new("RGBA", (width, height), (0, 0, 0, 0))
        draw = ImageDraw.Draw(overlay)
        draw.rectangle((0, 0, width, height // 6), fill=(20, 20, 24, 190))
        draw.text((20, 10), "Friends · photo of the day", font=title, fill=(255, 255, 255, 255))
        draw.rectangle((0, height - height // 10, width, height), fill=(20, 20, 24, 190))
        draw.text((20, height - height // 12), "Press the button", font=small, fill=(230, 230, 230, 255))
        composed = Image.alpha_composite(picture, overlay)
        composed.convert("RGB").tobytes("raw", "BGRX")
        times.append((time.thread_time() - start) * 1000)
        y[bar:bar + 8, :] = 120
    return statistics.median(times)


def main():
    ensure_pillow()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=120)
    parser.add_argument("--stills", type=int, default=10)
    parser.add_argument("--binary", default=BINARY)
    parser.add_argument("--callgrind", action="store_true", help="count instructions per frame with valgrind")
    args = parser.parse_args()
    release_binary(args.binary)
    sizes = ["800x480", "1920x1080"]
    command = [args.binary, "bench-preview", "--frames", str(args.frames), "--stills", str(args.stills)]
    for size in sizes:
        command += ["--size", size]
    result = subprocess.run(command, capture_output=True, text=True, check=True)
    figures = json.loads(result.stdout)

    print(f"Composed preview frame, CPU ms per frame (median of {args.frames}):")
    print(f"  {'size':<10} {'snapstation':>12} {'convert':>8} {'draw':>8} {'blit':>8} {'Pillow':>8} {'Pillow/snap':>12}")
    for entry in figures["compose"]:
        width, height = (int(v) for v in entry["size"].split("x"))
        peer = pillow_frames(width, height, args.frames)
        print(f"  {entry['size']:<10} {entry['cpu_ms']:>12.2f} {entry['convert_ms']:>8.2f} {entry['draw_ms']:>8.2f} "
              f"{entry['blit_ms']:>8.2f} {peer:>8.2f} {peer / entry['cpu_ms']:>11.1f}x")

    if args.callgrind:
        import tempfile
        work = tempfile.mkdtemp(prefix="snapbench-preview-")
        binary = without_debug_info(args.binary, work)
        frames = 30

        def ours(count):
            return instructions([binary, "bench-preview", "--frames", str(count), "--stills", "0", "--size", "800x480"])

        def peer(count):
            return instructions([sys.executable, "-c",
                                 f"import sys; sys.path.insert(0, {os.path.dirname(__file__)!r}); import preview; "
                                 f"preview.pillow_frames(800, 480, {count})"])

        snap = (ours(frames) - ours(1)) / (frames - 1)
        pillow = (peer(frames) - peer(1)) / (frames - 1)
        print(f"Instructions per composed 800x480 frame (callgrind, {frames} frames minus one): snapstation "
              f"{snap / 1e6:.1f} M, Pillow {pillow / 1e6:.1f} M ({pillow / snap:.1f}x)")

    simulated = figures["simulated_still_ms"]
    print(f"Trigger to still, simulated camera (2028x1520, rendered on demand): median "
          f"{statistics.median(simulated):.1f} ms over {len(simulated)}")
    if "camera_shutter_lag_ms" in figures and figures["camera_shutter_lag_ms"]:
        lag = figures["camera_shutter_lag_ms"]
        print(f"Trigger to sensor timestamp, libcamera camera: median {statistics.median(lag):.1f} ms over {len(lag)}")
    else:
        print(f"Real camera: skipped ({figures.get('camera_skipped', 'no figures')})")


if __name__ == "__main__":
    sys.exit(main())
