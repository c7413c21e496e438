"""What the benchmarks here share: the repository's root, the release binary (built when missing; the
figures are never taken from a debug build), and Pillow with NumPy for the peers drawn in Python (from
PyPI into .build-bench/venv when this Python lacks them)."""
import os
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "Support"))
from pychecks import in_venv  # noqa: E402  (Tests/Support/pychecks.py)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BINARY = os.path.join(ROOT, ".build/release/snapstation")


def release_binary(path=BINARY):
    """`path`, after building the release snapstation when it is missing."""
    if not os.path.exists(path):
        print("building the release binary…", flush=True)
        # As the station ships (the .deb, the VM suites): with the Swift runtime linked in.
        subprocess.run(["swift", "build", "-c", "release", "--static-swift-stdlib", "--product", "snapstation"],
                       cwd=ROOT, check=True)
    return path


def ensure_pillow():
    """Runs the calling script again in a virtual environment with Pillow and NumPy when they are missing."""
    def have():
        try:
            import numpy  # noqa: F401
            import PIL  # noqa: F401
            return True
        except ImportError:
            return False
    in_venv("venv", ["pillow", "numpy"], have)


def instructions(command):
    """Instructions executed by one run of `command` (all threads), counted by valgrind's callgrind: a
    figure that does not move with the machine's load."""
    result = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *command],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    for line in result.stderr.splitlines():
        if "Collected :" in line:
            return int(line.split("Collected :")[1].strip())
    sys.exit(f"callgrind counted nothing for {' '.join(command)}: {result.stderr[-500:]}")


def without_debug_info(binary, folder):
    """A copy of `binary` without debug sections, for valgrind: it cannot read the DWARF of a Swift binary
    with the runtime linked in ("possibly corrupted debuginfo"). The copy runs the same instructions."""
    if not shutil.which("valgrind"):
        sys.exit("instruction counts need valgrind: apt-get install valgrind")
    copy = os.path.join(folder, "snapstation-nodebug")
    subprocess.run(["objcopy", "--strip-debug", binary, copy], check=True)
    return copy


def page_config(folder, web, mode, extra=""):
    """A config for a benchmark of the owner's page: the station in `mode` on UTC, the display awake, the
    page on (`web`) at a free port of this machine only, and `extra` TOML tables. Its path."""
    path = os.path.join(folder, f"snapstation-{'web' if web else 'noweb'}.toml")
    with open(path, "w") as f:
        f.write(f"""[station]
time_zone = "UTC"
default_mode = "{mode}"
[display]
idle_seconds = 0
preview_png_fps = 1.0
[web]
enabled = {"true" if web else "false"}
address = "127.0.0.1"
port = 0
{extra}""")
    return path


class Station:
    """The real binary running, with a pipe on standard input and its log read line by line as it comes,
    each line with its arrival time (time.monotonic)."""

    def __init__(self, binary, config, state, environment=None, arguments=()):
        """`environment` adds to this process's; a value of None removes the variable."""
        import threading
        self.process = subprocess.Popen(
            [binary, "run", "--config", config, "--state", state, *arguments], stdin=subprocess.PIPE,
            stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True, bufsize=1,
            env={name: value for name, value in dict(os.environ, **(environment or {})).items() if value is not None})
        self.started = time.monotonic()
        self.lines = []
        self.condition = threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.process.stderr:
            with self.condition:
                self.lines.append((time.monotonic(), line.rstrip("\n")))
                self.condition.notify_all()

    def wait(self, text, after=0, timeout=60):
        """The arrival time and index of the first line from `after` on that contains `text`."""
        deadline = time.monotonic() + timeout
        with self.condition:
            while True:
                for index in range(after, len(self.lines)):
                    if text in self.lines[index][1]:
                        return self.lines[index][0], index
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise TimeoutError(f"no '{text}' within {timeout} s; last lines: {self.lines[-5:]}")
                self.condition.wait(remaining)

    def mark(self):
        """The index of the next log line: what `match` and `latest` take as `after`."""
        with self.condition:
            return len(self.lines)

    def latest(self, pattern, after=0):
        """The first group (or the whole line) of the last line from `after` on matching the regular
        expression, or None: a look, no wait."""
        import re
        with self.condition:
            lines = [line for _, line in self.lines[after:]]
        for line in reversed(lines):
            found = re.search(pattern, line)
            if found:
                return found.group(1) if found.groups() else line
        return None

    def match(self, pattern, after=0, timeout=60):
        """The first group (or the whole line) of the first line from `after` on matching the regular
        expression; waits for one."""
        import re
        deadline = time.monotonic() + timeout
        with self.condition:
            while True:
                for _, line in self.lines[after:]:
                    found = re.search(pattern, line)
                    if found:
                        return found.group(1) if found.groups() else line
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise TimeoutError(f"no {pattern!r} within {timeout} s; last lines: {self.lines[-5:]}")
                self.condition.wait(remaining)

    def type(self, word):
        """Types a button word; returns when it was sent and the index of the next log line."""
        with self.condition:
            start = len(self.lines)
        sent = time.monotonic()
        self.process.stdin.write(word + "\n")
        self.process.stdin.flush()
        return sent, start

    def pair(self, port):
        """Pairs a client as the owner does (the pairing screen's code, logged at debug level, sent to
        /pair): the headers its requests carry."""
        import http.client
        import urllib.parse
        self.type("pair")
        code = self.match(r"pairing code (\d{8})")
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        connection.request("POST", "/pair", body=urllib.parse.urlencode({"code": code}),
                           headers={"Content-Type": "application/x-www-form-urlencoded"})
        response = connection.getresponse()
        response.read()
        connection.close()
        return {"Cookie": response.getheader("Set-Cookie").split(";")[0]}

    def memory(self):
        """Resident and private kB, from /proc."""
        pid = self.process.pid
        with open(f"/proc/{pid}/status") as status:
            rss = int(next(line for line in status if line.startswith("VmRSS:")).split()[1])
        private = 0
        with open(f"/proc/{pid}/smaps_rollup") as rollup:
            for line in rollup:
                if line.startswith(("Private_Clean:", "Private_Dirty:")):
                    private += int(line.split()[1])
        return rss, private

    def dirty(self):
        """Private dirty kB: the heap, the stacks and every page the process wrote, which no other process
        shares. Unlike Private_Clean, it does not move when another process maps the same libraries."""
        with open(f"/proc/{self.process.pid}/smaps_rollup") as rollup:
            return sum(int(line.split()[1]) for line in rollup if line.startswith("Private_Dirty:"))

    def breakdown(self, top=8):
        """Resident kB by what is mapped (/proc/PID/smaps): each library or file, the heap, anonymous
        mappings and stacks; the `top` largest, then the rest summed."""
        parts, name = {}, None
        with open(f"/proc/{self.process.pid}/smaps") as smaps:
            for line in smaps:
                fields = line.split()
                if "-" in fields[0] and len(fields[0]) > 8 and ":" not in fields[0]:
                    path = fields[5] if len(fields) > 5 else "[anonymous]"
                    name = os.path.basename(path) if path.startswith("/") else path
                elif fields[0] == "Rss:" and name:
                    parts[name] = parts.get(name, 0) + int(fields[1])
        ranked = sorted(parts.items(), key=lambda item: -item[1])
        return ranked[:top] + [("the rest", sum(kb for _, kb in ranked[top:]))]

    def cpu_seconds(self):
        """User and system CPU time the process has used so far."""
        with open(f"/proc/{self.process.pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def stop(self):
        """Ends the station (killed if it does not stop within 30 s); returns its log. Safe to call twice."""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        time.sleep(0.2)
        with self.condition:
            return [line for _, line in self.lines]
