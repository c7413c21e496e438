#!/usr/bin/env python3
"""A backup of a year of meals and photos: how fast it streams, what it costs the station's memory, and
whether the station keeps taking photos meanwhile.

The release binary runs on simulated devices in group mode (the folder backend) with a year of meals
seeded (three a day, each with a photo and a thumbnail file; `storage.retention_hours` at its most, a
year, so that the photos are kept). A paired client downloads `/backup/download` to nowhere, first as fast
as it reads (the peer: GNU tar writing the same state folder to a pipe, `tar -cf - -C STATE .`, timed in
the same run, each in turn, its peak memory from GNU time), then at a phone's pace over Wi-Fi
(`--phone-mbps`) while the person presses the button every 2 s. The station's resident memory (VmRSS) is
sampled every 20 ms before and during each. Then the backup sealed with a passphrase
(`/backup/download-sealed`: scrypt, then ChaCha20-Poly1305 as it streams), against GNU tar piped through
`openssl enc -chacha20 -pbkdf2` (the same cipher without its MAC, a key from PBKDF2).

    python3 Tests/Benchmarks/backup.py [--days 364] [--photo-kb 400] [--runs 3] [--phone-mbps 25]
                                       [--binary .build/release/snapstation]

Needs the release build (built here if missing) and GNU time (apt-get install time).
"""
import argparse
import http.client
import os
import re
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

from common import BINARY, Station, page_config, release_binary  # noqa: E402  (Tests/Benchmarks/common.py)

# The station on simulated devices, logging at debug level (the pairing code is logged there).
SIMULATED = ("--simulate", "--log-level", "debug")


def write_config(folder, web=True):
    # A year of photos kept (retention at its most), the group's folder backend, a 1 s countdown.
    return page_config(folder, web, "group", """[group]
name = "Family"
[countdown]
seconds = 1
[storage]
retention_hours = 8760
""")


def seed(state, days, photo_kb):
    """Three meals a day for `days` days before today, each with a photo of `photo_kb` kB and a thumbnail of
    a tenth of it (random bytes: the backup reads files, it does not decode them). The bytes written."""
    database = sqlite3.connect(os.path.join(state, "snapstation.sqlite"))
    now = time.time()
    written = 0
    photo, thumb = os.urandom(photo_kb * 1024), os.urandom(photo_kb * 102)
    for back in range(1, days + 1):
        day = time.strftime("%Y-%m-%d", time.gmtime(now - back * 86400))
        folder = os.path.join(state, "photos", day)
        os.makedirs(folder, exist_ok=True)
        for meal in range(3):
            photo_id = f"year-{back:03d}-{meal}"
            taken = now - back * 86400 + meal * 3600
            paths = (os.path.join(folder, f"{photo_id}.jpg"), os.path.join(folder, f"{photo_id}-thumb.jpg"))
            for path, data in zip(paths, (photo, thumb)):
                with open(path, "wb") as f:
                    f.write(data)
                written += len(data)
            database.execute("INSERT INTO photos (id, taken_at, photo_path, thumbnail_path) VALUES (?, ?, ?, ?)",
                             (photo_id, taken, *paths))
            database.execute(
                "INSERT INTO meals (id, day, taken_at, title, calories, protein, carbs, fats, items_json, photo_path,"
                " thumbnail_path, fun_fact) VALUES (?, ?, ?, ?, ?, 30, 60, 20, '[]', ?, ?, NULL)",
                (photo_id, day, taken, f"Meal {meal} of day {back}", 500 + (back * 37 + meal * 101) % 400, *paths))
    database.commit()
    database.close()
    return written


def csrf_token(port, headers):
    """The session's CSRF token, from the backup page's forms."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    connection.request("GET", "/backup", headers=headers)
    page = connection.getresponse().read().decode()
    connection.close()
    return re.search(r'name="csrf" value="([^"]+)"', page).group(1)


def download(port, headers, mbps=0, passphrase=None, token=None):
    """Reads the backup to nowhere (sealed with `passphrase` when one is given, with the form's `token`), at
    most `mbps` MB a second (0: as fast as it comes); its size and seconds."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    started = time.perf_counter()
    if passphrase:
        form = urllib.parse.urlencode({"csrf": token, "passphrase": passphrase, "again": passphrase})
        connection.request("POST", "/backup/download-sealed", body=form,
                           headers={**headers, "Content-Type": "application/x-www-form-urlencoded"})
    else:
        connection.request("GET", "/backup/download", headers=headers)
    response = connection.getresponse()
    if response.status != 200:
        raise RuntimeError(f"the backup's download: {response.status}")
    size = 0
    while True:
        piece = response.read(256 * 1024)
        if not piece:
            break
        size += len(piece)
        if mbps:
            ahead = started + size / (mbps * 1e6) - time.perf_counter()
            if ahead > 0:
                time.sleep(ahead)
    connection.close()
    return size, time.perf_counter() - started


def tar(state, sealed=False):
    """GNU tar of the state folder to a pipe read to nowhere (through `openssl enc` when `sealed`): seconds
    and peak kB (GNU time)."""
    through = "openssl enc -chacha20 -pbkdf2 -iter 600000 -pass pass:correct-horse-battery" if sealed else "cat"
    started = time.perf_counter()
    result = subprocess.run(
        ["/usr/bin/time", "-f", "%M", "sh", "-c", f"tar -cf - -C '{state}' . | {through} > /dev/null"],
        stderr=subprocess.PIPE, text=True, check=True)
    return time.perf_counter() - started, int(result.stderr.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--days", type=int, default=364)
    parser.add_argument("--photo-kb", type=int, default=400)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--phone-mbps", type=float, default=25)
    parser.add_argument("--binary", default=BINARY)
    args = parser.parse_args()
    if not os.path.exists("/usr/bin/time"):
        sys.exit("GNU time is missing: apt-get install time")
    release_binary(args.binary)
    folder = tempfile.mkdtemp(prefix="backup-bench-")
    state = os.path.join(folder, "state")
    try:
        # The store's schema, from the station itself.
        station = Station(args.binary, write_config(folder, web=False), state, arguments=SIMULATED)
        station.wait("screen: ready")
        station.stop()
        written = seed(state, args.days, args.photo_kb)
        print(f"seeded {args.days * 3} meals over {args.days} days, {written / 1e6:.0f} MB of photos", flush=True)

        station = Station(args.binary, write_config(folder), state, arguments=SIMULATED)
        port = int(station.match(r"listening=127\.0\.0\.1:(\d+)"))
        station.wait("screen: ready")
        headers = station.pair(port)
        station.wait("screen: ready", after=station.mark())
        time.sleep(3)

        def anonymous():
            """The station's anonymous resident kB (RssAnon: its heap, stacks and mappings of its own), apart
            from the pages of its files (RssFile: the binary's and the libraries' code, shared and clean)."""
            with open(f"/proc/{station.process.pid}/status") as status:
                return int(next(line for line in status if line.startswith("RssAnon:")).split()[1])

        anon = {"growth": 0}

        def measured(mbps, press, seconds=None, passphrase=None):
            """One download (or, with `seconds`, none: that long at rest): its size and seconds, the
            station's RSS growth over its median at rest (2 s before) and at its peak, and the photos taken
            meanwhile (a press every 2 s when `press`). A sealed one's form is read before the station's
            rest is measured, as the phone has the backup page open before its owner presses the button:
            the page's own making is not the backup's (its leftovers in the heap were +1.5 MB and more)."""
            token = csrf_token(port, headers) if passphrase else None
            before, before_anon = [], []
            for _ in range(100):
                before.append(station.memory()[0])
                before_anon.append(anonymous())
                time.sleep(0.02)
            samples, anon_samples, result = [], [], {}
            mark = station.mark()
            fetch = ((lambda: (0, time.sleep(seconds) or seconds)) if seconds
                     else (lambda: download(port, headers, mbps, passphrase, token)))
            worker = threading.Thread(target=lambda: result.update(zip(("size", "seconds"), fetch())))
            worker.start()
            pressed = time.monotonic()
            while worker.is_alive():
                samples.append(station.memory()[0])
                anon_samples.append(anonymous())
                if press and time.monotonic() - pressed >= 2:
                    station.type("press")
                    pressed = time.monotonic()
                time.sleep(0.02)
            worker.join()
            anon["growth"] = max(anon_samples + [0]) - statistics.median(before_anon)
            done = sum(1 for _, line in station.lines[mark:] if "screen: group-review" in line)
            if press:
                # Back to rest (the review waits to be sent or dropped).
                station.type("hold")
                time.sleep(3)
            return result["size"], result["seconds"], max(samples + [0]) - statistics.median(before), max(samples), done

        ours, theirs, growths, sizes, tar_peaks = [], [], [], [], []
        for run in range(args.runs):
            size, seconds, growth, peak, _ = measured(0, press=False)
            ours.append(seconds)
            sizes.append(size)
            growths.append(growth)
            tar_seconds, tar_peak = tar(state)
            theirs.append(tar_seconds)
            tar_peaks.append(tar_peak)
            print(f"  run {run + 1}: backup {size / 1e6:.0f} MB in {seconds:.2f} s, RSS +{growth / 1024:.1f} MB "
                  f"(peak {peak / 1024:.1f} MB); tar {tar_seconds:.2f} s, {tar_peak / 1024:.1f} MB", flush=True)
        sealed, sealed_tar, sealed_growths, sealed_anon = [], [], [], []
        for run in range(args.runs):
            size, seconds, growth, peak, _ = measured(0, press=False, passphrase="correct horse battery")
            sealed.append(seconds)
            sealed_growths.append(growth)
            sealed_anon.append(anon["growth"])
            tar_seconds, _ = tar(state, sealed=True)
            sealed_tar.append(tar_seconds)
            print(f"  run {run + 1}: sealed backup {size / 1e6:.0f} MB in {seconds:.2f} s, RSS +{growth / 1024:.1f} MB "
                  f"(anonymous +{anon['growth'] / 1024:.1f} MB; peak {peak / 1024:.1f} MB); "
                  f"tar | openssl enc {tar_seconds:.2f} s", flush=True)
        # The station's own spread over as long, doing nothing: its simulated camera's preview frames (1.5 MB
        # each at 800x480) come and go, so the growth above holds that much that is not the backup's.
        rests = [measured(0, press=False, seconds=statistics.median(sealed))[2] for _ in range(args.runs)]
        # At a phone's pace: the backup alone, then photos alone for as long, then both at once.
        alone = [measured(args.phone_mbps, press=False) for _ in range(args.runs)]
        phone_seconds = statistics.median(run[1] for run in alone)
        alone_growths = [run[2] for run in alone]
        alone_growth, alone_peak = statistics.median(alone_growths), max(run[3] for run in alone)
        _, _, rest_growth, rest_peak, _ = measured(0, press=False, seconds=phone_seconds)
        _, _, photos_growth, photos_peak, photos_alone = measured(0, press=True, seconds=phone_seconds)
        _, both_seconds, both_growth, both_peak, photos = measured(args.phone_mbps, press=True)
        station.stop()

        ours_median, theirs_median = statistics.median(ours), statistics.median(theirs)
        print(f"A backup of {args.days} days ({args.days * 3} meals, {statistics.median(sizes) / 1e6:.0f} MB), "
              f"{args.runs} runs, medians:")
        print(f"  snapstation /backup/download   {ours_median:6.2f} s  "
              f"{statistics.median(sizes) / 1e6 / ours_median:6.0f} MB/s  "
              f"RSS growth {statistics.median(growths) / 1024:.1f} MB (most {max(growths) / 1024:.1f} MB)")
        print(f"  tar -cf - | cat (GNU tar)      {theirs_median:6.2f} s  "
              f"{statistics.median(sizes) / 1e6 / theirs_median:6.0f} MB/s  peak RSS {statistics.median(tar_peaks) / 1024:.1f} MB")
        print(f"  ratio (snapstation / tar): {ours_median / theirs_median:.2f}")
        sealed_median, sealed_tar_median = statistics.median(sealed), statistics.median(sealed_tar)
        print(f"  snapstation, sealed            {sealed_median:6.2f} s  "
              f"{statistics.median(sizes) / 1e6 / sealed_median:6.0f} MB/s  "
              f"RSS growth {statistics.median(sealed_growths) / 1024:.1f} MB (most {max(sealed_growths) / 1024:.1f} MB; "
              f"anonymous {statistics.median(sealed_anon) / 1024:.1f}, most {max(sealed_anon) / 1024:.1f} MB)")
        print(f"  the station at rest as long       RSS growth {statistics.median(rests) / 1024:.1f} MB "
              f"(most {max(rests) / 1024:.1f} MB)")
        print(f"  tar | openssl enc -chacha20     {sealed_tar_median:6.2f} s  "
              f"{statistics.median(sizes) / 1e6 / sealed_tar_median:6.0f} MB/s")
        print(f"  ratio (sealed / tar | openssl enc): {sealed_median / sealed_tar_median:.2f}")
        print(f"At a phone's pace ({args.phone_mbps:g} MB/s, {phone_seconds:.1f} s), RSS over the station at rest:")
        print(f"  nothing (the station at rest)     +{rest_growth / 1024:5.1f} MB (peak {rest_peak / 1024:.1f} MB)")
        print(f"  the backup alone ({args.runs} runs)        +{alone_growth / 1024:5.1f} MB median, most "
              f"+{max(alone_growths) / 1024:.1f} MB (peak {alone_peak / 1024:.1f} MB)")
        print(f"  photos alone, a press every 2 s   +{photos_growth / 1024:5.1f} MB (peak {photos_peak / 1024:.1f} MB), "
              f"{photos_alone} photos")
        print(f"  both at once                      +{both_growth / 1024:5.1f} MB (peak {both_peak / 1024:.1f} MB), "
              f"{photos} photos taken during the backup's {both_seconds:.1f} s")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
