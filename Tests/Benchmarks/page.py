#!/usr/bin/env python3
"""The owner's page under load, and what the page costs in memory.

The release binary runs on simulated devices with 500 meals stored for today. A paired client asks for
the Today page (every meal with its thumbnail, title, time and macros, and the day's totals) over one
kept-alive connection; the peer is the same page rendered by Python's standard library (http.server,
sqlite3 and html.escape over the same database file), asked for by the same client in the same run. The
station's resident memory (VmRSS, and its private part from smaps_rollup) is read idle with the page off
(web.enabled = false), idle with it on, and after the requests.

    python3 Tests/Benchmarks/page.py [--meals 500] [--requests 300] [--history-days 365]
                                     [--binary .build/release/snapstation]

History is timed the same way over a year of meals (three a day before today): the list of days and the
two SVG charts of the last 7 and 30 days, against the peer rendering the same list and the same bars.

Needs the release build (built here if missing).
"""
import argparse
import html
import http.client
import http.server
import os
import shutil
import sqlite3
import statistics
import sys
import tempfile
import threading
import time

from common import BINARY, ROOT, Station, page_config, release_binary  # noqa: E402  (Tests/Benchmarks/common.py)



# The station on simulated devices, logging at debug level (the pairing code is logged there).
SIMULATED = ("--simulate", "--log-level", "debug")


def write_config(folder, web):
    return page_config(folder, web, "meal")


def seed(state, meals):
    """`meals` meals for today, each with a real thumbnail file, written as the station's schema has them."""
    database = sqlite3.connect(os.path.join(state, "snapstation.sqlite"))
    day = time.strftime("%Y-%m-%d", time.gmtime())
    folder = os.path.join(state, "photos", day)
    os.makedirs(folder, exist_ok=True)
    sample = os.path.join(ROOT, "docs", "screens", "landscape-800x480.jpg")
    items = ('[{"name":"Spaghetti","grams":200,"macros":{"calories":320,"protein":11,"carbs":64,"fats":2},'
             '"contains":["gluten"],"ingredients":[]},{"name":"Tomato sauce","grams":150,"macros":{"calories":210,'
             '"protein":3,"carbs":15,"fats":11},"contains":[],"ingredients":[]}]')
    now = time.time()
    for index in range(meals):
        photo_id = f"bench-{index:04d}"
        photo = os.path.join(folder, f"{photo_id}.jpg")
        thumb = os.path.join(folder, f"{photo_id}-thumb.jpg")
        shutil.copyfile(sample, photo)
        shutil.copyfile(sample, thumb)
        taken = now - (meals - index) * 60
        database.execute("INSERT INTO photos (id, taken_at, photo_path, thumbnail_path) VALUES (?, ?, ?, ?)",
                         (photo_id, taken, photo, thumb))
        database.execute(
            "INSERT INTO meals (id, day, taken_at, title, calories, protein, carbs, fats, items_json, photo_path,"
            " thumbnail_path, fun_fact) VALUES (?, ?, ?, ?, 530, 14, 79, 13, ?, ?, ?, ?)",
            (photo_id, day, taken, f"Spaghetti <{index}> & sauce", items, photo, thumb, "A fact."))
    database.commit()
    database.close()


def seed_history(state, days):
    """Three meals a day for each of the `days` days before today: a year of the meal log."""
    database = sqlite3.connect(os.path.join(state, "snapstation.sqlite"))
    now = time.time()
    for back in range(1, days + 1):
        day = time.strftime("%Y-%m-%d", time.gmtime(now - back * 86400))
        for meal in range(3):
            photo_id = f"year-{back:03d}-{meal}"
            taken = now - back * 86400 + meal * 3600
            database.execute(
                "INSERT INTO meals (id, day, taken_at, title, calories, protein, carbs, fats, items_json, photo_path,"
                " thumbnail_path, fun_fact) VALUES (?, ?, ?, ?, ?, 30, 60, 20, '[]', '', '', NULL)",
                (photo_id, day, taken, f"Meal {meal} of day {back}", 500 + (back * 37 + meal * 101) % 400))
    database.commit()
    database.close()


class PeerHandler(http.server.BaseHTTPRequestHandler):
    """The same Today page from Python's standard library, from the same database file."""
    protocol_version = "HTTP/1.1"
    database_path = ""
    # The headers and the body go out in two writes: with Nagle's algorithm on, a small second write waits
    # for the client's delayed ACK (40 ms), which would time the kernel, not the page.
    disable_nagle_algorithm = True

    def log_message(self, *args):
        pass

    def do_GET(self):
        if self.path == "/history":
            return self.history()
        database = sqlite3.connect(self.database_path)
        day = time.strftime("%Y-%m-%d", time.gmtime())
        rows = database.execute(
            "SELECT id, title, taken_at, calories, protein, carbs, fats, thumbnail_path FROM meals WHERE day = ?"
            " ORDER BY taken_at", (day,)).fetchall()
        database.close()
        totals = [sum(row[i] for row in rows) for i in (3, 4, 5, 6)]
        parts = [f"<!doctype html><html><head><title>Today</title></head><body><main><h1>Today</h1>"
                 f"<section class=\"totals\">{totals[0]} kcal P {totals[1]} C {totals[2]} F {totals[3]}</section>"
                 "<ul class=\"meals\">"]
        for row in reversed(rows):
            thumb = os.path.exists(row[7])
            clock = time.strftime("%H:%M", time.gmtime(row[2]))
            parts.append(
                f"<li><a href=\"/meal/{html.escape(row[0])}\">"
                + (f"<img src=\"/photo/{html.escape(row[0])}.thumb.jpg\">" if thumb else "")
                + f"<b>{html.escape(row[1])}</b><small>{clock}</small>"
                f"<span>{row[3]} kcal P {row[4]} C {row[5]} F {row[6]}</span></a></li>")
        parts.append("</ul></main></body></html>")
        self.send_html(parts)


    def send_html(self, parts):
        body = "".join(parts).encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def history(self):
        """History as the station draws it: the days with meals (the last 120), and two charts of the last
        7 and 30 days' kcal split into protein, carbs and fats, as SVG rectangles."""
        database = sqlite3.connect(self.database_path)
        days = database.execute("SELECT day, COUNT(*), SUM(calories) FROM meals GROUP BY day ORDER BY day DESC"
                                " LIMIT 120").fetchall()
        first = time.strftime("%Y-%m-%d", time.gmtime(time.time() - 29 * 86400))
        totals = {row[0]: row[1:] for row in database.execute(
            "SELECT day, SUM(calories), SUM(protein), SUM(carbs), SUM(fats) FROM meals WHERE day >= ?"
            " GROUP BY day", (first,))}
        database.close()
        parts = ["<!doctype html><html><head><title>History</title></head><body><main><h1>History</h1>"]
        for span in (7, 30):
            parts.append('<svg class="chart" viewBox="0 0 700 220">')
            highest = max([row[0] for row in totals.values()] + [100]) * 1.05
            for index in range(span):
                day = time.strftime("%Y-%m-%d", time.gmtime(time.time() - (span - 1 - index) * 86400))
                if day not in totals:
                    continue
                kcal, protein, carbs, fats = totals[day]
                energy = [protein * 4, carbs * 4, fats * 9]
                base, x = 0.0, 44 + 648 / span * index
                parts.append(f'<g data-day="{day}" data-kcal="{kcal}"><title>{html.escape(day)}: {kcal} kcal</title>')
                for share, name in zip(energy, "pcf"):
                    top = base + kcal * share / sum(energy)
                    parts.append(f'<rect class="{name}" x="{x:.1f}" y="{186 - 174 * top / highest:.1f}" '
                                 f'width="{648 / span * 0.7:.1f}" height="{174 * (top - base) / highest:.1f}"/>')
                    base = top
                parts.append("</g>")
            parts.append("</svg>")
        parts.append('<ul class="days">')
        for day, count, kcal in days:
            parts.append(f'<li><a href="/day/{day}"><b>{html.escape(day)}</b><span>{count} meals · {kcal} kcal'
                         "</span></a></li>")
        parts.append("</ul></main></body></html>")
        self.send_html(parts)


def timed_gets(port, path, count, headers):
    """Milliseconds per GET over one kept-alive connection, and the last body's size."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    times = []
    size = 0
    for _ in range(count):
        started = time.perf_counter()
        connection.request("GET", path, headers=headers)
        response = connection.getresponse()
        body = response.read()
        times.append((time.perf_counter() - started) * 1000)
        if response.status != 200:
            raise RuntimeError(f"GET {path}: {response.status}")
        size = len(body)
    connection.close()
    return times, size


def alternating(first, second, count):
    """Milliseconds per GET for two servers asked in turn, one request each, over a kept-alive connection
    each (after ten each to warm up); and each last body's size. `first` and `second`: (port, path,
    headers)."""
    connections = [http.client.HTTPConnection("127.0.0.1", port, timeout=30) for port, _, _ in (first, second)]
    times = ([], [])
    sizes = [0, 0]
    for round in range(count + 10):
        for which, (_, path, headers) in enumerate((first, second)):
            started = time.perf_counter()
            connections[which].request("GET", path, headers=headers)
            response = connections[which].getresponse()
            body = response.read()
            if response.status != 200:
                raise RuntimeError(f"GET {path}: {response.status}")
            if round >= 10:
                times[which].append((time.perf_counter() - started) * 1000)
            sizes[which] = len(body)
    for connection in connections:
        connection.close()
    return (times[0], sizes[0]), (times[1], sizes[1])


# The page's target against a plain page from Python's standard library in the same run (issue 35).
TARGET_RATIO = 0.6


def verdict(ratio):
    return f"(target at most {TARGET_RATIO}: {'met' if ratio <= TARGET_RATIO else 'NOT met'})"


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(fraction * (len(ordered) - 1))))]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--meals", type=int, default=500)
    parser.add_argument("--requests", type=int, default=300)
    parser.add_argument("--history-days", type=int, default=365)
    parser.add_argument("--binary", default=BINARY)
    args = parser.parse_args()
    release_binary(args.binary)
    folder = tempfile.mkdtemp(prefix="page-bench-")
    state = os.path.join(folder, "state")
    try:
        # Memory without the page: idle on the ready screen for a while.
        station = Station(args.binary, write_config(folder, web=False), state, arguments=SIMULATED)
        station.wait("screen: ready")
        time.sleep(8)
        off = station.memory()
        station.stop()
        seed(state, args.meals)
        seed_history(state, args.history_days)

        station = Station(args.binary, write_config(folder, web=True), state, arguments=SIMULATED)
        port = int(station.match(r"listening=127\.0\.0\.1:(\d+)"))
        station.wait("screen: ready")
        time.sleep(8)
        on_idle = station.memory()
        headers = station.pair(port)

        # The peer serves the same database file while the station runs, and the two are asked in turn, one
        # request each, over a kept-alive connection each: whatever else the machine does in the meantime
        # (the station's own display, another process) falls on both alike.
        PeerHandler.database_path = os.path.join(state, "snapstation.sqlite")
        peer = http.server.ThreadingHTTPServer(("127.0.0.1", 0), PeerHandler)
        threading.Thread(target=peer.serve_forever, daemon=True).start()
        peer_port = peer.server_address[1]
        (station_times, station_bytes), (peer_times, peer_bytes) = alternating(
            (port, "/", headers), (peer_port, "/", {}), args.requests)
        (history_times, history_bytes), (peer_history, peer_history_bytes) = alternating(
            (port, "/history", headers), (peer_port, "/history", {}), args.requests)
        floor_times, _ = timed_gets(port, "/shopping.txt", args.requests, headers)
        on_busy = station.memory()
        station.stop()
        peer.shutdown()

        station_median, peer_median = statistics.median(station_times), statistics.median(peer_times)
        print(f"Today page with {args.meals} meals, {args.requests} requests over one connection "
              f"(python3 {sys.version.split()[0]} as the peer, same database, same client, asked in turn):")
        print(f"  snapstation   median {station_median:6.2f} ms  p99 {percentile(station_times, 0.99):6.2f} ms  "
              f"{station_bytes / 1024:.0f} KB")
        print(f"  python peer   median {peer_median:6.2f} ms  p99 {percentile(peer_times, 0.99):6.2f} ms  "
              f"{peer_bytes / 1024:.0f} KB")
        print(f"  ratio (snapstation / peer, medians): {station_median / peer_median:.2f}  {verdict(station_median / peer_median)}")
        history_median, peer_history_median = statistics.median(history_times), statistics.median(peer_history)
        print(f"History with a year of meals ({args.history_days} days, 3 a day; the days list and the 7- and "
              f"30-day charts), {args.requests} requests:")
        print(f"  snapstation   median {history_median:6.2f} ms  p99 {percentile(history_times, 0.99):6.2f} ms  "
              f"{history_bytes / 1024:.0f} KB")
        print(f"  python peer   median {peer_history_median:6.2f} ms  p99 {percentile(peer_history, 0.99):6.2f} ms  "
              f"{peer_history_bytes / 1024:.0f} KB")
        print(f"  ratio (snapstation / peer, medians): {history_median / peer_history_median:.2f}  "
              f"{verdict(history_median / peer_history_median)}")
        print(f"The page's floor, a paired GET of a short text (/shopping.txt, an empty list): median "
              f"{statistics.median(floor_times):.2f} ms")
        print("resident memory of the station (VmRSS, private part):")
        print(f"  page off, idle         {off[0] / 1024:6.1f} MB  ({off[1] / 1024:.1f} MB private)")
        print(f"  page on, idle          {on_idle[0] / 1024:6.1f} MB  ({on_idle[1] / 1024:.1f} MB private)")
        print(f"  page on, after {args.requests} pages {on_busy[0] / 1024:6.1f} MB  ({on_busy[1] / 1024:.1f} MB private)")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
