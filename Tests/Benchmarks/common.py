"""What the benchmarks here share: the repository's root, the release binary (built when missing; the
figures are never taken from a debug build), and Pillow with NumPy for the peers drawn in Python (from
PyPI into .build-bench/venv when this Python lacks them)."""
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BINARY = os.path.join(ROOT, ".build/release/snapstation")


def release_binary(path=BINARY):
    """`path`, after building the release snapstation when it is missing."""
    if not os.path.exists(path):
        print("building the release binary…", flush=True)
        subprocess.run(["swift", "build", "-c", "release", "--product", "snapstation"], cwd=ROOT, check=True)
    return path


def ensure_pillow():
    """Runs the calling script again in a virtual environment with Pillow and NumPy when they are missing."""
    try:
        import numpy  # noqa: F401
        import PIL  # noqa: F401
        return
    except ImportError:
        pass
    venv = os.path.join(ROOT, ".build-bench", "venv")
    python = os.path.join(venv, "bin", "python")
    if os.path.realpath(sys.prefix) == os.path.realpath(venv):
        raise SystemExit("Pillow and NumPy are missing from .build-bench/venv even after installing them")
    if not os.path.exists(python):
        subprocess.run([sys.executable, "-m", "venv", venv], check=True)
    subprocess.run([python, "-m", "pip", "install", "-q", "pillow", "numpy"], check=True)
    os.execv(python, [python] + sys.argv)
