"""A copy of this checkout, as a clone would have it: for tests that change files or run
commands a user types (`make`, `chalice ...`) where nothing of theirs can touch the
checkout under test."""

import os
import shutil
import subprocess
from pathlib import Path

from tests.support.stack_process import ROOT

# What a make or a venv of ours, or the tests' own emulator and key, put in the environment.
_OURS = {
    "JWT_SECRET",
    "MAKEFLAGS",
    "MAKELEVEL",
    "MFLAGS",
    "VIRTUAL_ENV",
    "SAM_VENV",
    "AWS_ENDPOINT_URL_DYNAMODB",
    "AWS_ENDPOINT_URL_LAMBDA",
}


def fresh_terminal_env(*also: str) -> dict[str, str]:
    """The environment of a terminal on a fresh machine: this one's without what a make
    or a venv of ours put in it, nor the variables named in `also`."""
    return {name: value for name, value in os.environ.items() if name not in {*_OURS, *also}}


def copy_checkout(destination: Path) -> Path:
    """Every file git tracks or would track (not what .gitignore keeps out: no .venv, no
    data), as it is in the working tree."""
    listed = (
        subprocess.run(
            ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            cwd=ROOT,
            capture_output=True,
            check=True,
        )
        .stdout.decode()
        .split("\0")
    )
    for name in filter(None, listed):
        source = ROOT / name
        if source.is_file():  # a tracked file deleted in the working tree is not copied
            (destination / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, destination / name)
    return destination
