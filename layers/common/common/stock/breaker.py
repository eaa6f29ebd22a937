"""The inventory's circuit breaker (common.stock.client): pybreaker's, its state in one
item of CircuitBreakersTable that every execution environment of the orders function
shares.

pybreaker keeps a breaker's state in a storage (`CircuitBreakerStorage`, as its Redis
storage does): here a DynamoDB item, so an inventory outage opens the breaker after
`fail_max` failures in all, not `fail_max` in each of fifty environments. pybreaker's
rules stay its own: `fail_max` failures open it; while open, calls are refused until
`reset_timeout` has passed; then one trial call goes through, which closes it on success
and opens it again on failure. Each environment runs one invocation at a time, so
pybreaker's lock around a call never makes one check wait for another.

The storage makes each change one conditional write, so environments never lose a
failure, and of those that find the reset time passed exactly one takes the trial: the
others are refused at once (CircuitBreakerError from the write that lost), as while
open. The item is read at most once every READ_EVERY_SECONDS per environment: a healthy
order pays no call for the breaker most of the time, and no write.
"""

import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pybreaker
from botocore.exceptions import ClientError

from common.platform import restore

READ_EVERY_SECONDS = 1.0
# A trial whose environment never reports back (it died) frees the breaker after this.
TRIAL_LEASE_SECONDS = 30.0
NAME = "inventory-stock-check"
CLOSED, OPEN, HALF_OPEN = pybreaker.STATE_CLOSED, pybreaker.STATE_OPEN, pybreaker.STATE_HALF_OPEN


class DynamoDBStorage(pybreaker.CircuitBreakerStorage):
    """The breaker's state in one item: `state`, `failures`, `openedAt`, `trialUntil`."""

    def __init__(
        self,
        client: Any,
        table: str,
        reset_seconds: float,
        clock: Callable[[], float] = time.time,
    ):
        super().__init__(NAME)
        self._dynamodb, self._table, self._clock = client, table, clock
        self._reset_seconds = reset_seconds
        self._key = {"name": {"S": NAME}}
        self._item: dict = {}
        # Taken as closed until its first read, a second from now: no call at init.
        self._read_at = time.monotonic()
        self._trial_mine = False  # this environment holds the half-open trial
        self._successes = 0
        self.opened_here = False  # the state was last written open by this environment
        restore.on_restore(self.restored)

    def restored(self) -> None:
        """A new environment, restored from the snapshot (common.platform.restore): what the
        snapshot read of the shared state is not this one's; its first call reads it."""
        self._item, self._read_at = {}, float("-inf")
        self._trial_mine, self._successes, self.opened_here = False, 0, False

    # -- what pybreaker reads ---------------------------------------------------------------

    @property
    def counter(self) -> int:
        return int(self._current().get("failures", {}).get("N", "0"))

    @property
    def success_counter(self) -> int:
        # The trial's successes: counted where the trial runs, in this environment alone.
        return self._successes

    @property
    def opened_at(self) -> datetime | None:
        opened = self._current().get("openedAt")
        return datetime.fromtimestamp(float(opened["N"]), UTC) if opened else None

    @opened_at.setter
    def opened_at(self, value: datetime) -> None:
        """pybreaker opens the breaker by setting this, then the state: both are written
        here, in one write that only the first environment to open it wins (before the
        listeners hear of it, so the one that opened it counts the opening)."""
        self._open(value.timestamp())

    # -- the state: read, and changed in one conditional write --------------------------------

    @property
    def state(self) -> str:
        """The item's state; another environment's trial is, to this one, still open."""
        state = self._stored_state()
        return OPEN if state == HALF_OPEN and not self._trial_mine else state

    @state.setter
    def state(self, state: str) -> None:
        now = self._clock()
        if state == OPEN:
            if self._stored_state() != OPEN:
                self._open(now)
        elif state == HALF_OPEN:
            self._trial_mine = self._update(
                "SET #state = :half, trialUntil = :lease",
                "(#state = :open AND openedAt <= :due) OR (#state = :half AND trialUntil <= :now)",
                {
                    ":half": {"S": HALF_OPEN},
                    ":open": {"S": OPEN},
                    ":due": {"N": repr(now - self._reset_seconds)},
                    ":now": {"N": repr(now)},
                    ":lease": {"N": repr(now + TRIAL_LEASE_SECONDS)},
                },
            )
            if not self._trial_mine:  # another environment's call is the trial
                raise pybreaker.CircuitBreakerError("circuit breaker open: a trial is under way")
        elif state == CLOSED:
            self._update(
                "SET #state = :closed, failures = :zero REMOVE openedAt, trialUntil",
                "#state <> :closed",
                {":closed": {"S": CLOSED}, ":zero": {"N": "0"}},
            )

    def _open(self, at: float) -> None:
        self.opened_here = self._update(
            "SET #state = :open, openedAt = :at REMOVE trialUntil",
            "attribute_not_exists(#state) OR #state <> :open",
            {":open": {"S": OPEN}, ":at": {"N": repr(at)}},
        )

    def increment_counter(self) -> None:
        self._update(
            "SET #state = if_not_exists(#state, :closed) ADD failures :one",
            "attribute_not_exists(#state) OR #state <> :open",
            {":closed": {"S": CLOSED}, ":open": {"S": OPEN}, ":one": {"N": "1"}},
        )

    def reset_counter(self) -> None:
        """A success, or the breaker closed: the failures before no longer count."""
        if self.counter:
            self._update("SET failures = :zero", "failures > :zero", {":zero": {"N": "0"}})

    def increment_success_counter(self) -> None:
        self._successes += 1

    def reset_success_counter(self) -> None:
        self._successes = 0

    # -- the item ------------------------------------------------------------------------------

    def _stored_state(self) -> str:
        return self._current().get("state", {}).get("S", CLOSED)

    def _current(self) -> dict:
        if time.monotonic() - self._read_at >= READ_EVERY_SECONDS:
            answer = self._dynamodb.get_item(
                TableName=self._table, Key=self._key, ConsistentRead=True
            )
            self._remember(answer.get("Item") or {})
        return self._item

    def _remember(self, item: dict) -> None:
        self._item, self._read_at = item, time.monotonic()
        # Whatever this environment wrote last, the item now says otherwise or again.
        self._trial_mine = self._trial_mine and item.get("state", {}).get("S") == HALF_OPEN
        self.opened_here = False

    def _update(self, expression: str, condition: str, values: dict) -> bool:
        """One conditional write; False when its condition failed (the item is reread)."""
        names = {"#state": "state"} if "#state" in expression + condition else {}
        try:
            answer = self._dynamodb.update_item(
                TableName=self._table,
                Key=self._key,
                UpdateExpression=expression,
                ConditionExpression=condition,
                ExpressionAttributeValues=values,
                ReturnValues="ALL_NEW",
                **({"ExpressionAttributeNames": names} if names else {}),
            )
        except ClientError as exc:
            if exc.response["Error"]["Code"] != "ConditionalCheckFailedException":
                raise
            self._read_at = float("-inf")
            self._current()
            return False
        self._remember(answer["Attributes"])
        return True
