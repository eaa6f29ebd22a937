"""Where the stock check's breaker keeps its state (orders.breaker): pybreaker's storage,
with the few changes the breaker makes each made in one step, so that environments
sharing it never both open it, never both run the trial, never lose a failure.

- BreakerState: in this process only (tests; a breaker nothing else shares).
- DynamoDBBreakerState: one item of CircuitBreakersTable that every execution
  environment of the orders function reads and writes, each change a conditional write;
  read at most once every READ_EVERY_SECONDS per environment.
"""

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import UTC, datetime

import pybreaker
from botocore.exceptions import ClientError

READ_EVERY_SECONDS = 1.0
# A trial call that never reports back (its environment died) frees the breaker after this.
TRIAL_LEASE_SECONDS = 30.0

CLOSED, OPEN, HALF_OPEN = pybreaker.STATE_CLOSED, pybreaker.STATE_OPEN, pybreaker.STATE_HALF_OPEN


@dataclass(frozen=True)
class Snapshot:
    state: str = CLOSED
    failures: int = 0
    opened_at: float | None = None  # seconds since the epoch
    trial_until: float = 0.0


class BreakerState(pybreaker.CircuitBreakerStorage):
    """The breaker's state, changed in steps that cannot interleave (a lock, here)."""

    COUNTED, OPENED, ALREADY_OPEN = "counted", "opened", "already open"

    def __init__(self, name: str = "inventory-stock-check", clock: Callable[[], float] = time.time):
        super().__init__(name)
        self._clock = clock
        self._lock = threading.Lock()
        self._now = Snapshot()

    # -- the steps the breaker takes ---------------------------------------------------------

    def count_failure(self, fail_max: int) -> str:
        """One more failure while closed: COUNTED, or OPENED when it was the one that
        reached `fail_max` (the breaker is open from now), or ALREADY_OPEN."""
        with self._lock:
            if self._now.state != CLOSED:
                return self.ALREADY_OPEN
            failures = self._now.failures + 1
            if failures < fail_max:
                self._now = replace(self._now, failures=failures)
                return self.COUNTED
            self._now = Snapshot(OPEN, failures, self._clock())
            return self.OPENED

    def claim_trial(self, reset_seconds: float) -> bool:
        """Take the one trial call, if the breaker has been open `reset_seconds` (or a
        trial's environment never reported back)."""
        with self._lock:
            if not self._trial_is_free(self._now, reset_seconds):
                return False
            self._now = replace(
                self._now, state=HALF_OPEN, trial_until=self._clock() + TRIAL_LEASE_SECONDS
            )
            return True

    def _trial_is_free(self, now: Snapshot, reset_seconds: float) -> bool:
        clock = self._clock()
        if now.state == OPEN:
            return now.opened_at is None or clock - now.opened_at >= reset_seconds
        return now.state == HALF_OPEN and clock >= now.trial_until

    def end_trial(self, succeeded: bool) -> None:
        with self._lock:
            self._now = (
                Snapshot() if succeeded else Snapshot(OPEN, self._now.failures, self._clock())
            )

    def forget_failures(self) -> None:
        """A success while closed: the failures before it no longer count."""
        with self._lock:
            if self._now.state == CLOSED and self._now.failures:
                self._now = Snapshot()

    def opened_seconds(self) -> float | None:
        return self._snapshot().opened_at

    def _snapshot(self) -> Snapshot:
        return self._now

    # -- pybreaker's storage (what pybreaker's own code reads) ---------------------------------

    @property
    def state(self) -> str:
        return self._snapshot().state

    @state.setter
    def state(self, state: str) -> None:  # pybreaker's own transitions go through the steps
        raise NotImplementedError("the breaker changes its state through its steps")

    @property
    def counter(self) -> int:
        return self._snapshot().failures

    def increment_counter(self) -> None:
        raise NotImplementedError("count_failure counts a failure")

    def reset_counter(self) -> None:
        self.forget_failures()

    @property
    def success_counter(self) -> int:
        return 0  # one success closes it (pybreaker's default success_threshold)

    def increment_success_counter(self) -> None:
        pass

    def reset_success_counter(self) -> None:
        pass

    @property
    def opened_at(self) -> datetime | None:
        seconds = self.opened_seconds()
        return datetime.fromtimestamp(seconds, UTC) if seconds is not None else None

    @opened_at.setter
    def opened_at(self, value: datetime) -> None:
        raise NotImplementedError("the breaker opens through its steps")


class DynamoDBBreakerState(BreakerState):
    """The state in one item of CircuitBreakersTable, shared by every environment."""

    def __init__(
        self,
        client,
        table: str,
        name: str = "inventory-stock-check",
        clock: Callable[[], float] = time.time,
    ):
        super().__init__(name, clock)
        self._client, self._table = client, table
        self._key = {"name": {"S": name}}
        # Taken as closed until its first read, a second from now (or its first change):
        # building the breaker costs no call.
        self._read_at = time.monotonic()

    def _snapshot(self) -> Snapshot:
        if time.monotonic() - self._read_at >= READ_EVERY_SECONDS:
            item = self._client.get_item(
                TableName=self._table, Key=self._key, ConsistentRead=True
            ).get("Item")
            self._remember(item)
        return self._now

    def _remember(self, item: dict | None) -> Snapshot:
        self._read_at = time.monotonic()
        if not item:
            self._now = Snapshot()
        else:
            self._now = Snapshot(
                state=item.get("state", {}).get("S", CLOSED),
                failures=int(item.get("failures", {}).get("N", "0")),
                opened_at=float(item["openedAt"]["N"]) if "openedAt" in item else None,
                trial_until=float(item.get("trialUntil", {}).get("N", "0")),
            )
        return self._now

    def _update(self, expression: str, condition: str, values: dict) -> bool:
        """One conditional write; False when its condition failed (the state is reread)."""
        try:
            answer = self._client.update_item(
                TableName=self._table,
                Key=self._key,
                UpdateExpression=expression,
                ConditionExpression=condition,
                ExpressionAttributeNames={"#state": "state"},
                ExpressionAttributeValues=values,
                ReturnValues="ALL_NEW",
            )
        except ClientError as exc:
            if exc.response["Error"]["Code"] != "ConditionalCheckFailedException":
                raise
            self._read_at = float("-inf")
            self._snapshot()
            return False
        self._remember(answer["Attributes"])
        return True

    def count_failure(self, fail_max: int) -> str:
        closed = {":closed": {"S": CLOSED}, ":one": {"N": "1"}}
        counted = self._update(
            "SET #state = :closed ADD failures :one",
            "attribute_not_exists(#state) OR #state = :closed",
            closed,
        )
        if not counted:
            return self.ALREADY_OPEN
        if self._now.failures < fail_max:
            return self.COUNTED
        opened = self._update(
            "SET #state = :open, openedAt = :now",
            "#state = :closed AND failures >= :max",
            {
                ":open": {"S": OPEN},
                ":closed": {"S": CLOSED},
                ":now": {"N": repr(self._clock())},
                ":max": {"N": str(fail_max)},
            },
        )
        return self.OPENED if opened else self.ALREADY_OPEN

    def claim_trial(self, reset_seconds: float) -> bool:
        now = self._snapshot()
        if not self._trial_is_free(now, reset_seconds):
            return False
        clock = self._clock()
        return self._update(
            "SET #state = :half, trialUntil = :lease",
            "(#state = :open AND openedAt <= :opened_before) OR "
            "(#state = :half AND trialUntil <= :now)",
            {
                ":half": {"S": HALF_OPEN},
                ":open": {"S": OPEN},
                ":opened_before": {"N": repr(clock - reset_seconds)},
                ":now": {"N": repr(clock)},
                ":lease": {"N": repr(clock + TRIAL_LEASE_SECONDS)},
            },
        )

    def end_trial(self, succeeded: bool) -> None:
        if succeeded:
            self._update(
                "SET #state = :closed, failures = :zero REMOVE openedAt, trialUntil",
                "#state = :half",
                {":closed": {"S": CLOSED}, ":zero": {"N": "0"}, ":half": {"S": HALF_OPEN}},
            )
        else:
            self._update(
                "SET #state = :open, openedAt = :now REMOVE trialUntil",
                "#state = :half",
                {
                    ":open": {"S": OPEN},
                    ":half": {"S": HALF_OPEN},
                    ":now": {"N": repr(self._clock())},
                },
            )

    def forget_failures(self) -> None:
        if self._now.state == CLOSED and self._now.failures:
            self._update(
                "SET failures = :zero",
                "#state = :closed AND failures > :zero",
                {":zero": {"N": "0"}, ":closed": {"S": CLOSED}},
            )
