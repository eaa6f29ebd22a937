"""A bearer token for a running local stack, the way a user of `make run` gets one."""

import os
import subprocess

from tests.support.stack_process import ROOT
from tests.support.tokens import SECRET


def token(*variables: str) -> str:
    """A token from `make -s token [ROLE=customer USER_ID=42]`, the command the README
    tells people to use, with the key of the stacks StackProcess starts (the tests')."""
    result = subprocess.run(
        ["make", "-s", "token", *variables],
        cwd=ROOT,
        env={**os.environ, "JWT_SECRET": SECRET.decode()},
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    lines = result.stdout.splitlines()
    assert len(lines) == 1, result.stdout
    return lines[0]
