#!/usr/bin/env python3
"""The Raspberry Pi tryboot backend (image-recipes/ota/rpi-tryboot-backend.sh) as RAUC drives it,
against a fake boot partition and a fake device tree, with a stand-in for the firmware.

The stand-in follows the Raspberry Pi documentation (config_txt/autoboot.adoc): at a reboot whose
argument holds "tryboot" the firmware sets the one-shot flag; it boots the [tryboot] section's
boot_partition while the flag is set and [all]'s otherwise, and reports what it did in
/proc/device-tree/chosen/bootloader/{partition,tryboot} as big-endian 32-bit cells. /run is a tmpfs,
so the reboot argument is gone after any boot. The calls are the ones RAUC makes (integration.rst,
"Custom bootloader backend interface"): an install marks the target bad, writes it, and sets it
primary; `rauc status mark-good` sets the booted slot good.

    python3 Tests/Update/test_tryboot.py        prints "N passed, N failed"; exit 1 on a failure
"""
import os
import pathlib
import struct
import subprocess
import sys
import tempfile
import unittest

REPO = pathlib.Path(__file__).resolve().parents[2]
BACKEND = REPO / "image-recipes/ota/rpi-tryboot-backend.sh"
FIRST_AUTOBOOT = "[all]\ntryboot_a_b=1\nboot_partition=2\n[tryboot]\nboot_partition=3\n"


class FakePi:
    """A bootconfig partition, a device tree and /run, in a temporary directory."""

    def __init__(self, root: pathlib.Path):
        self.bootconfig = root / "bootfs"
        self.device_tree = root / "device-tree/chosen/bootloader"
        self.run = root / "run/systemd"
        for folder in (self.bootconfig, self.device_tree, self.run):
            folder.mkdir(parents=True)
        (self.bootconfig / "autoboot.txt").write_text(FIRST_AUTOBOOT)
        self.environment = dict(os.environ, RPI_BOOTCONFIG=str(self.bootconfig),
                                RPI_DEVICE_TREE=str(self.device_tree),
                                RPI_REBOOT_PARAM=str(self.run / "reboot-param"))
        self.power_on()

    def backend(self, *arguments: str) -> subprocess.CompletedProcess:
        return subprocess.run(["sh", str(BACKEND), *arguments], env=self.environment,
                              capture_output=True, text=True, timeout=10)

    def ask(self, *arguments: str) -> str:
        done = self.backend(*arguments)
        if done.returncode != 0:
            raise AssertionError(f"{' '.join(arguments)} failed ({done.returncode}): {done.stderr.strip()}")
        return done.stdout.strip()

    def autoboot(self) -> dict:
        sections, section = {}, None
        for line in (self.bootconfig / "autoboot.txt").read_text().splitlines():
            if line.startswith("["):
                section = line.strip("[]")
            elif "=" in line:
                sections.setdefault(section, {})[line.split("=", 1)[0]] = line.split("=", 1)[1]
        return sections

    def _boot(self, tryboot: bool):
        sections = self.autoboot()
        use_tryboot = tryboot and sections["all"].get("tryboot_a_b") == "1" and "tryboot" in sections
        partition = int(sections["tryboot" if use_tryboot else "all"]["boot_partition"])
        (self.device_tree / "partition").write_bytes(struct.pack(">I", partition))
        (self.device_tree / "tryboot").write_bytes(struct.pack(">I", 1 if tryboot else 0))
        (self.run / "reboot-param").unlink(missing_ok=True)

    def reboot(self):
        """`systemctl reboot`: the argument left in /run/systemd/reboot-param goes to the firmware."""
        parameter = self.run / "reboot-param"
        self._boot(tryboot=parameter.exists() and "tryboot" in parameter.read_text().split())

    def power_on(self):
        """A power cut, a watchdog reset or a crash: the firmware's one-shot flag is gone."""
        self._boot(tryboot=False)

    def booted(self) -> str:
        return self.ask("get-current")

    def install(self, slot: str):
        """What `rauc install` asks of the backend around writing the slot."""
        self.ask("set-state", slot, "bad")
        self.ask("set-primary", slot)

    def mark_good(self):
        self.ask("set-state", self.booted(), "good")


class TrybootBackendTests(unittest.TestCase):
    def setUp(self):
        self.folder = tempfile.TemporaryDirectory()
        self.pi = FakePi(pathlib.Path(self.folder.name))

    def tearDown(self):
        self.folder.cleanup()

    def test_booted_a_reads_as_a(self):
        """should report slot A as booted, primary and good on a fresh image, and B as bad"""
        self.assertEqual(self.pi.booted(), "A")
        self.assertEqual(self.pi.ask("get-primary"), "A")
        self.assertEqual(self.pi.ask("get-state", "A"), "good")
        self.assertEqual(self.pi.ask("get-state", "B"), "bad")

    def test_install_to_b_sets_tryboot(self):
        """should point [tryboot] at B and ask for a tryboot reboot, with [all] still on A"""
        self.pi.install("B")
        self.assertEqual(self.pi.autoboot()["all"]["boot_partition"], "2")
        self.assertEqual(self.pi.autoboot()["tryboot"]["boot_partition"], "3")
        self.assertEqual(self.pi.autoboot()["all"]["tryboot_a_b"], "1")
        self.assertEqual((self.pi.run / "reboot-param").read_text().strip(), "0 tryboot")
        self.assertEqual(self.pi.ask("get-primary"), "A")
        self.assertEqual(self.pi.ask("get-state", "B"), "bad")

    def test_tried_boot_marked_good_becomes_primary(self):
        """should commit B once its tried boot is marked good, and keep booting B after"""
        self.pi.install("B")
        self.pi.reboot()
        self.assertEqual(self.pi.booted(), "B")
        self.assertEqual(self.pi.ask("get-primary"), "A", "a try alone must not commit")
        self.pi.mark_good()
        self.assertEqual(self.pi.ask("get-primary"), "B")
        self.assertEqual(self.pi.ask("get-state", "B"), "good")
        self.assertEqual(self.pi.autoboot()["all"]["boot_partition"], "3")
        self.assertEqual(self.pi.autoboot()["tryboot"]["boot_partition"], "2")
        self.pi.power_on()
        self.assertEqual(self.pi.booted(), "B")

    def test_tried_boot_never_marked_leaves_a_primary(self):
        """should come back to A when the tried B is reset before it is marked good"""
        self.pi.install("B")
        self.pi.reboot()
        self.assertEqual(self.pi.booted(), "B", "the try must have happened for the test to mean anything")
        self.pi.power_on()  # the watchdog's reset: B never reached mark-good
        self.assertEqual(self.pi.booted(), "A")
        self.assertEqual(self.pi.ask("get-primary"), "A")
        self.assertEqual(self.pi.ask("get-state", "B"), "bad")
        self.pi.mark_good()  # A's own health check, as on every boot
        self.assertEqual(self.pi.ask("get-primary"), "A")
        self.pi.reboot()
        self.assertEqual(self.pi.booted(), "A", "a later plain reboot must not try B again")

    def test_plain_reboot_of_tried_b_returns_to_a(self):
        """should come back to A when the tried B reboots itself before it is marked good"""
        self.pi.install("B")
        self.pi.reboot()
        self.pi.reboot()
        self.assertEqual(self.pi.booted(), "A")

    def test_mark_good_in_a_try_of_a_different_slot_commits_nothing(self):
        """should commit only the slot the firmware booted in the try"""
        self.pi.install("B")
        self.pi.reboot()
        self.pi.ask("set-state", "A", "good")
        self.assertEqual(self.pi.ask("get-primary"), "A")
        self.assertEqual(self.pi.autoboot()["all"]["boot_partition"], "2")

    def test_update_back_to_a_after_b_committed(self):
        """should update the other way once B is the committed slot"""
        self.pi.install("B")
        self.pi.reboot()
        self.pi.mark_good()
        self.pi.install("A")
        self.assertEqual(self.pi.ask("get-primary"), "B")
        self.pi.reboot()
        self.assertEqual(self.pi.booted(), "A")
        self.pi.mark_good()
        self.assertEqual(self.pi.ask("get-primary"), "A")
        self.pi.power_on()
        self.assertEqual(self.pi.booted(), "A")

    def test_marking_the_pending_slot_bad_cancels_the_try(self):
        """should not try a slot marked bad after it was set primary"""
        self.pi.install("B")
        self.pi.ask("set-state", "B", "bad")
        self.assertFalse((self.pi.run / "reboot-param").exists())
        self.pi.reboot()
        self.assertEqual(self.pi.booted(), "A")

    def test_set_primary_of_the_committed_slot_cancels_the_try(self):
        """should stay on A when A is set primary again (rauc status mark-active A)"""
        self.pi.install("B")
        self.pi.ask("set-primary", "A")
        self.pi.reboot()
        self.assertEqual(self.pi.booted(), "A")

    def test_state_survives_in_the_state_file(self):
        """should keep each slot's state on the boot partition across boots"""
        self.pi.ask("set-state", "B", "good")
        self.pi.power_on()
        self.assertEqual(self.pi.ask("get-state", "B"), "good")
        self.assertEqual((self.pi.bootconfig / "rauc-slots.txt").read_text(), "A=good\nB=good\n")

    def test_refuses_what_it_does_not_know(self):
        """should exit non-zero with a message for an unknown slot, state, command or a missing device tree"""
        for arguments in (("get-state", "C"), ("set-state", "A", "maybe"), ("set-primary", "system0"),
                          ("frobnicate",)):
            done = self.pi.backend(*arguments)
            self.assertNotEqual(done.returncode, 0, arguments)
            self.assertIn("rpi-tryboot-backend:", done.stderr)
        (self.pi.device_tree / "partition").unlink()
        self.assertNotEqual(self.pi.backend("get-current").returncode, 0)

    def test_unknown_partition_in_device_tree_is_an_error(self):
        """should refuse to name a slot when the firmware booted neither slot's partition"""
        (self.pi.device_tree / "partition").write_bytes(struct.pack(">I", 1))
        done = self.pi.backend("get-current")
        self.assertNotEqual(done.returncode, 0)
        self.assertIn("neither slot", done.stderr)


if __name__ == "__main__":
    result = unittest.main(exit=False, verbosity=1).result
    sys.stderr.flush()
    failed = len(result.failures) + len(result.errors)
    print(f"{result.testsRun - failed} passed, {failed} failed")
    sys.exit(1 if failed or not result.testsRun else 0)
