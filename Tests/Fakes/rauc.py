#!/usr/bin/env python3
"""A stand-in for RAUC 1.8's command-line client on a two-slot GRUB system, for the station's tests: the
real `rauc install` needs device-mapper and the RAUC service on D-Bus, which this build machine lacks
(Tests/Update/ runs the real one in a VM). What it answers follows rauc v1.8:

  - `status --detailed --output-format=json`: src/main.c, r_status_formatter_json ("compatible",
    "variant", "booted" (the booted slot's bootname), "boot_primary" (a slot name), "slots": a list of
    one-key objects {NAME: {"class", "device", "type", "bootname", "state", "parent", "mountpoint",
    "boot_status": "good"|"bad", "slot_status": {"bundle": {"compatible", "version"}, ...}}}).
  - boot_status and boot_primary as src/bootchooser.c's grub backend reads grubenv: a slot is good when
    its _OK is 1 and its _TRY is 0 (grub_get_state); the primary is the first slot in ORDER that is good
    so (grub_get_primary); `status mark-good` sets _OK=1 _TRY=0 of the booted slot, `status mark-bad
    other` _OK=0 _TRY=0 of the other (grub_set_state), `status mark-active other` _OK=1 _TRY=0 of the
    other and puts it first in ORDER (grub_set_primary).
  - `install BUNDLE`, through the service: progress lines "%3d%% MESSAGE" (on_installer_changed), the
    target marked bad before it is written and made primary after (src/install.c: r_boot_set_state,
    r_boot_set_primary), and on failure "LastError: REASON" on stdout (on_installer_changed) and
    "Installing `BUNDLE` failed" on stderr with exit status 1.
  - `info --output-format=json BUNDLE`: "compatible" and "version" (info_formatter_json), after the
    signature checked out ("signature verification failed" otherwise).

A bundle here is a JSON file: {"compatible", "version", "signed": true, "fails": optional reason}. The
system is a JSON file named by FAKE_RAUC_SYSTEM; `fake-boot` plays image-recipes/ota/grub.cfg (the first
slot in ORDER that is OK and untried is booted, and its TRY set). Each `install` is recorded in the system's
"installs" (the bundle's path) before anything else, so a test can tell that RAUC was never asked.
"""
import json
import os
import signal
import sys

SLOTS = {"rootfs.0": "A", "rootfs.1": "B"}


def load():
    with open(os.environ["FAKE_RAUC_SYSTEM"]) as file:
        return json.load(file)


def save(system):
    with open(os.environ["FAKE_RAUC_SYSTEM"], "w") as file:
        json.dump(system, file)


def good(system, bootname):
    env = system["grubenv"]
    return bootname in env["ORDER"].split() and env[f"{bootname}_OK"] == 1 and env[f"{bootname}_TRY"] == 0


def primary(system):
    for bootname in system["grubenv"]["ORDER"].split():
        if good(system, bootname):
            return next(name for name, boot in SLOTS.items() if boot == bootname)
    return None


def status(system):
    slots = []
    for name, bootname in SLOTS.items():
        slot = {"class": "rootfs", "device": f"/dev/disk/by-partlabel/rootfs-{bootname.lower()}", "type": "ext4",
                "bootname": bootname, "state": "booted" if bootname == system["booted"] else "inactive",
                "parent": None, "mountpoint": "/" if bootname == system["booted"] else None,
                "boot_status": "good" if good(system, bootname) else "bad"}
        version = system["versions"].get(bootname)
        if version:
            slot["slot_status"] = {"bundle": {"compatible": system["compatible"], "version": version},
                                   "status": "ok"}
        slots.append({name: slot})
    return {"compatible": system["compatible"], "variant": "", "booted": system["booted"],
            "boot_primary": primary(system), "slots": slots}


def bundle(path):
    with open(path) as file:
        return json.load(file)


def main(args):
    system = load()
    env = system["grubenv"]
    if args[:1] == ["status"] and "mark-bad" in args:
        slot = system["booted"] if args[-1] == "booted" else ("B" if system["booted"] == "A" else "A")
        env[f"{slot}_OK"], env[f"{slot}_TRY"] = 0, 0
        save(system)
        print(f"rauc status: marked slot rootfs.{'AB'.index(slot)} as bad")
        return 0
    if args[:1] == ["status"] and "mark-active" in args:
        # r_grub_set_primary (src/bootloaders/grub.c): the slot good and untried, first in ORDER, the
        # others after it in their order (r_bootchooser_order_primary).
        slot = system["booted"] if args[-1] == "booted" else ("B" if system["booted"] == "A" else "A")
        env[f"{slot}_OK"], env[f"{slot}_TRY"] = 1, 0
        env["ORDER"] = " ".join([slot] + [other for other in env["ORDER"].split() if other != slot])
        save(system)
        print(f"rauc status: activated slot rootfs.{'AB'.index(slot)}")
        return 0
    if args[:1] == ["status"] and "mark-good" in args:
        env[f"{system['booted']}_OK"], env[f"{system['booted']}_TRY"] = 1, 0
        save(system)
        print(f"rauc status: marked slot rootfs.{'AB'.index(system['booted'])} as good")
        return 0
    if args[:1] == ["status"]:
        print(json.dumps(status(system)))
        return 0
    if args[:1] == ["info"]:
        found = bundle(args[-1])
        if not found.get("signed"):
            # rauc 1.8's info_start: the error alone (g_printerr), after its own informational
            # "rauc-Message: …" lines (as Tests/Update/bundles.sh saw from the real one).
            print("rauc-Message: 12:00:00.000: Reading bundle: " + args[-1], file=sys.stderr)
            print("signature verification failed: Verify error: unable to get local issuer certificate",
                  file=sys.stderr)
            return 1
        print(json.dumps({"compatible": found["compatible"], "version": found["version"], "hooks": [],
                          "images": []}))
        return 0
    if args[:1] == ["install"]:
        path = args[-1]
        system.setdefault("installs", []).append(path)
        save(system)
        found = bundle(path)
        print("  0% Installing")
        print(" 20% Checking bundle")
        if not found.get("signed") or found["compatible"] != system["compatible"]:
            reason = ("signature verification failed" if not found.get("signed")
                      else f"Compatible mismatch: Expected '{system['compatible']}' but bundle manifest has "
                           f"'{found['compatible']}'")
            print(f"LastError: {reason}")
            print(f"Installing `{path}` failed", file=sys.stderr)
            return 1
        target = "B" if system["booted"] == "A" else "A"
        env[f"{target}_OK"] = 0
        save(system)
        print(f" 40% Copying image to rootfs.{'AB'.index(target)}", flush=True)
        if found.get("hangs"):
            # A long write, for the tests that stop the station during it: the client says who it is and
            # waits for a signal (SIGTERM ends it, as it ends the real client).
            with open(found["hangs"], "w") as file:
                file.write(str(os.getpid()))
            signal.pause()
        if found.get("fails"):
            print(f"LastError: {found['fails']}")
            print(f"Installing `{path}` failed", file=sys.stderr)
            return 1
        print(f" 80% Copying image to rootfs.{'AB'.index(target)} done.")
        system["versions"][target] = found["version"]
        env["ORDER"] = f"{target} {system['booted']}"
        env[f"{target}_OK"], env[f"{target}_TRY"] = 1, 0
        save(system)
        print("100% Installing done.")
        print(f"Installing `{path}` succeeded")
        return 0
    if args[:1] == ["fake-boot"]:
        # image-recipes/ota/grub.cfg: the first slot in ORDER that is OK and untried; when every OK slot
        # was tried, the tries are given back and ORDER's first OK slot starts (its last resort).
        for last_resort in (False, True):
            for bootname in env["ORDER"].split():
                if env[f"{bootname}_OK"] == 1 and (last_resort or env[f"{bootname}_TRY"] == 0):
                    if last_resort:
                        for other in env["ORDER"].split():
                            env[f"{other}_TRY"] = 0
                    env[f"{bootname}_TRY"] = 1
                    system["booted"] = bootname
                    system["boots"] = system.get("boots", 0) + 1
                    save(system)
                    print(bootname)
                    return 0
        print("no slot left to boot", file=sys.stderr)
        return 1
    print(f"rauc stand-in: unknown command {args}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
