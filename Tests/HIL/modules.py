#!/usr/bin/env python3
"""Lists kernel modules in the order insmod must load them, dependencies first.

There is no kmod on the host and no modules.dep in Debian's kernel package, so each module's
dependencies are read from its own .modinfo section ("depends=a,b"), found under the image's module
tree or among the modules built out of tree. A module the tree holds xz-compressed (trixie's kernels)
is read and copied out uncompressed, so busybox's insmod loads it as it is.

    modules.py --tree IMAGE/lib/modules/ABI --extra DIR --out DIR MODULE...

Copies every module needed into --out and prints their file names in load order.
"""
import argparse
import lzma
import os
import struct
import sys


def module_bytes(path):
    if path.endswith(".xz"):
        with lzma.open(path) as packed:
            return packed.read()
    with open(path, "rb") as plain:
        return plain.read()


def section(elf, wanted):
    """The bytes of one section of a 64-bit little-endian ELF file (x86_64 or aarch64 alike)."""
    if elf[:6] != b"\x7fELF\x02\x01":
        sys.exit("not a 64-bit little-endian ELF module")
    (table,) = struct.unpack_from("<Q", elf, 0x28)
    entry, count, names = struct.unpack_from("<HHH", elf, 0x3A)

    def header(index):
        name, _, _, _, offset, size = struct.unpack_from("<IIQQQQ", elf, table + index * entry)
        return name, offset, size

    _, names_offset, _ = header(names)
    for index in range(count):
        name, offset, size = header(index)
        end = elf.index(b"\0", names_offset + name)
        if elf[names_offset + name:end].decode() == wanted:
            return elf[offset:offset + size]
    return b""


def modinfo(path):
    fields = {}
    for entry in section(module_bytes(path), ".modinfo").split(b"\0"):
        if b"=" in entry:
            key, value = entry.decode(errors="replace").split("=", 1)
            fields.setdefault(key, value)
    return fields


def index(roots):
    found = {}
    for root in roots:
        for folder, _, files in os.walk(root):
            for name in files:
                for suffix in (".ko", ".ko.xz"):
                    if name.endswith(suffix):
                        key = name[:-len(suffix)].replace("-", "_")
                        found.setdefault(key, os.path.join(folder, name))
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
        name = os.path.basename(path).removesuffix(".xz")
        with open(os.path.join(args.out, name), "wb") as copy:
            copy.write(module_bytes(path))
        print(name)


if __name__ == "__main__":
    main()
