#!/usr/bin/env python3
"""The sticker jar: what its physics and its frames cost, against Pillow drawing the same scene, and
what the station costs once the jar is asleep.

snapstation's figures come from its hidden `bench-jar` command: a jar of 10 and of 60 stickers (half
cut-outs, half round cuts of a thumbnail) at 800x480 and 1920x1080, settled, then shaken; while they
tumble, each frame steps Chipmunk2D twice (120 Hz physics under a 60 Hz display) and draws the ready
screen with every sticker where the physics has it (cairo, each sticker a surface made once). Printed:
CPU per physics step, CPU per composed frame, the frames a second one core reaches, and the steps until
everything sleeps again. Then one more meal drops into the settled jar (what follows every capture), and
each frame until it sleeps is drawn whole and, as the display service does, only where stickers moved:
CPU per frame both ways, and how much of the screen the partial frames drew.

The peer draws the same scene in Pillow, as a Python photo booth would: the background and the jar,
every sticker (an RGBA image resized once, as snapstation's are) rotated to its angle and composited,
and the card's text; CPU time per frame, median.

The idle part runs the real station (release build, simulated devices, meal mode, the jar with saved
meals) and reads its CPU time from /proc over 60 s once the jar has settled: the target is under 1 % of
a core.

    python3 Tests/Benchmarks/jar.py [--frames 240] [--idle-seconds 60] [--binary .build/release/snapstation]

Needs the release build (built here if missing); Pillow and NumPy come from PyPI into .build-bench/venv.
"""
import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time

from common import BINARY, ROOT, ensure_pillow, release_binary  # noqa: E402  (Tests/Benchmarks/common.py)

FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
BOLD = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"


def pillow_frames(width, height, stickers, sticker_path, frames):
    from PIL import Image, ImageDraw, ImageFont

    short = min(width, height)
    title = ImageFont.truetype(BOLD, int(short * 0.068))
    small = ImageFont.truetype(FONT, int(short * 0.044))
    # The jar's place and the stickers' size as JarLayout has them (landscape).
    glass = (int(short * 0.045 / 2), int(short * 0.14), int(min(width * 0.5, height * 0.8)), int(height * 0.88))
    inner = (glass[0] + 10, glass[1] + 30, glass[2] - 10, glass[3] - 10)
    area = (inner[2] - inner[0]) * (inner[3] - inner[1]) * 0.5 / max(stickers, 5)
    side = int(min((inner[2] - inner[0]) * 0.42, max(20, area ** 0.5 * 1.15)))
    picture = Image.open(sticker_path).convert("RGBA")
    picture.thumbnail((side, side))
    rng = random.Random(7)
    bodies = [[rng.uniform(inner[0] + side / 2, inner[2] - side / 2), rng.uniform(inner[1] + side / 2, inner[3] - side / 2),
               rng.uniform(-3, 3)] for _ in range(stickers)]
    times = []
    for frame in range(frames):
        for body in bodies:  # they move a little every frame, as tumbling stickers do
            body[2] += 0.05
        start = time.thread_time()
        canvas = Image.new("RGBA", (width, height), (23, 26, 31, 255))
        draw = ImageDraw.Draw(canvas)
        draw.rectangle((0, 0, width, int(short * 0.13)), fill=(10, 10, 12, 255))
        draw.text((12, 8), "Meal log", font=title, fill=(255, 255, 255, 255))
        draw.text((width * 0.7, 16), "7 analyses left today", font=small, fill=(50, 190, 100, 255))
        draw.polygon([(glass[0], glass[1]), (glass[0], glass[3]), (glass[2], glass[3]), (glass[2], glass[1])],
                     fill=(40, 42, 48, 255), outline=(170, 170, 170, 255))
        for x, y, angle in bodies:
            turned = picture.rotate(angle * 57.3, resample=Image.BILINEAR, expand=True)
            canvas.alpha_composite(turned, (int(x - turned.width / 2), int(y - turned.height / 2)))
        draw.rounded_rectangle((glass[2] + 20, glass[1], width - 12, glass[3]), 12, fill=(16, 17, 20, 255))
        draw.text((glass[2] + 36, glass[1] + 16), f"Today: {stickers} meals in the jar", font=small,
                  fill=(255, 255, 255, 255))
        draw.text((glass[2] + 36, glass[1] + 60), "Today 1800 kcal", font=small, fill=(255, 158, 41, 255))
        canvas.convert("RGB").tobytes("raw", "BGRX")
        times.append((time.thread_time() - start) * 1000)
    return statistics.median(times)


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def idle_cpu(binary, seconds, camera=True):
    """The real station in meal mode with meals in its jar: CPU over `seconds` once it settled. Without
    `camera`, the simulated camera is left out (`camera.backend = "none"`), to tell its share."""
    folder = tempfile.mkdtemp(prefix="snapstation-jar-idle-")
    config = os.path.join(folder, "snapstation.toml")
    with open(config, "w") as file:
        file.write(f"""[station]
default_mode = "meal"
time_zone = "UTC"
[display]
backend = "headless"
frames_dir = "{folder}/frames"
preview_png_fps = 10
idle_seconds = 0
[camera]
backend = "{'simulated' if camera else 'none'}"
[gpio]
backend = "simulated"
[storage]
dir = "{folder}/state"
[web]
address = "127.0.0.1"
port = 0
""")
    # A first start makes the database; 20 meals of today are then written into it (without stickers:
    # the jar draws each as a round sticker) and the station started again with them in its jar.
    import sqlite3
    station = subprocess.Popen([binary, "run", "--config", config, "--state", f"{folder}/state"],
                               stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.time() + 30
        log = ""
        while "screen: ready" not in log and time.time() < deadline:
            log += station.stderr.readline()
    finally:
        station.terminate()
        station.wait(timeout=20)
    try:
        database = os.path.join(folder, "state", "snapstation.sqlite")
        meals = sqlite3.connect(database)
        day = time.strftime("%Y-%m-%d", time.gmtime())
        for index in range(20):
            meals.execute(
                "INSERT INTO meals (id, day, taken_at, title, calories, protein, carbs, fats, items_json, photo_path,"
                " thumbnail_path) VALUES (?, ?, ?, ?, 500, 20, 50, 15, '[]', '', '')",
                (f"bench-{index}", day, time.time() - index, f"Meal {index}"))
        meals.commit()
        meals.close()
    except sqlite3.Error as error:
        raise SystemExit(f"could not seed the jar's meals: {error}")
    station = subprocess.Popen([binary, "run", "--config", config, "--state", f"{folder}/state"],
                               stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, text=True)
    try:
        time.sleep(8)  # started, drawn, settled
        frames_before = len(os.listdir(f"{folder}/frames"))
        before = cpu_seconds(station.pid)
        time.sleep(seconds)
        used = cpu_seconds(station.pid) - before
        frames_after = len(os.listdir(f"{folder}/frames"))
    finally:
        station.terminate()
        station.wait(timeout=20)
    return used / seconds * 100, frames_after - frames_before


def main():
    ensure_pillow()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=240)
    parser.add_argument("--idle-seconds", type=int, default=60)
    parser.add_argument("--binary", default=BINARY)
    args = parser.parse_args()
    release_binary(args.binary)
    result = subprocess.run([args.binary, "bench-jar", "--frames", str(args.frames)], capture_output=True,
                            text=True, check=True)
    figures = json.loads(result.stdout.strip().splitlines()[-1])
    print(f"The jar while its stickers tumble (medians of {args.frames} frames; CPU ms):")
    print(f"  {'size':<10} {'stickers':>8} {'step':>8} {'frame':>8} {'fps':>7} {'asleep in':>10} "
          f"{'Pillow':>8} {'Pillow/snap':>12}")
    for case in figures["cases"]:
        width, height = (int(v) for v in case["size"].split("x"))
        peer = pillow_frames(width, height, case["stickers"], figures["sticker"], min(args.frames, 120))
        print(f"  {case['size']:<10} {case['stickers']:>8} {case['step_ms']:>8.3f} {case['frame_ms']:>8.2f} "
              f"{case['fps']:>7.0f} {case['steps_to_sleep']:>6} steps {peer:>8.2f} {peer / case['frame_ms']:>11.1f}x")
    print("One more meal dropped into the settled jar, until it sleeps (medians; CPU ms a frame): drawn whole, "
          "and only where stickers moved, as the display does")
    print(f"  {'size':<10} {'stickers':>8} {'whole':>8} {'partial':>8} {'ratio':>7} {'screen drawn':>13}")
    for case in figures["cases"]:
        print(f"  {case['size']:<10} {case['stickers']:>8} {case['drop_whole_ms']:>8.2f} "
              f"{case['drop_partial_ms']:>8.2f} {case['drop_partial_ms'] / case['drop_whole_ms']:>6.2f}x "
              f"{case['drop_partial_share'] * 100:>12.1f}%")
    if args.idle_seconds > 0:
        percent, frames = idle_cpu(args.binary, args.idle_seconds)
        print(f"The station with 20 meals in its settled jar: {percent:.2f} % of a core over "
              f"{args.idle_seconds} s, {frames} frame file(s) written meanwhile (target: under 1 %)")
        percent, frames = idle_cpu(args.binary, args.idle_seconds, camera=False)
        print(f"The same without the simulated camera streaming: {percent:.2f} % of a core, {frames} frame file(s)")


if __name__ == "__main__":
    sys.exit(main())
