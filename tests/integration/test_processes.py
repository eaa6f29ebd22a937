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
