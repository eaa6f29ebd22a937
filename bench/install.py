"""Rerunnable benchmark: what a fresh clone costs before it is useful.

Usage: .venv/bin/python bench/install.py [--ref REF] [--runs N] (`make bench-install`).
Each run clones REF of this repository into a temporary directory and, with package
caches that start EMPTY (XDG_CACHE_HOME, PIP_CACHE_DIR and UV_CACHE_DIR all point into
it, so neither pip nor uv finds anything it downloaded before), times:

- `make run`: from the command to the line "Ready." (.venv installed, the stack up; ports
  chosen by the system, data in memory, reload off), then Ctrl-C to its process group;
- `make test`'s installs, in a second fresh clone: `make .venv/.ready-3.13 .venv-sam/.ready-3.13`,
  what `make test` runs before ruff and pytest;
- both again in new clones with the caches the first ones filled ("warm").

REF is any commit: the commit before uv (e6af73d) measures pip's installs. Prints one
Markdown row per run and measurement, then the medians.
"""

import argparse
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tests.support.checkout import fresh_terminal_env
from tests.support.stack_process import A_STACK_OF_ITS_OWN

ROOT = Path(__file__).resolve().parent.parent
READY = "Ready. Ctrl-C stops everything."
# A terminal on a fresh machine, whose package caches the runs point where they say.
USER_ENV = fresh_terminal_env("UV_CACHE_DIR", "PIP_CACHE_DIR", "XDG_CACHE_HOME")


def clone(ref: str, into: Path) -> Path:
    subprocess.run(["git", "clone", "--quiet", "--no-checkout", str(ROOT), str(into)], check=True)
    subprocess.run(["git", "-C", str(into), "checkout", "--quiet", ref], check=True)
    return into


def caches(root: Path) -> dict:
    return {
        "XDG_CACHE_HOME": str(root),
        "PIP_CACHE_DIR": str(root / "pip"),
        "UV_CACHE_DIR": str(root / "uv"),
    }


def until_ready(checkout: Path, env: dict, timeout: float = 900) -> float:
    """Seconds from `make run` to its "Ready." line; then Ctrl-C, and wait for the stop."""
    started = time.monotonic()
    run = subprocess.Popen(
        ["make", "-s", "run"],
        cwd=checkout,
        text=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
        env={**env, **A_STACK_OF_ITS_OWN},
    )
    try:
        for line in run.stdout:
            if line.rstrip("\n") == READY:
                return time.monotonic() - started
            if time.monotonic() - started > timeout:
                break
        raise RuntimeError(f"`make run` in {checkout} never said {READY!r}")
    finally:
        os.killpg(run.pid, signal.SIGINT)
        try:
            run.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(run.pid, signal.SIGKILL)
            run.wait()


def installs(checkout: Path, env: dict) -> float:
    """Seconds `make test` spends installing: both venvs, from nothing."""
    started = time.monotonic()
    subprocess.run(
        ["make", "-s", ".venv/.ready-3.13", ".venv-sam/.ready-3.13"],
        cwd=checkout,
        env=env,
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        timeout=3600,
    )
    return time.monotonic() - started


def one_run(ref: str, scratch: Path) -> dict[str, float]:
    # Each measurement's caches start empty: a directory of its own; the warm ones reuse it.
    run_env = {**USER_ENV, **caches(scratch / "cache-run")}
    test_env = {**USER_ENV, **caches(scratch / "cache-test")}
    return {
        "make run, empty caches": until_ready(clone(ref, scratch / "run"), run_env),
        "make test installs, empty caches": installs(clone(ref, scratch / "test"), test_env),
        "make run, warm caches": until_ready(clone(ref, scratch / "run-warm"), run_env),
        "make test installs, warm caches": installs(clone(ref, scratch / "test-warm"), test_env),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ref", default="HEAD", help="the commit to clone (default HEAD)")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    ref = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "--short", args.ref],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    results: dict[str, list[float]] = {}
    print("| commit | run | measurement | seconds |\n|---|---|---|---|")
    for number in range(1, args.runs + 1):
        with tempfile.TemporaryDirectory(prefix="bench-install-") as scratch:
            for what, seconds in one_run(ref, Path(scratch)).items():
                results.setdefault(what, []).append(seconds)
                print(f"| {ref} | {number} | {what} | {seconds:.1f} |", flush=True)
    print("\n| commit | measurement | median s | runs |\n|---|---|---|---|")
    for what, values in results.items():
        print(
            f"| {ref} | {what} | {statistics.median(values):.1f} | "
            f"{', '.join(f'{v:.1f}' for v in values)} |"
        )


if __name__ == "__main__":
    sys.exit(main())
