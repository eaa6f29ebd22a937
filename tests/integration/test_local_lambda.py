"""The local Lambda service (infra/local/lambdas.py) with real execution environments:
worker processes running a probe function written per test into a folder of its own."""

import json
import socket
import struct
import textwrap
import threading
import time
from pathlib import Path

import pytest

from infra.local.functions import AsyncConfig, FunctionSpec
from infra.local.lambdas import Deliveries, LambdaService, Pool, endpoint
from tests.support.raw_http import address, exchange, first_reads, statuses

PROBE = """
import json, os, pathlib, time

from snapshot_restore_py import register_after_restore

INIT_PID = os.getpid()
STATE = pathlib.Path(os.environ["PROBE_STATE"])
SLOW_INIT = STATE.with_name("slow-init")
if SLOW_INIT.exists():
    time.sleep(float(SLOW_INIT.read_text()))
RESTORED_IN = None


@register_after_restore
def restored():
    global RESTORED_IN
    RESTORED_IN = os.getpid()
    slow = STATE.with_name("slow-restore")
    if slow.exists():
        time.sleep(float(slow.read_text()))


def handler(event, context):
    if event.get("sleep"):
        time.sleep(event["sleep"])
    if event.get("exit"):
        os._exit(3)
    if event.get("fail_times") is not None:
        tries = int(STATE.read_text()) if STATE.exists() else 0
        STATE.write_text(str(tries + 1))
        if tries < event["fail_times"]:
            raise RuntimeError(f"try {tries + 1} fails")
    return {"pid": os.getpid(), "init_pid": INIT_PID, "restored_in": RESTORED_IN,
            "version": VERSION, "remaining": context.get_remaining_time_in_millis()}
"""


def write_probe(code_dir: Path, version: str = "1", extra: str = "") -> None:
    (code_dir / "probe.py").write_text(PROBE + f"\nVERSION = {version!r}\n" + extra)


@pytest.fixture
def probe(tmp_path):
    code_dir = tmp_path / "code"
    code_dir.mkdir()
    write_probe(code_dir)
    lines: list[tuple[str, str]] = []
    pools: list[Pool] = []

    def make(timeout: float = 5, concurrency: int = 2, retries: int = 2) -> Pool:
        spec = FunctionSpec(
            name="ProbeFunction",
            handler="probe.handler",
            code_dir=code_dir,
            layer_dirs=(),
            environment={"PROBE_STATE": str(tmp_path / "tries"), "AWS_REGION": "us-east-1"},
            timeout_seconds=timeout,
            memory_mb=128,
            concurrency=concurrency,
            asynchronous=AsyncConfig(retries=retries, on_failure="ProbeDeadLetters"),
        )
        pool = Pool(spec, code_dir, lambda function, line: lines.append((function, line)))
        pools.append(pool)
        return pool

    make.code_dir, make.lines, make.state = code_dir, lines, tmp_path / "tries"
    yield make
    for pool in pools:
        pool.stop()


def invoke(pool: Pool, event: dict, wait: float = 10):
    return pool.invoke(json.dumps(event), wait_seconds=wait)


def test_an_environment_answers_and_is_reused_while_warm(probe):
    pool = probe()
    first, second = invoke(pool, {}), invoke(pool, {})
    assert not first.failed and not second.failed
    assert json.loads(first.result)["pid"] == json.loads(second.result)["pid"]
    assert 0 < json.loads(first.result)["remaining"] <= 5000  # the function's timeout
    assert pool.environments == 1


def test_environments_are_forks_of_one_init_each_restored_by_its_hooks(probe):
    pool = probe(concurrency=2)
    probe.state.with_name("slow-init").write_text("0.5")  # an init that takes its time
    outcomes = []
    both = [
        threading.Thread(target=lambda: outcomes.append(invoke(pool, {"sleep": 0.5})))
        for _ in range(2)
    ]
    for thread in both:
        thread.start()
    for thread in both:
        thread.join()
    answers = [json.loads(outcome.result) for outcome in outcomes]
    # Two processes, one init: the second environment did not import the code again.
    assert len({answer["pid"] for answer in answers}) == 2
    assert len({answer["init_pid"] for answer in answers}) == 1
    assert all(answer["init_pid"] not in (answer["pid"], None) for answer in answers)
    assert all(answer["restored_in"] == answer["pid"] for answer in answers)
    assert pool.environments == 2


def test_an_init_past_lambdas_limit_is_waited_for_within_the_functions_timeout(probe, monkeypatch):
    """Lambda runs an init that overran its 10 s again inside the first invocation, under
    the function's timeout: the invocation is answered, not failed at the limit (here
    0.2 s, an init of 1 s). One that overruns both fails as Lambda's does."""
    from infra.local import lambdas

    monkeypatch.setattr(lambdas, "INIT_TIMEOUT_SECONDS", 0.2)
    probe.state.with_name("slow-init").write_text("1")
    # A timeout far past the init's second: under load an interpreter's start alone took
    # more than 5 s, and this case is about the limit, not about how fast the init ran.
    outcome = invoke(probe(timeout=60), {})
    assert not outcome.failed, outcome.error
    probe.state.with_name("slow-init").write_text("4")
    failed = invoke(probe(timeout=1), {})
    assert failed.failed and failed.error["errorType"] == "Runtime.InitTimeout"


def test_code_that_does_not_import_fails_at_once_every_time(probe):
    probe.code_dir.joinpath("probe.py").write_text("def handler(event, context):\n  return (\n")
    pool = probe()
    for _ in range(2):
        outcome = invoke(pool, {})
        # The import's own error, never a hang: not the invocation's timeout. (No bound in
        # seconds: under load an interpreter's start alone took more than 5 s.)
        assert not outcome.timed_out
        assert outcome.failed and outcome.error["errorType"] == "SyntaxError"
    assert pool.environments == 0


def test_an_invocation_past_the_timeout_fails_and_its_environment_is_replaced(probe):
    pool = probe(timeout=1)
    before = json.loads(invoke(pool, {}).result)["pid"]
    outcome = invoke(pool, {"sleep": 3})
    assert outcome.timed_out and outcome.error["errorType"] == "Runtime.Timeout"
    after = invoke(pool, {})
    assert not after.failed and json.loads(after.result)["pid"] != before


def test_an_environment_that_dies_fails_its_invocation_and_is_replaced(probe):
    pool = probe()
    before = json.loads(invoke(pool, {}).result)["pid"]
    outcome = invoke(pool, {"exit": True})
    assert outcome.failed and outcome.error["errorType"] == "Runtime.ExitError"
    after = invoke(pool, {})
    assert not after.failed and json.loads(after.result)["pid"] != before


def test_a_handler_that_raises_reports_its_error_and_keeps_its_environment(probe):
    pool = probe()
    before = json.loads(invoke(pool, {}).result)["pid"]
    probe.state.write_text("0")
    outcome = invoke(pool, {"fail_times": 1})
    assert outcome.error["errorType"] == "RuntimeError"
    assert outcome.error["errorMessage"] == "try 1 fails"
    assert json.loads(invoke(pool, {}).result)["pid"] == before


def test_each_environment_runs_one_invocation_at_a_time_up_to_the_concurrency(probe):
    pool = probe(concurrency=2)
    outcomes = []
    busy = [
        threading.Thread(target=lambda: outcomes.append(invoke(pool, {"sleep": 1.5})))
        for _ in range(2)
    ]
    for thread in busy:
        thread.start()
    time.sleep(1)
    refused = invoke(pool, {}, wait=0)
    for thread in busy:
        thread.join()
    assert refused.failed and refused.error["errorType"] == "TooManyRequestsException"
    assert len({json.loads(outcome.result)["pid"] for outcome in outcomes}) == 2
    # Once one is free, a waiting invocation takes it.
    assert not invoke(pool, {}, wait=5).failed


def test_a_cold_start_does_not_hold_an_invocation_a_busy_environment_frees_first(probe):
    pool = probe(concurrency=2)
    warm = json.loads(invoke(pool, {}).result)["pid"]
    # Every new environment from now on: 4 s (its snapshot is made: a restore's hooks).
    probe.state.with_name("slow-restore").write_text("4")
    busy = threading.Thread(target=invoke, args=(pool, {"sleep": 0.5}))
    busy.start()
    time.sleep(0.2)
    started = time.monotonic()
    outcome = invoke(pool, {})  # none free: it starts a second environment
    took = time.monotonic() - started
    busy.join()
    # Freed after 0.3 s, not the new one (4 s from ready): which environment answered is
    # the witness, not a bound in seconds, which a loaded machine stretches.
    assert json.loads(outcome.result)["pid"] == warm, took
    # The one it started still joins the free ones, once its init is done.
    deadline = time.monotonic() + 10
    while len(pool.processes()) < 2:
        assert time.monotonic() < deadline, "the started environment never joined"
        time.sleep(0.1)
    assert pool.environments == 2


def test_recycling_replaces_the_environments_with_the_new_code(probe):
    pool = probe()
    assert json.loads(invoke(pool, {}).result)["version"] == "1"
    # (A new size: Python trusts a cached .pyc whose source has the same size and second.)
    write_probe(probe.code_dir, version="2.0")
    pool.recycle()
    assert json.loads(invoke(pool, {}).result)["version"] == "2.0"
    assert pool.environments == 1


def test_idle_environments_are_stopped_and_the_next_invocation_starts_one(probe):
    pool = probe()
    invoke(pool, {})
    pool.reap(idle_seconds=0)
    assert pool.environments == 0
    assert not invoke(pool, {}).failed


def test_what_a_function_prints_is_its_log(probe):
    write_probe(
        probe.code_dir,
        extra=textwrap.dedent("""
        print("init says hello")
    """),
    )
    pool = probe()
    invoke(pool, {})
    deadline = time.monotonic() + 5
    while ("ProbeFunction", "init says hello") not in probe.lines:
        assert time.monotonic() < deadline
        time.sleep(0.05)


class Destination:
    def __init__(self):
        self.records: list[tuple[str, dict]] = []

    def __call__(self, name: str, record: dict) -> None:
        self.records.append((name, record))


def test_a_failed_asynchronous_invocation_is_tried_again_until_it_succeeds(probe):
    pool, destination = probe(), Destination()
    deliveries = Deliveries(pool, destination, retry_seconds=0.05)
    probe.state.write_text("0")
    deliveries.submit(json.dumps({"fail_times": 2}))
    assert deliveries.settle(timeout=20)
    deliveries.stop()
    assert probe.state.read_text() == "3"  # two failures, then the success
    assert destination.records == []


def test_one_that_keeps_failing_goes_to_the_on_failure_destination_with_its_event(probe):
    pool, destination = probe(retries=2), Destination()
    deliveries = Deliveries(pool, destination, retry_seconds=0.05)
    probe.state.write_text("0")
    event = {"fail_times": 99, "orderId": 7}
    deliveries.submit(json.dumps(event))
    assert deliveries.settle(timeout=20)
    deliveries.stop()
    assert probe.state.read_text() == "3"  # the invocation and its two retries
    [(queue, record)] = destination.records
    assert queue == "ProbeDeadLetters"
    assert record["requestPayload"] == event
    assert record["requestContext"]["condition"] == "RetriesExhausted"
    assert record["requestContext"]["approximateInvokeCount"] == 3
    assert record["responsePayload"]["errorMessage"] == "try 3 fails"


class UnreachableAtFirst(Destination):
    """A destination whose queue cannot be reached the first `failures` times (the
    emulator holding it died)."""

    def __init__(self, failures: int):
        super().__init__()
        self.failures = failures

    def __call__(self, name: str, record: dict) -> None:
        if self.failures:
            self.failures -= 1
            raise ConnectionRefusedError("the queue cannot be reached")
        super().__call__(name, record)


def test_a_record_whose_destination_cannot_be_reached_is_kept_and_sent_once_it_can(probe):
    """One delivery thread: had the failure ended it, the next event would never run."""
    pool, destination = probe(concurrency=1, retries=0), UnreachableAtFirst(failures=3)
    deliveries = Deliveries(pool, destination, retry_seconds=0.05)
    probe.state.write_text("0")
    deliveries.submit(json.dumps({"fail_times": 99, "orderId": 7}))
    assert deliveries.settle(timeout=20)
    [(queue, record)] = destination.records
    assert queue == "ProbeDeadLetters" and record["requestPayload"]["orderId"] == 7
    assert record["requestContext"]["approximateInvokeCount"] == 1  # not invoked again
    deliveries.submit(json.dumps({"fail_times": 99, "orderId": 8}))
    assert deliveries.settle(timeout=20)
    deliveries.stop()
    assert [r["requestPayload"]["orderId"] for _, r in destination.records] == [7, 8]


def test_a_delivery_the_service_itself_fails_is_kept_and_tried_again(probe, monkeypatch):
    """Whatever goes wrong in the service (not in the function) ends no thread and loses
    no event."""
    pool, destination = probe(concurrency=1), Destination()
    invoke_pool = pool.invoke
    broken = [RuntimeError("the service failed")]

    def invoke_once_broken(event: str, wait_seconds: float):
        if broken:
            raise broken.pop()
        return invoke_pool(event, wait_seconds)

    monkeypatch.setattr(pool, "invoke", invoke_once_broken)
    deliveries = Deliveries(pool, destination, retry_seconds=0.05)
    probe.state.write_text("0")
    deliveries.submit(json.dumps({"fail_times": 0}))
    assert deliveries.settle(timeout=20)
    deliveries.stop()
    assert probe.state.read_text() == "1"  # run once, after the failure
    assert destination.records == []


def test_an_invocation_waits_for_aws_to_be_back_rather_than_spend_its_tries(probe):
    """While the emulator restarts, an event is kept, not run to fail (nor run against
    an emulator that has not restored its data yet)."""
    pool, destination = probe(concurrency=1, retries=0), Destination()
    answers = [True, False, False]  # popped from the end: down, down, then up
    deliveries = Deliveries(pool, destination, retry_seconds=0.05, aws_up=answers.pop)
    probe.state.write_text("0")
    deliveries.submit(json.dumps({"fail_times": 1}))  # its one run fails
    assert deliveries.settle(timeout=20)
    deliveries.stop()
    assert answers == [] and probe.state.read_text() == "1"  # run once, when up
    assert len(destination.records) == 1  # and, failed with no retries, dead-lettered


def test_an_event_that_is_not_json_is_still_dead_lettered(probe):
    pool, destination = probe(concurrency=1, retries=0), Destination()
    deliveries = Deliveries(pool, destination, retry_seconds=0.05)
    deliveries.submit("not json")
    assert deliveries.settle(timeout=20)
    deliveries.stop()
    [(_, record)] = destination.records
    assert record["requestPayload"] == "not json"


def test_the_invoke_api_sends_each_answer_whole_on_a_kept_alive_connection(probe):
    """A function's Lambda client keeps its connection to the Invoke API. An answer whose
    head and body were written apart left the body waiting for the client's delayed
    acknowledgement of the head (40 ms on Linux, in every invoke): each answer must
    arrive whole, in the first read."""
    pool = probe()
    service = LambdaService(
        {"ProbeFunction": pool.spec}, {"ProbeFunction": probe.code_dir}, lambda *_: None, print
    )
    server = endpoint(service).start()
    request = (
        b"POST /2015-03-31/functions/ProbeFunction/invocations HTTP/1.1\r\n"
        b"Host: lambda\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}"
    )
    try:
        for status, body, length in first_reads(server.url, request, times=3):
            assert (status, len(body)) == (200, length), body
            assert json.loads(body).get("version") == "1", body
    finally:
        server.stop()
        service.stop()


def test_a_client_that_resets_its_connection_prints_nothing_and_the_api_goes_on(probe, capsys):
    """A function's client that goes away (its environment stopped, its read timed out)
    resets its kept-alive connection: socketserver printed a traceback into the stack's
    log, between the lines of `make run`'s banner."""
    pool = probe()
    service = LambdaService(
        {"ProbeFunction": pool.spec}, {"ProbeFunction": probe.code_dir}, lambda *_: None, print
    )
    server = endpoint(service).start()
    dry_run = (
        b"POST /2015-03-31/functions/ProbeFunction/invocations HTTP/1.1\r\n"
        b"Host: lambda\r\nX-Amz-Invocation-Type: DryRun\r\nContent-Length: 0\r\n\r\n"
    )
    try:
        with socket.create_connection(address(server.url)) as sock:
            sock.sendall(dry_run)
            assert sock.recv(4096).startswith(b"HTTP/1.1 204")
            # Closed with a reset while the server waits for its next request.
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        # Another connection still served: its answer waited for (it closes after it), as
        # long as a loaded machine takes, not for half a second.
        closing = dry_run.replace(b"\r\n\r\n", b"\r\nConnection: close\r\n\r\n")
        assert statuses(exchange(server.url, closing, wait=30)) == [204]
        assert "Traceback" not in capsys.readouterr().err
    finally:
        server.stop()
        service.stop()
