"""The local stack (`python -m infra.dev`, what `make run` runs) as a child process
on free ports: for black-box tests and benchmarks that drive it over HTTP."""

import os
import re
import subprocess
import sys
import threading
import time
import weakref
from pathlib import Path

import requests

from tests.support import processes
from tests.support.tokens import SECRET

ROOT = Path(__file__).resolve().parents[2]
# How long a start may take before the stack counts as hung: a hang detector, not a
# target. A start is about 4 s of CPU on a developer's machine; on a machine three times
# slower, with four test processes and other runs sharing two cores, 60 s was not enough
# (20 stacks of one such run gave up at it, each one printing its functions' warm-ups).
READY_TIMEOUT_SECONDS = 300
# For stacks that take bursts of orders: the stock check waits up to 10 s, not 2. Tests
# run in parallel, and on a busy machine the cold starts of the environments a burst
# scales the inventory to can take longer than 2 s. Tests of the timeout set their own.
PATIENT_STOCK_CHECK = {"STOCK_CHECK_TIMEOUT_SECONDS": "10"}
# A stack beside any other: free ports, its data in memory, its code not reloaded, and
# its lines passed on as they are printed. It signs with the tests' key, so a test may
# mint any token for it (tests.support.tokens); JWT_SECRET="" leaves it to make its own,
# as `make run` does (then its printed token, or `make token` on its LOCAL_DATA_DIR).
A_STACK_OF_ITS_OWN = {
    "JWT_SECRET": SECRET.decode(),
    "GATEWAY_PORT": "0",
    "NOTIFICATION_PORT": "0",
    "DYNAMODB_PORT": "0",
    "LAMBDA_PORT": "0",
    "LOCAL_DATA_DIR": "",
    "RELOAD": "0",
    "PYTHONUNBUFFERED": "1",
    # The authorizer asks the pool about a token's account again after 1 s, not 30: a
    # test of a revoked token (sign-in, erasure) sees the 401 within a second or two
    # rather than waiting half a minute; the promise (60 s) is the default's.
    "ACCOUNT_CHECK_SECONDS": "1",
    # A busy machine (CI shares its cores) stretches a stock check past the default 2 s;
    # no test but a timeout's own (which sets it) is about that limit.
    **PATIENT_STOCK_CHECK,
}


# How long a test waits for a line it expects: a ceiling only a failure reaches (each wait
# returns with the line), so it is what a loaded CI host may take (an event's function
# invoked asynchronously behind a whole suite on two cores), not what a quiet one does.
LINE_WITHIN_SECONDS = 60.0

# What a stack's log says when something went wrong: a gateway answer with its reason (a
# 502 names the function and its error), a warning, an error, a traceback.
TROUBLE = re.compile(r'"reason"|"level": ?"(WARNING|ERROR|CRITICAL)"|Traceback|Error:')


class StackProcess:
    """`python -m infra.dev [args]` on free ports, its data in memory and its code
    not reloaded unless `env` says otherwise; `root` is the checkout it runs from."""

    # The stacks this process started: a failed test is told what their logs said
    # (tests/e2e/conftest.py), since a 502 says nothing else.
    running: "weakref.WeakSet[StackProcess]" = weakref.WeakSet()

    def __init__(self, env: dict | None = None, args: tuple = (), root: Path = ROOT):
        self.env = {
            **os.environ,
            **A_STACK_OF_ITS_OWN,
            **(env or {}),
        }
        self.args = list(args)
        self.root = root
        # The stack must find its own endpoints, never the calling process's emulator.
        for name in ("AWS_ENDPOINT_URL_DYNAMODB", "AWS_ENDPOINT_URL_LAMBDA"):
            self.env.pop(name, None)
        self.lines: list[str] = []
        self._lock = threading.Lock()

    def start(self) -> "StackProcess":
        self.proc = processes.start(
            [sys.executable, "-m", "infra.dev", *self.args],
            cwd=self.root,
            env=self.env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        threading.Thread(target=self._read, daemon=True).start()
        StackProcess.running.add(self)
        deadline = time.monotonic() + READY_TIMEOUT_SECONDS
        while not self.find(r"^Ready\."):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError("local stack did not start:\n" + self.output())
            time.sleep(0.05)
        self.notifications = self.find(r"^Notifications:\s+(\S+)")[1].removesuffix(
            "/notificaciones"
        )
        self.token = self.find(r"^Token:\s+(\S+)")[1]
        self.dynamodb = self.find(r"^DynamoDB:\s+(\S+)")[1]
        self.lambda_url = self.find(r"^Lambda:\s+(\S+)")[1]
        gateway, docs = self.find(r"^Gateway:\s+(http\S+)"), self.find(r"^Docs:\s+(\S+)")
        self.gateway, self.docs = gateway and gateway[1], docs and docs[1]
        return self

    def _read(self) -> None:
        for line in self.proc.stdout:
            with self._lock:
                self.lines.append(line.rstrip("\n"))

    def find(self, pattern: str):
        with self._lock:
            for line in self.lines:
                match = re.search(pattern, line)
                if match:
                    return match
        return None

    def trouble(self, last: int = 30) -> list[str]:
        """The last lines of its log that say something went wrong (TROUBLE)."""
        with self._lock:
            return [line for line in self.lines if TROUBLE.search(line)][-last:]

    def output(self) -> str:
        with self._lock:
            return "\n".join(self.lines)

    def wait_for_line(self, predicate, timeout: float = LINE_WITHIN_SECONDS) -> str:
        lines = self.wait_for_lines(lambda lines: any(predicate(line) for line in lines), timeout)
        return next(line for line in lines if predicate(line))

    def wait_for_lines(
        self, done, timeout: float = LINE_WITHIN_SECONDS, since: int = 0
    ) -> list[str]:
        """The lines from `since` on, once `done` holds of them. Each function's lines
        reach this output through its own pipe, so lines of different functions can
        arrive in any order: wait for every line a test needs, not for the last one
        it expects."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self._lock:
                lines = self.lines[since:]
            if done(lines):
                return lines
            time.sleep(0.05)
        raise AssertionError("no matching log lines in:\n" + self.output())

    def make_user(self, *variables: str) -> str:
        """`make user VAR=...` against this stack's emulator (its user pool), as a user of
        the checkout would run it; what it printed."""
        result = self.make_user_refused_or_not(*variables)
        assert result.returncode == 0, result.stderr
        return result.stdout.strip()

    def make_user_refused_or_not(self, *variables: str) -> subprocess.CompletedProcess:
        """`make user VAR=...` against this stack, however it ends."""
        return subprocess.run(
            ["make", "-s", "user", *variables],
            cwd=self.root,
            capture_output=True,
            text=True,
            timeout=120,
            env={**os.environ, "DYNAMODB_PORT": self.dynamodb.rsplit(":", 1)[1]},
        )

    def stop(self) -> int:
        """SIGTERM to the stack (it stops its functions, then saves the data); whatever
        of its process group is left after that is killed."""
        return processes.stop(self.proc)


class StackClient:
    """Requests to one running stack, with a bearer token unless told otherwise."""

    def __init__(self, stack: StackProcess, bearer: str):
        self.stack = stack
        self.bearer = bearer

    def gateway(self, method: str, path: str, *, auth: bool = True, **kw):
        headers = kw.pop("headers", {})
        if auth:
            headers.setdefault("Authorization", f"Bearer {self.bearer}")
        kw.setdefault("timeout", 30)
        return requests.request(method, self.stack.gateway + path, headers=headers, **kw)

    def notify(self, method: str, path: str, **kw):
        return requests.request(method, self.stack.notifications + path, timeout=30, **kw)
