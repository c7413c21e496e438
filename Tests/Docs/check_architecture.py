#!/usr/bin/env python3
"""docs/architecture.md's table of which target imports which, checked against the sources' imports.

The picture of the targets is only worth reading while it is true: this reads every `import` in
Sources/<target>/**/*.swift, keeps the project's own targets, and compares with the table between the
`imports:begin` and `imports:end` marks. Prints each difference and exits 1; ends with the closing line
"N passed, N failed".
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
IMPORT = re.compile(r"^(?:@preconcurrency |@testable |internal |public |private )*import (\w+)")


def source_imports():
    targets = {}
    sources = os.path.join(ROOT, "Sources")
    for target in sorted(os.listdir(sources)):
        folder = os.path.join(sources, target)
        if target == "CSystem" or not os.path.isdir(folder):
            continue
        found = set()
        for root, _, files in os.walk(folder):
            for name in files:
                if name.endswith(".swift"):
                    with open(os.path.join(root, name), encoding="utf-8") as source:
                        for line in source:
                            match = IMPORT.match(line)
                            if match:
                                found.add(match.group(1))
        targets[target] = found
    own = set(targets)
    return {target: sorted(found & own - {target}) for target, found in targets.items()}


def documented():
    with open(os.path.join(ROOT, "docs/architecture.md"), encoding="utf-8") as doc:
        text = doc.read()
    table = text.split("<!-- imports:begin -->")[1].split("<!-- imports:end -->")[0]
    rows = {}
    for line in table.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) != 2 or cells[0] in ("target", "---"):
            continue
        rows[cells[0]] = [] if cells[1] == "—" else [name.strip() for name in cells[1].split(",")]
    return rows


def main():
    real, doc = source_imports(), documented()
    passed = failed = 0
    for target in sorted(set(real) | set(doc)):
        if real.get(target) == sorted(doc.get(target, [])) and target in doc:
            passed += 1
            continue
        failed += 1
        print(f"{target}: the sources import {real.get(target)}, docs/architecture.md says {doc.get(target)}")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
