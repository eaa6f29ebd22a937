"""Publishing the order event: a few quick tries, never long enough to hold up the order."""

import logging

from common.orders import outbox as publishing
from common.platform.settings import Cloud, Peers


class Clock:
    """Stands in for `time` in common.orders.outbox: sleeps and calls move it, nothing waits."""

    def __init__(self):
        self.now = 0.0
        self.slept: list[float] = []

    def monotonic(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds


class FailingLambda:
    """Every invoke fails after `takes` seconds of the clock."""

    def __init__(self, clock: Clock, takes: float):
        self.clock, self.takes, self.calls = clock, takes, 0

    def invoke(self, **_):
        self.calls += 1
        self.clock.now += self.takes
        raise ConnectionError("lambda unreachable")


def publisher(monkeypatch, takes: float):
    clock = Clock()
    monkeypatch.setattr(publishing, "time", clock)
    client = FailingLambda(clock, takes)
    return (
        publishing.LambdaPublisher(Cloud(), Peers(), logging.getLogger("test"), client),
        client,
        clock,
    )


def test_a_publish_refused_at_once_is_tried_three_times_with_short_pauses(monkeypatch):
    publish, client, clock = publisher(monkeypatch, takes=0.01)
    assert publish.publish({"pedidoId": 1}) is False
    assert client.calls == 3 and clock.slept == [0.05, 0.25]


def test_a_publish_that_hangs_is_not_tried_again(monkeypatch):
    """One read timeout is all a failing publish may add to the order's request."""
    publish, client, clock = publisher(monkeypatch, takes=2.0)
    assert publish.publish({"pedidoId": 1}) is False
    assert client.calls == 1 and clock.slept == []
