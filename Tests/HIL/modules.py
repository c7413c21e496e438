#!/usr/bin/env python3
"""Lists kernel modules in the order insmod must load them, dependencies first.

There is no kmod on the host and no modules.dep in Debian's kernel package, so each module's
dependencies are read from its own .modinfo section ("depends=a,b"), found under the image's module
tree or among the modules built out of tree.

    modules.py --tree IMAGE/lib/modules/ABI --extra DIR --out DIR MODULE...

Copies every module needed into --out and prints their file names in load order.
"""
import argparse
import os
import shutil
import subprocess
import sys


def modinfo(path):
    raw = subprocess.run(
        ["objcopy", "-O", "binary", "--only-section=.modinfo", path, "/dev/stdout"],
        capture_output=True, check=True).stdout
    fields = {}
    for entry in raw.split(b"\0"):
        if b"=" in entry:
            key, value = entry.decode(errors="replace").split("=", 1)
            fields.setdefault(key, value)
    return fields


def index(roots):
    found = {}
    for root in roots:
        for folder, _, files in os.walk(root):
            for name in files:
                if name.endswith(".ko"):
                    found.setdefault(name[:-3].replace("-", "_"), os.path.join(folder, name))
    return found


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--tree", required=True)
    parser.add_argument("--extra", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("modules", nargs="+")
    args = parser.parse_args()
    # Modules built here win over the image's, so list them first.
    known = index([args.extra, args.tree])
    order, seen = [], set()

    def visit(name, chain):
        key = name.replace("-", "_")
        if key in seen:
            return
        if key in chain:
            sys.exit(f"dependency loop: {' -> '.join(chain + [key])}")
        if key not in known:
            sys.exit(f"module {name} not found (needed by {' -> '.join(chain) or 'the list'})")
        for dependency in filter(None, modinfo(known[key]).get("depends", "").split(",")):
            visit(dependency, chain + [key])
        seen.add(key)
        order.append(known[key])

    for module in args.modules:
        visit(module, [])
    os.makedirs(args.out, exist_ok=True)
    for path in order:
        shutil.copy(path, os.path.join(args.out, os.path.basename(path)))
        print(os.path.basename(path))


if __name__ == "__main__":
    main()
