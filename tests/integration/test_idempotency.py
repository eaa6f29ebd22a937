"""Once per key, on the emulated idempotency table: how long a dead request's claim holds."""

import time
from types import SimpleNamespace

import pytest

from common.http.idempotency import MAX_CLAIM_MILLIS, Once
from common.platform import aws
from common.platform.errors import Conflict
from common.platform.settings import Cloud, Idempotency


class Died(BaseException):
    """A request that never finished: its process was killed mid-way (not an exception
    the code could have handled, so its claim stays)."""


def context(remaining_millis: int):
    deadline = time.monotonic() + remaining_millis / 1000
    return SimpleNamespace(
        get_remaining_time_in_millis=lambda: int((deadline - time.monotonic()) * 1000)
    )


SCOPE = "POST /api/inventario"  # a scope the inventory's role may write


@pytest.fixture
def once(tables):
    with aws.acting_as("InventoryFunction"):
        yield Once(Cloud.from_env(), Idempotency.from_env(), SCOPE, "tests")


def test_the_claim_of_a_request_that_died_expires_with_its_invocation(once, tables):
    def die():
        raise Died()

    # 3 s left: a loaded machine outlived 300 ms between two calls, and the claim had
    # expired before the second (it then ran, as it should past the claim).
    with pytest.raises(Died):
        once.run("k", {"a": 1}, die, context(3000))
    with pytest.raises(Conflict) as busy:
        once.run("k", {"a": 1}, lambda: {"done": True}, context(3000))
    assert busy.value.retry_after_seconds == 1
    (item,) = tables.scan(TableName="IdempotencyTable", ConsistentRead=True)["Items"]
    expires = int(item["in_progress_expiration"]["N"])
    while time.time() * 1000 <= expires:  # until the claim's own end, as stored
        time.sleep(0.05)
    outcome = once.run("k", {"a": 1}, lambda: {"done": True}, context(3000))
    assert outcome.result == {"done": True} and not outcome.replayed


def test_a_claim_lasts_sixty_seconds_at_most_whatever_the_invocation_has_left(once, tables):
    def die():
        raise Died()

    started = time.time() * 1000
    with pytest.raises(Died):
        once.run("k2", {}, die, context(15 * 60 * 1000))
    (item,) = tables.scan(TableName="IdempotencyTable", ConsistentRead=True)["Items"]
    assert item["status"] == {"S": "INPROGRESS"}
    expires = int(item["in_progress_expiration"]["N"])
    assert expires - started <= MAX_CLAIM_MILLIS + 1000


def test_a_success_is_replayed_and_stored_under_its_scope(once, tables):
    first = once.run("k3", {"n": 1}, lambda: {"id": 7})
    again = once.run("k3", {"n": 1}, lambda: {"id": 8})
    assert (first.result, first.replayed) == ({"id": 7}, False)
    assert (again.result, again.replayed) == ({"id": 7}, True)
    (item,) = tables.scan(TableName="IdempotencyTable", ConsistentRead=True)["Items"]
    assert item["id"]["S"].startswith(f"{SCOPE}#")
