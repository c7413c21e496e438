#!/usr/bin/env python3
"""The slowest tests of one or more `swift test` logs (Swift Testing's and XCTest's lines): COUNT of them,
each with its slowest time and its time in each log, for `Tests/run --stress`.

    slowest_tests.py COUNT LOG...
"""
import re
import sys

# ✔ Test "should …" passed after 1.234 seconds.  /  ✘ Test "…" with 3 test cases failed after 2.5 seconds …
SWIFT_TESTING = re.compile(r'Test "(.+?)"(?: with \d+ test cases?)? (?:passed|failed) after ([0-9.]+) seconds')
# Test Case '-[Target.Class method]' passed (0.123 seconds).  /  Test Case 'Class.method' failed (…)
XCTEST = re.compile(r"Test Case '(.+?)' (?:passed|failed) \(([0-9.]+) seconds\)")
# ◇ Slot: "should …" ran 12.345 s, waited 3.2 s: a test that starts programs (SnapTestSupport's
# StartsProcesses), its own time without its wait for a slot, which Swift Testing's time counts.
SLOT = re.compile(r'◇ Slot: "(.+?)" ran ([0-9.]+) s')


def times(path):
    found, own = {}, {}
    with open(path, encoding="utf-8", errors="replace") as log:
        for line in log:
            match = SLOT.search(line)
            if match:
                # A parameterized test's cases each take a slot: the test's own time is theirs together.
                own[match.group(1)] = own.get(match.group(1), 0) + float(match.group(2))
                continue
            for pattern in (SWIFT_TESTING, XCTEST):
                match = pattern.search(line)
                if match:
                    found[match.group(1)] = float(match.group(2))
    found.update(own)
    return found


def main():
    count, paths = int(sys.argv[1]), sys.argv[2:]
    rounds = [times(path) for path in paths]
    names = set().union(*rounds) if rounds else set()
    slowest = sorted(names, key=lambda name: -max(r.get(name, 0) for r in rounds))[:count]
    for name in slowest:
        each = " ".join(f"{r[name]:7.1f}" if name in r else "      -" for r in rounds)
        print(f"{max(r.get(name, 0) for r in rounds):7.1f} s  [{each} ]  {name}")


if __name__ == "__main__":
    main()
