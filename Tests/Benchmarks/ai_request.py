#!/usr/bin/env python3
"""What one meal analysis sends and costs: request body size and image tokens (OpenAI's tiling rule),
for the station's default (low detail, the copy sized for the model) against high detail and against
sending the whole processed 2048-px photo. Nothing is sent: `snapstation analyze --dry-run` builds the
same request the station would.

    python3 Tests/Benchmarks/ai_request.py [--input photo.jpg] [--binary .build/debug/snapstation]
"""
import argparse
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
from imaging import make_input  # noqa: E402  (the same noisy 12 MP photo as the imaging benchmark)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--input")
    parser.add_argument("--binary", default=".build/debug/snapstation")
    args = parser.parse_args()
    if not os.path.exists(args.binary):
        subprocess.run(["swift", "build", "--product", "snapstation"], check=True)
    work = tempfile.mkdtemp(prefix="snapbench-ai-")
    photo = args.input or os.path.join(work, "12mp.jpg")
    if not args.input:
        make_input(photo)
    for model in ["gpt-4o-mini", "gpt-4o"]:
        config = os.path.join(work, f"{model}.toml")
        with open(config, "w") as file:
            file.write(f'[ai]\nmodel = "{model}"\ndetail = "low"\n')
        subprocess.run([args.binary, "analyze", photo, "--config", config, "--dry-run"], check=True)
        print()


if __name__ == "__main__":
    main()
