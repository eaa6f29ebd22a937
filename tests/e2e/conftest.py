"""Black-box fixtures: the real local stack (what `make run` runs) over HTTP."""

import pytest

from tests.support.stack_client import token
from tests.support.stack_process import PATIENT_STOCK_CHECK, StackClient, StackProcess


@pytest.fixture(scope="session")
def stack():
    """The real local stack over HTTP, shared by the black-box tests of one run."""
    running = StackProcess(PATIENT_STOCK_CHECK).start()
    yield running
    running.stop()


@pytest.fixture(scope="session")
def http(stack):
    return StackClient(stack, token())
