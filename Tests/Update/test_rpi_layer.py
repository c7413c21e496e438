#!/usr/bin/env python3
"""The Raspberry Pi side of the A/B updates, without a Pi.

* The post-install handler (image-recipes/ota/rpi-post-install.sh) as RAUC runs it: RAUC's environment
  as RAUC's src/install.c (prepare_environment) builds it, over system-rpi.conf's own slots, numbered in
  an order of the test's choosing (RAUC's is a hash table's). Each slot's device is a folder standing
  for its FAT file system; the mount and umount stand-ins copy it in and out, so a change that is not
  unmounted never reaches the "device". A failed handler must cancel the try through the real tryboot
  backend, on a fake bootconfig partition as in test_tryboot.py.
* The rpi-image-gen layer (image-recipes/raspberry-pi/layer/snapstation-updates.yaml): its header and
  YAML, and every customize-hook run in order in a fake root, as mmdebstrap runs them (`sh -c HOOK exec
  ROOT`), with a stand-in for bdebstrap's hooks/enable-units, which follows that file: a unit it cannot
  find is skipped with a message and no error. The files must land where system-rpi.conf, data-seed and
  the mount units expect them.
* The post-image hook (image-recipes/raspberry-pi/post-image.sh) on a small GPT disk image laid out as
  rpi-image-gen's A/B layout names its partitions, where sfdisk, mkfs.vfat and mtools are installed.

    python3 Tests/Update/test_rpi_layer.py      prints "N passed, N failed"; exit 1 on a failure
    RPI_IMAGE_GEN=DIR (an rpi-image-gen checkout) also lints the layer with its `ig metadata --lint`.
"""
import configparser
import os
import pathlib
import re
import shlex
import shutil
import stat
import subprocess
import sys
import tempfile
import unittest

REPO = pathlib.Path(__file__).resolve().parents[2]
OTA = REPO / "image-recipes/ota"
PI = REPO / "image-recipes/raspberry-pi"
HANDLER = OTA / "rpi-post-install.sh"
BACKEND = OTA / "rpi-tryboot-backend.sh"
SYSTEM_CONF = OTA / "system-rpi.conf"
LAYER = PI / "layer/snapstation-updates.yaml"
CONFIG = PI / "config/snapstation.yaml"
POST_IMAGE = PI / "post-image.sh"
CMDLINE = ("console=serial0,115200 console=tty1 root=/dev/disk/by-slot/active/system rootfstype=ext4 "
           "fsck.repair=yes rootwait quiet")

try:
    import yaml
except ImportError:
    yaml = None
NO_YAML = "python3's yaml module is missing (apt-get install python3-yaml): the layer's YAML is not checked"


def system_conf() -> configparser.ConfigParser:
    parser = configparser.ConfigParser(interpolation=None)
    parser.read(SYSTEM_CONF)
    return parser


def unit_file(path: pathlib.Path) -> dict:
    """A systemd unit's keys, each a list of values, by section."""
    sections, section = {}, None
    for line in path.read_text().splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("["):
            section = line.strip("[]")
        else:
            key, value = line.split("=", 1)
            sections.setdefault(section, {}).setdefault(key, []).append(value)
    return sections


# MARK: RAUC and its handler

FAKE_MOUNT = """#!/bin/sh
# mount DEVICE DIR: DEVICE is a folder standing for the FAT file system; its files are copied into DIR.
set -eu
[ -d "$1" ] || { echo "mount: $1: no such device" >&2; exit 32; }
cp -a "$1/." "$2/"
printf 'mount %s %s\\n' "$1" "$2" >> "$MOUNT_LOG"
"""
FAKE_UMOUNT = """#!/bin/sh
# umount DIR: DIR's files go back to the device folder it was mounted from, and DIR is left empty.
set -eu
device=$(awk -v dir="$1" '$1 == "mount" && $3 == dir { device = $2 } END { print device }' "$MOUNT_LOG")
[ -n "$device" ] || { echo "umount: $1: not mounted" >&2; exit 32; }
rm -rf "$device" && mkdir "$device" && cp -a "$1/." "$device/"
rm -rf "$1" && mkdir "$1"
printf 'umount %s\\n' "$1" >> "$MOUNT_LOG"
"""


class FakeRauc:
    """system-rpi.conf's slots with folders for devices, RAUC's mount prefix, and a bootconfig partition."""

    def __init__(self, root: pathlib.Path, order: list):
        self.root = root
        self.devices = root / "devices"
        self.mount_prefix = root / "run/rauc/mnt"
        self.bootconfig = root / "bootfs"
        self.run_systemd = root / "run/systemd"
        self.device_tree = root / "device-tree"
        for folder in (self.devices, self.mount_prefix, self.bootconfig, self.run_systemd, self.device_tree):
            folder.mkdir(parents=True)
        (root / "fake-mount").write_text(FAKE_MOUNT)
        (root / "fake-umount").write_text(FAKE_UMOUNT)
        self.mount_log = root / "mounts.log"
        self.mount_log.touch()
        config = system_conf()
        self.slots = {}
        for section in config.sections():
            if section.startswith("slot."):
                name = section[len("slot."):]
                device = self.devices / pathlib.PurePath(config[section]["device"]).name
                device.mkdir()
                self.slots[name] = dict(config[section], device=str(device))
        if sorted(order) != sorted(self.slots):
            raise AssertionError(f"the test numbers {sorted(order)}, system-rpi.conf has {sorted(self.slots)}")
        self.order = order
        (self.bootconfig / "autoboot.txt").write_text(
            "[all]\ntryboot_a_b=1\nboot_partition=2\n[tryboot]\nboot_partition=3\n")
        (self.device_tree / "partition").write_bytes(bytes([0, 0, 0, 2]))
        (self.device_tree / "tryboot").write_bytes(bytes([0, 0, 0, 0]))

    def device(self, slot: str) -> pathlib.Path:
        return pathlib.Path(self.slots[slot]["device"])

    def cmdline(self, slot: str) -> pathlib.Path:
        return self.device(slot) / "cmdline.txt"

    def backend_environment(self) -> dict:
        return dict(os.environ, RPI_BOOTCONFIG=str(self.bootconfig), RPI_DEVICE_TREE=str(self.device_tree),
                    RPI_REBOOT_PARAM=str(self.run_systemd / "reboot-param"))

    def backend(self, *arguments: str) -> str:
        done = subprocess.run(["sh", str(BACKEND), *arguments], env=self.backend_environment(),
                              capture_output=True, text=True, timeout=10)
        if done.returncode != 0:
            raise AssertionError(f"backend {arguments}: {done.stderr}")
        return done.stdout.strip()

    def environment(self, targets: list) -> dict:
        """install.c, prepare_environment: every slot numbered, the target group's numbers listed."""
        environment = {key: value for key, value in self.backend_environment().items()
                       if not key.startswith("RAUC_")}
        for number, name in enumerate(self.order, start=1):
            slot = self.slots[name]
            environment[f"RAUC_SLOT_NAME_{number}"] = name
            environment[f"RAUC_SLOT_CLASS_{number}"] = name.split(".")[0]
            environment[f"RAUC_SLOT_TYPE_{number}"] = slot["type"]
            environment[f"RAUC_SLOT_DEVICE_{number}"] = slot["device"]
            environment[f"RAUC_SLOT_BOOTNAME_{number}"] = slot.get("bootname", "")
            environment[f"RAUC_SLOT_PARENT_{number}"] = slot.get("parent", "")
        environment["RAUC_SLOTS"] = " ".join(str(n) for n in range(1, len(self.order) + 1))
        environment["RAUC_TARGET_SLOTS"] = " ".join(str(self.order.index(t) + 1) for t in targets)
        environment["RAUC_MOUNT_PREFIX"] = str(self.mount_prefix)
        environment["RAUC_SYSTEM_CONFIG"] = str(SYSTEM_CONF)
        environment["MOUNT_LOG"] = str(self.mount_log)
        environment["RPI_MOUNT"] = f"sh {self.root / 'fake-mount'}"
        environment["RPI_UMOUNT"] = f"sh {self.root / 'fake-umount'}"
        environment["RPI_TRYBOOT_BACKEND"] = f"sh {BACKEND}"
        return environment

    def install(self, targets: list, environment: dict = None) -> subprocess.CompletedProcess:
        """What RAUC does around the handler: the target marked bad, written, made primary, then the handler."""
        bootname = next(self.slots[t]["bootname"] for t in targets if "bootname" in self.slots[t])
        self.backend("set-state", bootname, "bad")
        self.backend("set-primary", bootname)
        return subprocess.run(["sh", str(HANDLER)], env=environment or self.environment(targets),
                              capture_output=True, text=True, timeout=10)

    def mounted(self) -> list:
        return [line.split()[1] for line in self.mount_log.read_text().splitlines() if line.startswith("mount ")]

    def unmounted(self) -> list:
        return [line.split()[1] for line in self.mount_log.read_text().splitlines() if line.startswith("umount ")]


class PostInstallHandlerTests(unittest.TestCase):
    ORDER = ["boot.1", "rootfs.0", "boot.0", "rootfs.1"]

    def setUp(self):
        self.folder = tempfile.TemporaryDirectory()
        self.rauc = FakeRauc(pathlib.Path(self.folder.name), self.ORDER)

    def tearDown(self):
        self.folder.cleanup()

    def assertInstalled(self, done: subprocess.CompletedProcess):
        self.assertEqual(done.returncode, 0, done.stderr)

    def test_adds_the_slot_to_the_new_boot_slot(self):
        """should add rauc.slot=B to boot_b's cmdline.txt, keep its arguments, and leave boot_a alone"""
        self.rauc.cmdline("boot.1").write_text(CMDLINE + "\n")
        self.rauc.cmdline("boot.0").write_text(CMDLINE + " rauc.slot=A\n")
        self.assertInstalled(self.rauc.install(["rootfs.1", "boot.1"]))
        self.assertEqual(self.rauc.cmdline("boot.1").read_text(), CMDLINE + " rauc.slot=B\n")
        self.assertEqual(self.rauc.cmdline("boot.0").read_text(), CMDLINE + " rauc.slot=A\n")
        self.assertEqual(self.rauc.mounted(), [str(self.rauc.device("boot.1"))])
        self.assertEqual(len(self.rauc.unmounted()), 1)
        self.assertEqual(list(self.rauc.mount_prefix.iterdir()), [], "the mount point is left behind")
        self.assertEqual((self.rauc.run_systemd / "reboot-param").read_text().strip(), "0 tryboot",
                         "a handler that succeeded must leave the try RAUC asked for")

    def test_replaces_a_slot_already_there(self):
        """should replace every rauc.slot= (a boot image copied from slot A) with the one slot, keeping the rest in order"""
        arguments = CMDLINE.split()
        stale = arguments[:2] + ["rauc.slot=A"] + arguments[2:] + ["rauc.slot=rootfs.0"]
        self.rauc.cmdline("boot.1").write_text(" ".join(stale) + "\n")
        self.assertInstalled(self.rauc.install(["rootfs.1", "boot.1"]))
        self.assertEqual(self.rauc.cmdline("boot.1").read_text().split(), arguments + ["rauc.slot=B"])

    def test_names_the_parents_bootname(self):
        """should write rauc.slot=A into boot_a on an install back to A, whatever RAUC's slot numbering"""
        for order in (self.ORDER, list(reversed(self.ORDER))):
            with self.subTest(order=order), tempfile.TemporaryDirectory() as folder:
                rauc = FakeRauc(pathlib.Path(folder), order)
                rauc.cmdline("boot.0").write_text(CMDLINE + "\n")
                self.assertInstalled(rauc.install(["boot.0", "rootfs.0"]))
                self.assertEqual(rauc.cmdline("boot.0").read_text(), CMDLINE + " rauc.slot=A\n")

    def test_keeps_further_lines_and_drops_a_carriage_return(self):
        """should edit only the first line, without the CR of a file saved on Windows"""
        self.rauc.cmdline("boot.1").write_bytes((CMDLINE + "\r\n# spare line\n").encode())
        self.assertInstalled(self.rauc.install(["rootfs.1", "boot.1"]))
        self.assertEqual(self.rauc.cmdline("boot.1").read_text(), CMDLINE + " rauc.slot=B\n# spare line\n")

    def test_only_boot_targets_are_touched(self):
        """should mount no slot but the target boot slot: not the rootfs target, not the running boot slot"""
        for slot in ("boot.0", "rootfs.1", "rootfs.0"):
            self.rauc.cmdline(slot).write_text("decoy\n")
        self.rauc.cmdline("boot.1").write_text(CMDLINE + "\n")
        self.assertInstalled(self.rauc.install(["rootfs.1", "boot.1"]))
        self.assertEqual(self.rauc.mounted(), [str(self.rauc.device("boot.1"))])
        for slot in ("boot.0", "rootfs.1", "rootfs.0"):
            self.assertEqual(self.rauc.cmdline(slot).read_text(), "decoy\n", slot)

    def test_a_missing_cmdline_fails_and_cancels_the_try(self):
        """should fail with a clear message when cmdline.txt is missing, unmount, and mark the new slot bad"""
        done = self.rauc.install(["rootfs.1", "boot.1"])
        self.assertNotEqual(done.returncode, 0)
        self.assertIn("cmdline.txt is missing", done.stderr)
        self.assertEqual(len(self.rauc.unmounted()), 1, "the boot slot must be unmounted after a failure")
        self.assertEqual(list(self.rauc.mount_prefix.iterdir()), [])
        self.assertFalse((self.rauc.run_systemd / "reboot-param").exists(), "the try must be cancelled")
        self.assertEqual(self.rauc.backend("get-state", "B"), "bad")
        self.assertEqual(self.rauc.backend("get-primary"), "A")

    def test_an_empty_cmdline_fails(self):
        """should refuse an empty cmdline.txt rather than make a command line of rauc.slot= alone"""
        self.rauc.cmdline("boot.1").write_text("")
        done = self.rauc.install(["rootfs.1", "boot.1"])
        self.assertNotEqual(done.returncode, 0)
        self.assertIn("is empty", done.stderr)
        self.assertEqual(self.rauc.cmdline("boot.1").read_text(), "")

    def test_a_device_that_does_not_mount_fails(self):
        """should fail, saying which slot, when the boot slot cannot be mounted"""
        shutil.rmtree(self.rauc.device("boot.1"))
        done = self.rauc.install(["rootfs.1", "boot.1"])
        self.assertNotEqual(done.returncode, 0)
        self.assertIn("cannot mount", done.stderr)
        self.assertIn("boot.1", done.stderr)
        self.assertEqual(list(self.rauc.mount_prefix.iterdir()), [])

    def test_no_boot_slot_among_the_targets_is_an_error(self):
        """should fail when the target group has no boot slot: then no cmdline.txt would name the new slot"""
        self.rauc.cmdline("boot.1").write_text(CMDLINE + "\n")
        done = self.rauc.install(["rootfs.1"])
        self.assertNotEqual(done.returncode, 0)
        self.assertIn("no slot of class boot", done.stderr)
        self.assertEqual(self.rauc.mounted(), [])

    def test_refuses_to_run_without_rauc(self):
        """should exit non-zero with a message when RAUC's environment is missing or a slot number is not one"""
        environment = {k: v for k, v in self.rauc.environment(["rootfs.1", "boot.1"]).items()
                       if k != "RAUC_TARGET_SLOTS"}
        done = subprocess.run(["sh", str(HANDLER)], env=environment, capture_output=True, text=True, timeout=10)
        self.assertNotEqual(done.returncode, 0)
        self.assertIn("RAUC_TARGET_SLOTS is not set", done.stderr)
        environment["RAUC_TARGET_SLOTS"] = "1 x"
        done = subprocess.run(["sh", str(HANDLER)], env=environment, capture_output=True, text=True, timeout=10)
        self.assertNotEqual(done.returncode, 0)
        self.assertIn("not a slot number", done.stderr)

    def test_set_slot_edits_one_file(self):
        """should edit one cmdline.txt given on the command line, as post-image.sh uses it"""
        file = pathlib.Path(self.folder.name) / "cmdline.txt"
        file.write_text(CMDLINE + " rauc.slot=B\n")
        done = subprocess.run(["sh", str(HANDLER), "--set-slot", str(file), "A"], capture_output=True, text=True)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertEqual(file.read_text(), CMDLINE + " rauc.slot=A\n")
        missing = subprocess.run(["sh", str(HANDLER), "--set-slot", str(file) + ".gone", "A"],
                                 capture_output=True, text=True)
        self.assertNotEqual(missing.returncode, 0)
        self.assertIn("is missing", missing.stderr)

    def test_default_backend_is_system_confs(self):
        """should call the backend system-rpi.conf names when no test overrides it"""
        default = re.search(r"RPI_TRYBOOT_BACKEND:-([^}]+)}", HANDLER.read_text()).group(1)
        self.assertEqual(default, system_conf()["handlers"]["bootloader-custom-backend"])


# MARK: the layer

def layer_metadata() -> dict:
    """The # METABEGIN ... # METAEND header: X-Env-* fields, continuation lines joined."""
    fields, key, inside = {}, None, False
    for line in LAYER.read_text().splitlines():
        if line.strip() == "# METABEGIN":
            inside = True
        elif line.strip() == "# METAEND":
            return fields
        elif inside and line.startswith("# X-Env-"):
            key, _, value = line[2:].partition(":")
            fields[key] = value.strip()
        elif inside and line.startswith("#  ") and key:
            fields[key] += " " + line[3:].strip()
    raise AssertionError(f"{LAYER} has no # METABEGIN ... # METAEND header")


def layer_defaults() -> dict:
    """Each variable's default as rpi-image-gen sets it: IGconf_<prefix>_<name>, ${DIRECTORY} the layer's folder."""
    fields = layer_metadata()
    prefix = fields["X-Env-VarPrefix"]
    defaults = {}
    for key, value in fields.items():
        match = re.fullmatch(r"X-Env-Var-([a-z0-9_]+)", key)
        if match:
            defaults[f"IGconf_{prefix}_{match.group(1)}"] = value.replace("${DIRECTORY}", str(LAYER.parent))
    return defaults


FAKE_ENABLE_UNITS = """#!/bin/sh
# bdebstrap's hooks/enable-units: CHROOT_DIR UNIT...; a unit found in the chroot's unit folders is
# enabled (here: recorded), one not found is skipped with a message and no error.
set -eu
root=$1
shift
for unit in "$@"; do
    found=no
    for folder in etc/systemd/system lib/systemd/system usr/lib/systemd/system; do
        if [ -e "$root/$folder/$unit" ] || [ -e "$root/$folder/$unit.service" ]; then found=yes; fi
    done
    if [ "$found" = yes ]; then echo "enabled $unit" >> "$ENABLE_LOG"
    else echo "skipped $unit" >> "$ENABLE_LOG"; echo "enable-units: Unit $unit not found. Skipping enabling it." >&2
    fi
done
"""


class LayerHeaderTests(unittest.TestCase):
    def test_header(self):
        """should carry rpi-image-gen's metadata header: name, prefix, the layers it needs, each variable described"""
        fields = layer_metadata()
        self.assertEqual(fields["X-Env-Layer-Name"], "snapstation-updates")
        self.assertEqual(fields["X-Env-VarPrefix"], "snapupdates")
        requires = [name.strip() for name in fields["X-Env-Layer-Requires"].split(",")]
        self.assertIn("snapstation", requires)
        self.assertIn("image-rota", requires, "the paths follow image-rota's A/B layout")
        variables = [k for k in fields if re.fullmatch(r"X-Env-Var-[a-z0-9_]+", k)]
        self.assertEqual(sorted(variables), ["X-Env-Var-keyring", "X-Env-Var-ota", "X-Env-Var-version"])
        for variable in variables:
            for attribute in ("Desc", "Valid", "Required", "Set"):
                self.assertIn(f"{variable}-{attribute}", fields)
        self.assertEqual(fields["X-Env-Var-keyring"], "", "no keyring may be named in the repository")
        self.assertEqual(fields["X-Env-Var-keyring-Required"], "y")


@unittest.skipIf(yaml is None, NO_YAML)
class LayerTests(unittest.TestCase):
    DEB_UNITS = ("snapstation-reboot.path", "snapstation-reboot.service", "snapstation-update-guard.service")

    def setUp(self):
        self.folder = tempfile.TemporaryDirectory()
        self.work = pathlib.Path(self.folder.name)
        self.layer = yaml.safe_load(LAYER.read_text())
        self.hooks = self.layer["mmdebstrap"]["customize-hooks"]

    def tearDown(self):
        self.folder.cleanup()

    def fake_root(self) -> pathlib.Path:
        """What the layer finds when its hooks run: the .deb installed (its units), Debian's os-release."""
        root = self.work / "root"
        for unit in self.DEB_UNITS:
            target = root / "usr/lib/systemd/system" / unit
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(REPO / "systemd" / unit, target)
        (root / "etc").mkdir(parents=True, exist_ok=True)
        (root / "etc/machine-id").write_text("0123456789abcdef0123456789abcdef\n")
        (root / "usr/lib/os-release").write_text(
            'PRETTY_NAME="Debian GNU/Linux 13 (trixie)"\nID=debian\nIMAGE_VERSION=0.0.1\n')
        return root

    def run_hooks(self, root: pathlib.Path, version: str = "2.3.4") -> list:
        """Each customize-hook in order, as mmdebstrap runs one that is not a file: sh -c HOOK exec ROOT."""
        hooks_folder = self.work / "bdebstrap-hooks"
        hooks_folder.mkdir(exist_ok=True)
        (hooks_folder / "enable-units").write_text(FAKE_ENABLE_UNITS)
        (hooks_folder / "enable-units").chmod(0o755)
        self.keyring = self.work / "keyring.pem"
        self.keyring.write_text("-----BEGIN CERTIFICATE-----\nthe test's CA\n-----END CERTIFICATE-----\n")
        self.enable_log = self.work / "enabled.log"
        self.enable_log.write_text("")
        environment = dict(os.environ, **layer_defaults())
        environment.update(BDEBSTRAP_HOOKS=str(hooks_folder), ENABLE_LOG=str(self.enable_log),
                           IGconf_snapupdates_keyring=str(self.keyring), IGconf_snapupdates_version=version)
        results = []
        for hook in self.hooks:
            done = subprocess.run(["sh", "-c", hook, "exec", str(root)], env=environment,
                                  capture_output=True, text=True, timeout=20)
            results.append(done)
            if done.returncode != 0:
                break
        return results

    def test_packages(self):
        """should install RAUC, its D-Bus service (a package of its own in Debian) and D-Bus"""
        for package in ("rauc", "rauc-service", "dbus"):
            self.assertIn(package, self.layer["mmdebstrap"]["packages"])

    def test_every_referenced_file_exists(self):
        """should name only files of image-recipes/ota that exist"""
        ota = pathlib.Path(layer_defaults()["IGconf_snapupdates_ota"]).resolve()
        self.assertEqual(ota, OTA.resolve())
        named = set()
        for hook in self.hooks:
            named.update(re.findall(r"\$\{?IGconf_snapupdates_ota\}?/([\w.-]+)", hook))
        self.assertGreaterEqual(len(named), 10, sorted(named))
        for name in sorted(named):
            self.assertTrue((OTA / name).is_file(), f"{name} is named by the layer but missing from {OTA}")
        self.assertEqual(list(REPO.glob("image-recipes/**/*.pem")), [], "a key or certificate in the repository")

    def test_hooks_install_what_system_conf_names(self):
        """should put system.conf, the keyring, the backend and the handler where system-rpi.conf names them"""
        root = self.fake_root()
        results = self.run_hooks(root)
        self.assertTrue(all(done.returncode == 0 for done in results),
                        [(done.args[2], done.stderr) for done in results if done.returncode])
        self.assertEqual(len(results), len(self.hooks))
        self.assertEqual((root / "etc/rauc/system.conf").read_bytes(), SYSTEM_CONF.read_bytes())
        config = system_conf()
        for key, source in (("bootloader-custom-backend", BACKEND), ("post-install", HANDLER)):
            installed = root / config["handlers"][key].lstrip("/")
            self.assertEqual(installed.read_bytes(), source.read_bytes(), key)
            self.assertTrue(os.access(installed, os.X_OK), f"{key} {installed} is not executable")
        self.assertEqual((root / config["keyring"]["path"].lstrip("/")).read_bytes(), self.keyring.read_bytes())
        self.assertEqual((root / "etc/dbus-1/system.d/snapstation-rauc.conf").read_bytes(),
                         (OTA / "snapstation-rauc.conf").read_bytes())

    def test_state_and_config_come_from_the_persistent_partition(self):
        """should bind the station's folders from where data-seed fills them, beside RAUC's data-directory, all mounted first"""
        root = self.fake_root()
        self.assertTrue(all(done.returncode == 0 for done in self.run_hooks(root)))
        units = root / "etc/systemd/system"
        seed_unit = unit_file(units / "snapstation-data-seed.service")
        seed_script = root / seed_unit["Service"]["ExecStart"][0].lstrip("/")
        self.assertTrue(os.access(seed_script, os.X_OK), seed_script)
        drop_in = unit_file(units / "snapstation-data-seed.service.d/persistent.conf")
        data = dict(v.split("=", 1) for v in drop_in["Service"]["Environment"])["SNAPSTATION_DATA"]
        self.assertIn(data, " ".join(drop_in["Unit"]["RequiresMountsFor"]).split())
        self.assertEqual(system_conf()["system"]["data-directory"], f"{data}/rauc",
                         "RAUC's status is where data-seed makes its folder")
        rauc_drop_in = unit_file(units / "rauc.service.d/snapstation.conf")
        self.assertIn(data, " ".join(rauc_drop_in["Unit"]["RequiresMountsFor"]).split())
        self.assertIn("/bootfs", " ".join(rauc_drop_in["Unit"]["RequiresMountsFor"]).split(),
                      "the backend writes autoboot.txt there")
        # data-seed's own lines: seed FROM "$data/snapstation/NAME" MODE
        seeded = dict(re.findall(r'^seed (\S+) "\$data/([\w/]+)"', seed_script.read_text(), re.M))
        self.assertEqual(len(seeded), 2, seeded)
        mounts = sorted(units.glob("*.mount"))
        self.assertEqual(len(mounts), len(seeded))
        for path in mounts:
            mount = unit_file(path)["Mount"]
            where, what = mount["Where"][0], mount["What"][0]
            escaped = where.strip("/").replace("-", "\\x2d").replace("/", "-")
            self.assertEqual(path.name, f"{escaped}.mount", "systemd takes a mount unit's name from Where=")
            self.assertIn(where, seeded, f"{path.name} binds a folder data-seed does not fill")
            self.assertEqual(what, f"{data}/{seeded[where]}")
            self.assertIn("snapstation-data-seed.service", unit_file(path)["Unit"]["Requires"])

    def test_units_enabled(self):
        """should enable the binds, the restart path and the guard, each one found (enable-units skips the rest)"""
        root = self.fake_root()
        self.assertTrue(all(done.returncode == 0 for done in self.run_hooks(root)))
        log = self.enable_log.read_text().split("\n")
        for unit in ("etc-snapstation.mount", "var-lib-snapstation.mount", "snapstation-reboot.path",
                     "snapstation-update-guard.service"):
            self.assertIn(f"enabled {unit}", log)
        self.assertFalse([line for line in log if line.startswith("skipped")], log)

    def test_a_deb_without_the_update_units_fails_the_build(self):
        """should stop the build when the .deb lacks an update unit, which enable-units would skip silently"""
        root = self.fake_root()
        (root / "usr/lib/systemd/system/snapstation-update-guard.service").unlink()
        results = self.run_hooks(root)
        self.assertNotEqual(results[-1].returncode, 0)
        self.assertIn("snapstation-update-guard.service", results[-1].stderr)

    def test_os_release_and_machine_id(self):
        """should write IMAGE_ID=snapstation and the version once into os-release, and empty /etc/machine-id"""
        root = self.fake_root()
        self.assertTrue(all(done.returncode == 0 for done in self.run_hooks(root, version="2.3.4")))
        lines = (root / "usr/lib/os-release").read_text().splitlines()
        self.assertEqual([l for l in lines if l.startswith("IMAGE_")], ["IMAGE_ID=snapstation", "IMAGE_VERSION=2.3.4"])
        self.assertIn("ID=debian", lines)
        self.assertEqual((root / "etc/machine-id").read_bytes(), b"")

    def test_config_builds_the_ab_image_with_this_layer(self):
        """should list both layers on trixie's A/B layout, with ext4 slots as system-rpi.conf writes them"""
        config = yaml.safe_load(CONFIG.read_text())
        self.assertEqual(config["include"]["file"], "trixie-minbase-ab.yaml")
        self.assertIn("snapstation", config["layer"].values())
        self.assertIn(layer_metadata()["X-Env-Layer-Name"], config["layer"].values())
        self.assertNotIn("keyring", config.get("snapupdates", {}), "the keyring is the builder's, never the repository's")
        rootfs_types = {system_conf()[s]["type"] for s in system_conf().sections() if s.startswith("slot.rootfs.")}
        self.assertEqual(rootfs_types, {config["image"]["rootfs_type"]})

    @unittest.skipUnless(os.environ.get("RPI_IMAGE_GEN"), "RPI_IMAGE_GEN (an rpi-image-gen checkout) is not set: "
                         "the layer is not linted by rpi-image-gen itself")
    def test_rpi_image_gen_lints_the_layer(self):
        """should pass rpi-image-gen's own metadata lint"""
        tool = pathlib.Path(os.environ["RPI_IMAGE_GEN"]) / "bin/ig"
        done = subprocess.run([sys.executable, str(tool), "metadata", "--lint", str(LAYER)],
                              capture_output=True, text=True, timeout=60)
        self.assertEqual(done.returncode, 0, done.stdout + done.stderr)


class DataSeedTests(unittest.TestCase):
    def test_data_folder_from_one_variable(self):
        """should make the station's folders and RAUC's under SNAPSTATION_DATA, nothing under /data"""
        before = {p: p.exists() for p in (pathlib.Path("/data/snapstation"), pathlib.Path("/data/rauc"))}
        with tempfile.TemporaryDirectory() as folder:
            done = subprocess.run(["sh", str(OTA / "data-seed")], env=dict(os.environ, SNAPSTATION_DATA=folder),
                                  capture_output=True, text=True, timeout=10)
            self.assertEqual(done.returncode, 0, done.stderr)
            for made in ("snapstation/config", "snapstation/state", "rauc"):
                self.assertTrue((pathlib.Path(folder) / made).is_dir(), made)
            self.assertEqual(stat.S_IMODE((pathlib.Path(folder) / "snapstation/state").stat().st_mode), 0o750)
        self.assertEqual(before, {p: p.exists() for p in before})


# MARK: the image

TOOLS = ("sfdisk", "mkfs.vfat", "mcopy", "mtype")
SECTOR = 512
# rpi-image-gen's A/B partitions (image/gpt/ab_userdata/genimage.cfg.in.ext4), small: name, start, sectors.
PARTITIONS = (("bootconfig", 2048, 2048), ("boot_a", 4096, 4096), ("boot_b", 8192, 4096),
              ("system_a", 12288, 2048), ("system_b", 14336, 2048), ("persistent", 16384, 2048))


def missing_tools() -> list:
    search = os.environ.get("PATH", "") + ":/usr/sbin:/sbin"
    return [tool for tool in TOOLS if not shutil.which(tool, path=search)]


class PostImageTests(unittest.TestCase):
    def setUp(self):
        self.folder = tempfile.TemporaryDirectory()
        self.out = pathlib.Path(self.folder.name)
        self.environment = dict(os.environ, PATH=os.environ.get("PATH", "") + ":/usr/sbin:/sbin",
                                IGconf_image_name="snapstation", IGconf_image_suffix="img", MTOOLS_SKIP_CHECK="1")

    def tearDown(self):
        self.folder.cleanup()

    def make_image(self, partitions=PARTITIONS) -> pathlib.Path:
        """A GPT disk as genimage makes it: one FAT image with cmdline.txt placed in both boot partitions."""
        fat = self.out / "boot.vfat"
        subprocess.run(["mkfs.vfat", "-C", str(fat), str(4096 * SECTOR // 1024)], env=self.environment,
                       check=True, capture_output=True)
        (self.out / "cmdline.txt").write_text(CMDLINE + "\n")
        subprocess.run(["mcopy", "-i", str(fat), str(self.out / "cmdline.txt"), "::/cmdline.txt"],
                       env=self.environment, check=True, capture_output=True)
        image = self.out / "snapstation.img"
        with open(image, "wb") as disk:
            disk.truncate(20480 * SECTOR)
        script = "label: gpt\n" + "".join(f"start={start}, size={size}, name={name}\n"
                                          for name, start, size in partitions)
        subprocess.run(["sfdisk", "--no-reread", "--no-tell-kernel", str(image)], input=script, text=True,
                       env=self.environment, check=True, capture_output=True)
        with open(image, "r+b") as disk:
            for name, start, _ in partitions:
                if name.startswith("boot_"):
                    disk.seek(start * SECTOR)
                    disk.write(fat.read_bytes())
        return image

    def cmdline_of(self, image: pathlib.Path, partition: str) -> str:
        start = next(start for name, start, _ in PARTITIONS if name == partition)
        return subprocess.run(["mtype", "-i", f"{image}@@{start * SECTOR}", "::/cmdline.txt"], env=self.environment,
                              check=True, capture_output=True, text=True).stdout

    def post_image(self) -> subprocess.CompletedProcess:
        return subprocess.run([str(POST_IMAGE), str(self.out)], env=self.environment, capture_output=True,
                              text=True, timeout=30)

    def test_is_executable(self):
        """should be executable: rpi-image-gen's bin/runner skips a hook that is not, with only a warning"""
        self.assertTrue(os.access(POST_IMAGE, os.X_OK))
        self.assertTrue(os.access(HANDLER, os.X_OK), "the layer installs it 0755, but post-image.sh runs it with sh")

    def test_names_each_boot_partitions_slot(self):
        """should write rauc.slot=A into boot_a's and rauc.slot=B into boot_b's cmdline.txt, the rest kept, once"""
        if missing_tools():
            self.skipTest(f"{', '.join(missing_tools())} not installed (apt-get install fdisk dosfstools mtools)")
        image = self.make_image()
        for _ in range(2):
            done = self.post_image()
            self.assertEqual(done.returncode, 0, done.stderr)
            self.assertEqual(self.cmdline_of(image, "boot_a"), CMDLINE + " rauc.slot=A\n")
            self.assertEqual(self.cmdline_of(image, "boot_b"), CMDLINE + " rauc.slot=B\n")

    def test_an_image_without_slots_fails(self):
        """should fail, saying so, on a disk without boot_b (not the A/B layout)"""
        if missing_tools():
            self.skipTest(f"{', '.join(missing_tools())} not installed (apt-get install fdisk dosfstools mtools)")
        self.make_image(tuple(p for p in PARTITIONS if p[0] != "boot_b"))
        done = self.post_image()
        self.assertNotEqual(done.returncode, 0)
        self.assertIn("no partition named boot_b", done.stderr)


if __name__ == "__main__":
    result = unittest.main(exit=False, verbosity=1).result
    sys.stderr.flush()
    failed = len(result.failures) + len(result.errors)
    skipped = len(result.skipped)
    for test, reason in result.skipped:
        print(f"skipped: {test.id().split('.', 1)[1]}: {reason}")
    print(f"{result.testsRun - failed - skipped} passed, {failed} failed, {skipped} skipped")
    sys.exit(1 if failed or not result.testsRun else 0)
