"""The tests' own process handling (tests/support/processes.py): stopping a process
stops everything it started, even what ignores the polite signal."""

import os
import subprocess
import sys
import time

from tests.support import processes

# A parent that starts a child which ignores SIGTERM, prints the child's pid, and waits.
FAMILY = """
import signal, subprocess, sys
child = subprocess.Popen([sys.executable, "-c",
    "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(300)"])
print(child.pid, flush=True)
child.wait()
"""


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie is gone but for its parent's wait: init reaps it.
    with open(f"/proc/{pid}/stat") as stat:
        return stat.read().split(") ", 1)[1][0] != "Z"


def test_stopping_a_process_stops_its_children_even_those_that_ignore_sigterm():
    parent = processes.start([sys.executable, "-c", FAMILY], stdout=subprocess.PIPE, text=True)
    child = int(parent.stdout.readline())
    assert parent in processes.started() and alive(child)
    processes.stop(parent, timeout=1)
    assert parent.poll() is not None
    deadline = time.monotonic() + 5  # SIGKILL is delivered, not waited for
    while alive(child) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not alive(child)
    assert parent not in processes.started()


# A test run that starts a stack (as a test does) and is then killed before its end.
RUN_WITH_A_STACK = """
import sys, time
from tests.support.processes import session_members
from tests.support.stack_process import StackProcess
stack = StackProcess().start()
print(" ".join(map(str, [stack.proc.pid, *session_members(stack.proc.pid)])), flush=True)
time.sleep(600)
"""
# A test run that starts FAMILY (whose child ignores SIGTERM), then is killed.
RUN_WITH_A_STUBBORN_CHILD = f"""
import subprocess, sys, time
from tests.support import processes
family = processes.start([sys.executable, "-c", {FAMILY!r}], stdout=subprocess.PIPE, text=True)
print(family.stdout.readline().strip(), flush=True)
time.sleep(600)
"""


def killed_run(script: str) -> list[int]:
    """Runs `script` as a test run of its own, reads the pids it prints, and kills it
    outright (SIGKILL: nothing of it runs again, as when a CI limit or the OOM killer
    ends a run); returns those pids."""
    run = subprocess.Popen(
        [sys.executable, "-c", script], stdout=subprocess.PIPE, text=True, start_new_session=True
    )
    try:
        pids = [int(pid) for pid in run.stdout.readline().split()]
    finally:
        run.kill()
        run.wait()
    assert pids, "the run printed no pid"
    return pids


def gone_within(pids: list[int], seconds: float) -> list[int]:
    """The pids still alive after waiting up to `seconds` for them all to end."""
    deadline = time.monotonic() + seconds
    while any(alive(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.1)
    return [pid for pid in pids if alive(pid)]


def test_a_stack_started_by_a_run_that_is_killed_stops_with_everything_it_started():
    pids = killed_run(RUN_WITH_A_STACK)
    assert len(pids) > 3  # the stack, its emulator, its functions' processes
    assert gone_within(pids, 60) == []


def test_what_outlives_its_killed_run_is_swept_by_the_next():
    (stubborn,) = killed_run(RUN_WITH_A_STUBBORN_CHILD)
    # Its parent gets SIGTERM with the run; it ignores SIGTERM and lives on, orphaned.
    assert alive(stubborn)
    assert stubborn in processes.sweep()
    assert gone_within([stubborn], 10) == []
