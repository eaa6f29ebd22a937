"""A function's pool of environments (infra/local/lambdas.Pool) with stand-in
environments, to force the interleavings real processes make only now and then."""

import dataclasses
import threading
import time
from pathlib import Path

import pytest

from infra.local import lambdas
from infra.local.functions import AsyncConfig, FunctionSpec


class StandIn:
    """An environment whose init waits for `inits` to be open."""

    inits = threading.Event()
    made: list["StandIn"] = []

    def __init__(self, snapshot, log, generation):
        self.generation, self.stopped, self.last_used = generation, False, time.monotonic()
        self.ready_ms = self.restore_ms = 0.0
        StandIn.inits.wait(10)
        StandIn.made.append(self)

    @property
    def alive(self) -> bool:
        return not self.stopped

    def stop(self) -> None:
        self.stopped = True

    def invoke(self, event: str) -> lambdas.Outcome:
        return lambdas.Outcome(result="null")


class AfterNotify(threading.Condition):
    """Runs `then` once, right after the next notify_all and before anyone it woke can
    take the lock back: what another thread may do in that gap."""

    then = None

    def notify_all(self) -> None:
        super().notify_all()
        then, self.then = self.then, None
        if then:
            then()


class Waits(AfterNotify):
    """Counts the waits begun on it: when an invocation is waiting."""

    waits = 0

    def wait(self, timeout=None) -> bool:
        self.waits += 1
        return super().wait(timeout)


@pytest.fixture
def pool(monkeypatch):
    monkeypatch.setattr(lambdas, "Environment", StandIn)
    StandIn.inits.set()
    StandIn.made = []
    spec = FunctionSpec(
        name="F",
        handler="f.handler",
        code_dir=Path("."),
        layer_dirs=(),
        environment={},
        timeout_seconds=5,
        memory_mb=128,
        concurrency=2,
        asynchronous=AsyncConfig(retries=0, on_failure=None),
    )
    pool = lambdas.Pool(spec, Path("."), lambda *_: None)
    pool._freed = AfterNotify()
    yield pool
    StandIn.inits.set()
    pool.stop()


def test_an_environment_ready_as_another_frees_up_is_neither_lost_nor_kept_running(pool):
    busy = pool._acquire(1)
    StandIn.inits.clear()
    got = []
    starter = threading.Thread(target=lambda: got.append(pool._acquire(5)))
    starter.start()  # nothing free: it starts a second environment and waits
    time.sleep(0.2)
    # The new one is handed over, and in that same moment the busy one frees up.
    pool._freed.then = lambda: pool._put_back(busy)
    StandIn.inits.set()
    starter.join(5)
    new = StandIn.made[-1]
    assert got and got[0] in (busy, new)
    pool._release(got[0])
    # Both free, both stopped with the pool: none left running, none counted twice.
    assert {id(e) for e in pool._idle} == {id(busy), id(new)}
    pool.stop()
    assert busy.stopped and new.stopped
    assert pool.environments == 0


def test_a_stopped_pool_starts_no_environment(pool):
    pool.stop()
    assert pool.invoke("{}", wait_seconds=0).error["errorType"] == "TooManyRequestsException"
    assert StandIn.made == [] and pool.environments == 0


class Held(StandIn):
    """An environment whose invocation holds it until `free` is set."""

    free = threading.Event()

    def invoke(self, event: str) -> lambdas.Outcome:
        Held.free.wait(10)
        return lambdas.Outcome(result="null")


def service_of(spec: FunctionSpec) -> lambdas.LambdaService:
    return lambdas.LambdaService({"F": spec}, {"F": Path(".")}, lambda *_: None, None)


@pytest.mark.parametrize("scales", [True, False])
def test_a_call_from_another_function_is_not_queued_behind_a_busy_api(pool, monkeypatch, scales):
    """Every environment busy serving the API (say, long lists): another function's call
    (a stock check, an order's owner) is served by environments of its own, as on AWS,
    where the function would scale; but a function with reserved concurrency has no
    more than that on AWS either, and its calls are throttled alike."""
    monkeypatch.setattr(lambdas, "Environment", Held)
    Held.free.clear()
    service = service_of(dataclasses.replace(pool.spec, scales=scales))
    try:
        busy = [threading.Thread(target=service.invoke, args=("F", "{}", 5)) for _ in range(2)]
        for thread in busy:
            thread.start()
        time.sleep(0.3)
        refused = service.invoke("F", "{}", wait_seconds=0.2)
        assert refused.error["errorType"] == "TooManyRequestsException"
        calls = [
            threading.Thread(
                target=service.invoke, args=("F", "{}", 5), kwargs={"for_a_call": True}
            )
            for _ in range(lambdas.CALL_ENVIRONMENTS)
        ]
        for thread in calls:
            thread.start()
        time.sleep(0.3)
        served = service.pools["F"].environments + (
            service.call_pools["F"].environments if scales else 0
        )
        assert served == 2 + (lambdas.CALL_ENVIRONMENTS if scales else 0)
        Held.free.set()
        for thread in busy + calls:
            thread.join(5)
    finally:
        Held.free.set()
        service.stop()


def test_a_freed_environment_is_the_oldest_waiters_not_a_newcomers(pool):
    """One environment, busy; an invocation waits for it. As it frees up, another arrives
    in the gap before the waiter wakes (a carrier that asks again as soon as it is
    answered): the environment is the waiter's, the newcomer waits its turn."""
    pool.spec = dataclasses.replace(pool.spec, concurrency=1)
    pool._freed = Waits()
    busy = pool._acquire(1)
    got = []
    waiter = threading.Thread(target=lambda: got.append(pool._acquire(30)))
    waiter.start()
    deadline = time.monotonic() + 30
    while not pool._freed.waits:  # it waits (nothing free, no room for another)
        assert time.monotonic() < deadline
        time.sleep(0.01)
    newcomer = []
    pool._freed.then = lambda: newcomer.append(pool._acquire(0))
    pool._release(busy)
    waiter.join(30)
    assert newcomer == [None] and got == [busy]
