"""The test loop as CI runs it: `make test` in a clean clone of a commit, several times in
a row, alone or with other processes keeping the cores busy (a test run must pass on a
busy machine as on an idle one).

Usage: `make bench-loop [RUNS=5] [LOAD=2] [REF=<commit>]` (or .venv/bin/python
bench/loop.py --runs 5 --load 2 --ref HEAD). The clone is made once (`git clone`, as CI
does; its package caches are this machine's, warm after the first run) and each run is
`make test` in it, timed; with --load N, N processes spin on the CPU for as long as the
runs last. Prints each run's time and result, and the failed tests of a failed one; each
run's whole output is kept in a folder under the temporary directory, named in the table.
"""

import argparse
import multiprocessing
import re
import subprocess
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGET_SECONDS = 480  # make test alone on a developer's 2-core machine


def spin() -> None:
    while True:
        pass


def clone(ref: str, into: Path) -> Path:
    checkout = into / "clone"
    subprocess.run(["git", "clone", "--quiet", str(ROOT), str(checkout)], check=True)
    subprocess.run(["git", "checkout", "--quiet", ref], cwd=checkout, check=True)
    return checkout


def run_once(checkout: Path, log: Path) -> tuple[float, int, list[str]]:
    """One `make test`, its whole output kept in `log` (a failure's traceback is what a
    flaky test's fix needs)."""
    started = time.monotonic()
    done = subprocess.run(
        ["make", "test"], cwd=checkout, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    took = time.monotonic() - started
    log.write_text(done.stdout)
    failed = re.findall(r"^(?:FAILED|ERROR) (\S+)", done.stdout, re.M)
    return took, done.returncode, failed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--load", type=int, default=0, help="processes spinning beside")
    parser.add_argument("--ref", default="HEAD")
    args = parser.parse_args()
    ref = subprocess.run(
        ["git", "rev-parse", "--short", args.ref], cwd=ROOT, capture_output=True, text=True
    ).stdout.strip()
    spinners = [multiprocessing.Process(target=spin, daemon=True) for _ in range(args.load)]
    for spinner in spinners:
        spinner.start()
    passed = 0
    logs = Path(tempfile.mkdtemp(prefix="loop-logs-"))
    try:
        with tempfile.TemporaryDirectory(prefix="loop-") as scratch:
            checkout = clone(ref, Path(scratch))
            print(f"make test on {ref}, {args.runs} runs, {args.load} spinning processes beside")
            print("| run | seconds | result | failed |")
            print("|---|---|---|---|")
            for number in range(1, args.runs + 1):
                log = logs / f"run-{number}.txt"
                took, code, failed = run_once(checkout, log)
                passed += code == 0
                result = "passed" if code == 0 else f"FAILED ({code}; {log})"
                print(f"| {number} | {took:.0f} | {result} | {', '.join(failed)} |", flush=True)
    finally:
        for spinner in spinners:
            spinner.terminate()
    print(f"\n{passed} of {args.runs} passed (target: all; {TARGET_SECONDS} s each, idle)")
    raise SystemExit(0 if passed == args.runs else 1)


if __name__ == "__main__":
    main()
