"""Processes the tests start, each in a process group of its own, so that stopping one
stops everything it started (a stack's emulator and function workers, `chalice local`'s
worker, what `make` ran), whether the test passed or failed.

Every process started here is remembered until it is stopped: an autouse fixture
(tests/conftest.py) stops those a test started and left running, and the end of the
session stops any still left. A run that never reaches its end (a CI timeout, Ctrl-C, a
killed worker) leaves nothing either: each process gets SIGTERM when the test process
that started it dies (Linux's parent-death signal; a stack then stops all it started),
and carries OWNER, its test process's pid, so that the next run sweeps whatever
outlived its owner (`sweep`).
"""

import contextlib
import ctypes
import os
import signal
import subprocess
import threading
from pathlib import Path

STOP_SECONDS = 15
# In the environment of every process a test starts: the pid of the test process.
OWNER = "LOGISTICS_TEST_OWNER"
_PR_SET_PDEATHSIG = 1

_started: set[subprocess.Popen] = set()
_lock = threading.Lock()


def _dies_with_its_parent() -> None:
    """In the child, before it runs: SIGTERM when the process that started it ends."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)


def start(args: list[str], **popen) -> subprocess.Popen:
    """`subprocess.Popen(args, **popen)` in a new session (its own process group), ended
    with this process if it is still running then."""
    env = {**(popen.pop("env", None) or os.environ), OWNER: str(os.getpid())}
    process = subprocess.Popen(
        args, start_new_session=True, preexec_fn=_dies_with_its_parent, env=env, **popen
    )
    with _lock:
        _started.add(process)
    return process


def _owner_of(pid: int) -> int | None:
    try:
        environ = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    except OSError:  # ended, a zombie, or not ours to read
        return None
    for entry in environ:
        if entry.startswith(OWNER.encode() + b"="):
            return int(entry.split(b"=", 1)[1])
    return None


def sweep() -> list[int]:
    """Kill every process a test started whose test process is gone (a run ended before
    it could stop them); returns their pids."""
    swept = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        owner = _owner_of(int(entry.name))
        if owner is not None and not Path(f"/proc/{owner}").exists():
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(int(entry.name), signal.SIGKILL)
                swept.append(int(entry.name))
    return swept


def stop(
    process: subprocess.Popen,
    first: signal.Signals = signal.SIGTERM,
    group: bool = False,
    timeout: float = STOP_SECONDS,
) -> int:
    """`first` to the process (to its whole group with `group`, as Ctrl-C sends SIGINT to
    a terminal's foreground group), up to `timeout` seconds for it to end; then SIGKILL to
    whatever of its group is left. Returns its exit status."""
    if process.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            if group:
                os.killpg(process.pid, first)
            else:
                process.send_signal(first)
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=timeout)
    # Children it left behind (or its own stuck self) share its group: none outlives it.
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)
    process.wait()
    with _lock:
        _started.discard(process)
    return process.returncode


def started() -> set[subprocess.Popen]:
    with _lock:
        return set(_started)


def stop_all(processes: set[subprocess.Popen]) -> None:
    for process in processes:
        stop(process, timeout=5)


def session_members(leader: int) -> list[int]:
    """Every other process of the session `leader` leads (each process `start` starts
    leads one): what it started and what those started, wherever they were reparented
    meanwhile; one that ends while they are listed is left out."""
    members = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == leader:
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:  # ended since /proc was listed
            continue
        if int(fields[3]) == leader:  # its session id
            members.append(int(entry.name))
    return members


def functions_of(lambda_url: str) -> dict[str, dict]:
    """Each function's processes in a local stack whose Lambda service is at
    `lambda_url`: {"snapshot": pid or None, "environments": [pids]}."""
    import requests

    from infra.local.lambdas import PROCESSES_PATH

    return requests.get(lambda_url + PROCESSES_PATH, timeout=30).json()


def resident_mib(pid: int) -> float:
    """A process's resident memory (VmRSS), in MiB; 0 for one that has ended or is a
    zombie (it holds none)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return 0.0
    for line in status.splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def emulator_of(leader: int) -> int | None:
    """The AWS emulator process (infra/local/aws_process.py) of the local stack `leader`
    leads, if one is running now (a zombie's command line reads empty: it is not)."""
    for pid in session_members(leader):
        try:
            command = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        except OSError:  # ended since it was listed
            continue
        if b"infra.local.aws_process" in command:
            return pid
    return None
