"""Black-box fixtures: the real local stack (what `make run` runs) over HTTP."""

import pytest

from tests.support.stack_client import token
from tests.support.stack_process import PATIENT_STOCK_CHECK, StackClient, StackProcess


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    """A failed test is shown what the logs of this process's stacks said went wrong: a
    502's body says nothing, the gateway's line names the function and why (an init past
    its limit, a timeout, a traceback). A stack the test stopped in its `finally` is
    still held by the failure's traceback: its lines are shown too, marked stopped."""
    report = yield
    if report.failed and call.when == "call":
        for running in list(StackProcess.running):
            if lines := running.trouble():
                state = "trouble" if running.proc.poll() is None else "trouble (stopped)"
                report.sections.append((f"stack on {running.gateway}: {state}", "\n".join(lines)))
    return report


@pytest.fixture(scope="session")
def stack():
    """The real local stack over HTTP, shared by the black-box tests of one run."""
    running = StackProcess(PATIENT_STOCK_CHECK).start()
    yield running
    running.stop()


@pytest.fixture(scope="session")
def http(stack):
    return StackClient(stack, token())
