"""Shared by every test: AWS clients never look for real credentials; tokens are signed
with the tests' own key; the emulator; no process a test started outlives it.

Storage tests run against the same locked moto server the local stack uses (not an
in-process mock), so what they prove about conditional writes holds for `make run`.
"""

import os

import pytest

from infra.local import LOCAL_AWS_ENV
from tests.support import processes
from tests.support.tokens import SECRET

for _key, _value in LOCAL_AWS_ENV.items():
    os.environ.setdefault(_key, _value)
# The key of the apps built in-process (AllSettings.from_env()): the tests' own, whatever
# the shell holds. A stack started without it makes its own (tests/e2e/test_local_key.py).
os.environ["JWT_SECRET"] = SECRET.decode()


@pytest.fixture(scope="session")
def emulator():
    from infra.local.emulator import emulator
    from token_claims.claims import with_user_id

    emu = emulator(token_trigger=with_user_id).start()
    os.environ["AWS_ENDPOINT_URL_DYNAMODB"] = emu.url
    os.environ["AWS_ENDPOINT_URL_KMS"] = emu.url  # the webhooks' secrets (the `tables` key)
    yield emu
    emu.stop()


@pytest.fixture
def tables(emulator):
    """Every table of infra/template.yaml, empty, for this test alone: the tables an
    earlier test left are emptied (a table it dropped, or changed, is made again), which
    costs a few scans where dropping and creating them all cost 0.1 s of CPU a test; and
    its KMS key, as `make run` has it (a test of moto's own mocks, ending, clears every
    backend)."""
    import boto3

    from infra import template
    from tests.support.emptied import emptied_tables

    client = boto3.client("dynamodb")
    emptied_tables(client)
    template.create_keys(boto3.client("kms"))
    return client


@pytest.fixture(autouse=True)
def no_function_runs_this_process(monkeypatch):
    """Importing a function's entry point (a test of its handler does) makes the process
    that function's, as on Lambda; the tests run many: each says whose code it runs."""
    from common.platform import aws

    monkeypatch.setattr(aws, "HOME", None)


@pytest.fixture(autouse=True)
def no_process_outlives_its_test():
    """What a test's own body started and left running (it failed before stopping it, say)
    is stopped when the test ends. Fixtures of a wider scope start theirs before this
    runs, so theirs live on until their own teardown."""
    before = processes.started()
    yield
    processes.stop_all(processes.started() - before)


def pytest_sessionstart(session):
    """What an earlier run could not stop (it was killed, or timed out) goes first; once,
    by the run's main process (xdist's workers are its children, alive)."""
    if not hasattr(session.config, "workerinput"):
        swept = processes.sweep()
        if swept:
            print(f"\nStopped {len(swept)} processes an earlier test run left running.")


def pytest_sessionfinish(session, exitstatus):
    processes.stop_all(processes.started())


# The longest files, started first: `make test` runs a file per process at a time
# (pytest-xdist, --dist loadfile), and one of these begun last would run on alone while
# the other processes sit idle. Longest first (seconds on a 2-core machine, in parallel).
LONGEST_FIRST = (
    "tests/e2e/test_development.py",  # ~150: a fresh clone's install, then make and chalice
    "tests/e2e/test_local_runtime.py",  # ~80
    "tests/e2e/test_local_data.py",  # ~80
    "tests/release/test_release.py",  # ~60: sam build, cfn-lint
    "tests/e2e/test_reload.py",  # ~45
    "tests/e2e/test_fuzzing.py",  # ~35
)


def pytest_collection_modifyitems(session, config, items):
    def rank(item) -> int:
        path = item.nodeid.split("::", 1)[0]
        return LONGEST_FIRST.index(path) if path in LONGEST_FIRST else len(LONGEST_FIRST)

    items.sort(key=rank)  # stable: every other file keeps its place, its tests their order
