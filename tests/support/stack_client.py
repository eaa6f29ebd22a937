"""What a user of `make run` runs beside the stack: `make -s token` for a bearer token,
`make dead-letters` and `make redrive`."""

import os
import subprocess
import sys

from tests.support.stack_process import ROOT, StackProcess
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


def dead_letters(stack: StackProcess, action: str) -> subprocess.CompletedProcess:
    """`make dead-letters` (`list`) or `make redrive` (`redrive`) against `stack`."""
    ports = {
        "DYNAMODB_PORT": stack.dynamodb.rsplit(":", 1)[1],
        "LAMBDA_PORT": stack.lambda_url.rsplit(":", 1)[1],
    }
    return subprocess.run(
        [sys.executable, "-m", "infra.dead_letters", action],
        cwd=ROOT,
        env={**stack.env, **ports},
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
