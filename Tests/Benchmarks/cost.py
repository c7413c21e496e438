#!/usr/bin/env python3
"""What the station costs while it runs for months: start-up time, CPU once idle, the wake from idle, and
memory after captures.

The real binary (release build) on its simulated devices, driven by button words on standard input:

* start-up: process start to the first screen ("screen: ready", when systemd is told READY=1), five
  starts, and the station's own breakdown of what the start waited on ("started in … ms").
* idle: group mode with a short idle time; once the idle screen shows and the camera stopped, CPU over
  `--idle-seconds` (target: at most 0.5 % of a core); the same with the jar (meal mode's ready screen).
* wake: a press on the idle screen to the camera's first frame ("camera: streaming", target 300 ms), and
  to the countdown's screen.
* memory: resident and private dirty memory (the heap and stacks: what the allocator keeps) idle, after
  10 and after 100 captures (press, processed, hold to skip the share), from /proc (target: at most 75 MB
  resident, private within 10 MB of idle). Private_Clean is left out: whether a library's pages count as
  private depends on which other processes map the same file at that moment.

    python3 Tests/Benchmarks/cost.py [--idle-seconds 60] [--captures 100] [--compare] [--binary .build/release/snapstation]
"""
import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time

from common import BINARY, Station, release_binary  # noqa: E402  (Tests/Benchmarks/common.py)


def write_config(folder, mode="group", idle_seconds=5, camera="simulated"):
    path = os.path.join(folder, f"snapstation-{mode}.toml")
    with open(path, "w") as file:
        file.write(f"""[station]
default_mode = "{mode}"
time_zone = "UTC"
[countdown]
seconds = 1
[display]
backend = "headless"
frames_dir = "{folder}/frames"
preview_png_fps = 10
idle_seconds = {idle_seconds}
[camera]
backend = "{camera}"
[gpio]
backend = "simulated"
[group]
name = "Bench"
review_seconds = 30
[jar]
days = "today"
[ai]
# Nothing answers here (the discard port): the wake is measured before any request.
base_url = "http://127.0.0.1:9/v1"
key_source = "env:COST_AI_KEY"
[storage]
dir = "{folder}/state"
[web]
address = "127.0.0.1"
port = 0
""")
    return path


# What systemd/snapstation.service sets: LTTng's start-up walk over every library's ELF headers, off.
AS_THE_UNIT_RUNS_IT = {"LTTNG_UST_WITHOUT_BADDR_STATEDUMP": "1"}


def start_up(binary, folder, runs=5, environment=None):
    times, breakdown = [], ""
    for _ in range(runs):
        station = Station(binary, write_config(folder, idle_seconds=0), f"{folder}/state", environment=environment)
        shown, _ = station.wait("screen: ready", timeout=60)
        times.append((shown - station.started) * 1000)
        breakdown = station.match(r"started in (.*)", timeout=10)
        station.stop()
    return statistics.median(times), min(times), breakdown


def idle_cpu(binary, folder, seconds, mode):
    # Group mode goes to the idle screen after 5 s; meal mode's ready screen is the jar, which needs no
    # camera from the start.
    station = Station(binary, write_config(folder, mode=mode, idle_seconds=5 if mode == "group" else 0),
                      f"{folder}/state", environment={"COST_AI_KEY": "not-a-key"})
    try:
        station.wait("screen: ready", timeout=60)
        if mode == "group":
            station.wait("screen: idle", timeout=30)
            station.wait("camera: stopped", timeout=30)
        else:
            # 20 s into the jar the camera wakes for a second for the empty scene (the sticker's
            # reference), then sleeps again: measured after that.
            station.wait("took a reference frame", timeout=60)
        time.sleep(3)
        last = {word: max([i for i, (_, line) in enumerate(station.lines) if f"camera: {word}" in line], default=-1)
                for word in ("streaming", "stopped")}
        if last["streaming"] > last["stopped"]:
            raise SystemExit(f"the camera still streams on the {mode} mode's idle screen")
        before = station.cpu_seconds()
        time.sleep(seconds)
        percent = (station.cpu_seconds() - before) / seconds * 100
        # The wake: a press on the idle screen.
        sent, start = station.type("press")
        countdown, _ = station.wait("screen: countdown", after=start, timeout=10)
        streaming, index = station.wait("camera: streaming", after=start, timeout=10)
        own = station.lines[index][1].split("wake_ms=")[1].split()[0]
        return percent, (countdown - sent) * 1000, (streaming - sent) * 1000, own
    finally:
        station.stop()


def memory(binary, folder, captures, environment=None, breakdowns=None):
    station = Station(binary, write_config(folder, idle_seconds=0), f"{folder}/state", environment=environment)
    figures = []
    try:
        station.wait("screen: ready", timeout=60)
        time.sleep(2)
        figures.append((0, station.memory()[0], station.dirty()))
        if breakdowns is not None:
            breakdowns["idle"] = station.breakdown()
        for capture in range(1, captures + 1):
            _, start = station.type("press")
            station.wait("screen: group-review", after=start, timeout=60)
            _, start = station.type("hold")
            station.wait("screen: ready", after=start, timeout=60)
            if capture in (1, 10, 100) or capture == captures:
                time.sleep(1)
                figures.append((capture, station.memory()[0], station.dirty()))
                if breakdowns is not None and capture == captures:
                    breakdowns[f"after {capture} captures"] = station.breakdown()
    finally:
        station.stop()
    return figures


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=BINARY)
    parser.add_argument("--idle-seconds", type=int, default=60)
    parser.add_argument("--captures", type=int, default=100)
    parser.add_argument("--compare", action="store_true", help="memory with glibc's default policy too")
    args = parser.parse_args()
    release_binary(args.binary)
    folder = tempfile.mkdtemp(prefix="snapstation-cost-")
    failed = []
    try:
        median, best, breakdown = start_up(args.binary, folder, environment=AS_THE_UNIT_RUNS_IT)
        print(f"start-up to the first screen: median {median:.0f} ms, best {best:.0f} ms of 5; last: {breakdown}")
        median, best, breakdown = start_up(args.binary, folder, environment={"LTTNG_UST_WITHOUT_BADDR_STATEDUMP": None})
        print(f"  … without the unit's LTTNG_UST_WITHOUT_BADDR_STATEDUMP=1: median {median:.0f} ms, best {best:.0f} ms")
        for mode, name in (("group", "idle screen"), ("meal", "the jar")):
            percent, countdown, streaming, own = idle_cpu(args.binary, folder, args.idle_seconds, mode)
            print(f"idle ({name}, camera stopped): {percent:.2f} % of a core over {args.idle_seconds} s "
                  f"(target: at most 0.5 %)")
            print(f"  wake: press to countdown {countdown:.0f} ms, to the camera's first frame {streaming:.0f} ms "
                  f"(the station's own figure: {own} ms; target 300 ms)")
            if percent > 0.5 or streaming > 300:
                failed.append(name)
        # The station's allocator policy (MemoryPolicy.swift), then glibc's defaults for comparison.
        for policy, environment in (("the station's", None), ("glibc's default", {"SNAPSTATION_MALLOC": "default"})):
            breakdowns = {} if environment is None else None
            figures = memory(args.binary, folder, args.captures, environment, breakdowns)
            idle_private = figures[0][2]
            for capture, rss, private in figures:
                print(f"memory, {policy} allocator policy, after {capture:>3} captures: {rss / 1024:.1f} MB resident, "
                      f"{private / 1024:.1f} MB private dirty ({(private - idle_private) / 1024:+.1f} MB over idle)")
                if environment is None and capture in (10, 100) and (
                        rss > 75 * 1024 or private - idle_private > 10 * 1024):
                    failed.append(f"memory after {capture}")
            for when, parts in (breakdowns or {}).items():
                print(f"  resident by mapping, {when}: " + ", ".join(f"{name} {kb / 1024:.1f}" for name, kb in parts)
                      + " (MB)")
            if not args.compare:
                break
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    if failed:
        print("over target:", ", ".join(failed))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
