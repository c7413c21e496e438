"""What the Python check scripts share (Tests/Group/check_fake.py, Tests/AI/check_openai_sdk.py, the
benchmarks' common.py): a check that reports and goes on, the closing "N passed, N failed" line, and a
virtual environment with the PyPI packages a script needs."""
import os
import subprocess
import sys
import time
from contextlib import contextmanager

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
results = {"passed": 0, "failed": 0}


@contextmanager
def check(title):
    """One check: its outcome and time on a line; a failure is counted and reported, and the next one runs."""
    start = time.monotonic()
    try:
        yield
        outcome = "ok  "
        results["passed"] += 1
    except Exception as error:  # reported; the next check runs
        outcome = "FAIL"
        results["failed"] += 1
        print(f"     {type(error).__name__}: {error}")
    print(f"{outcome} {(time.monotonic() - start) * 1000:6.0f} ms  {title}", flush=True)


def finish(prefix=""):
    """Prints the closing line CI reads and exits non-zero when a check failed."""
    print(f"{prefix}{results['passed']} passed, {results['failed']} failed")
    sys.exit(1 if results["failed"] else 0)


def in_venv(name, packages, have):
    """Runs the calling script again in .build-bench/NAME with `packages` (pip arguments) installed, unless
    `have()` says this Python has them already."""
    if have():
        return
    venv = os.path.join(ROOT, ".build-bench", name)
    python = os.path.join(venv, "bin", "python")
    if os.path.realpath(sys.prefix) == os.path.realpath(venv):
        raise SystemExit(f"{' '.join(packages)}: still missing from .build-bench/{name} after installing")
    if not os.path.exists(python):
        subprocess.run([sys.executable, "-m", "venv", venv], check=True)
    subprocess.run([python, "-m", "pip", "install", "-q", *packages], check=True)
    os.execv(python, [python] + sys.argv)
