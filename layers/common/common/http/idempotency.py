"""Doing a thing once per key, through Powertools' idempotency utility
(docs/api.md#retries-without-duplicates-idempotency-key).

The first call with a key claims it (a conditional put in IdempotencyTable), runs, and
stores its result; a repeat with the same payload gets the stored result back without
running again; with another payload it is refused; while the first still runs it is
told to retry, whatever its payload. A call that fails drops its claim, so only
successes are remembered.

The payload's fingerprint is stored with the result and compared here, on a replay:
Powertools' own payload validation compares before it looks at the claim's state, so a
repeat of a claim still in progress with another body would be 422, not 409.
"""

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from aws_lambda_powertools.utilities.idempotency import (
    DynamoDBPersistenceLayer,
    IdempotencyConfig,
    idempotent_function,
)
from aws_lambda_powertools.utilities.idempotency.exceptions import (
    IdempotencyAlreadyInProgressError,
    IdempotencyInconsistentStateError,
)

from common.platform import aws, metrics
from common.platform.errors import Conflict, Unprocessable
from common.platform.settings import Cloud, Idempotency

# A claim whose request died is free again after this long at most (less on Lambda: the
# invocation's own remaining time).
MAX_CLAIM_MILLIS = 60_000
# What a record's stored data holds: the work's result, and the payload's fingerprint.
RESULT, PAYLOAD = "result", "payload"


@dataclass(frozen=True)
class Outcome:
    """What a write under an Idempotency-Key answered, and whether this was a replay."""

    result: dict
    replayed: bool


class _ClaimTime:
    """Tells Powertools how long a claim may live: what is left of the invocation, at most
    MAX_CLAIM_MILLIS (and MAX_CLAIM_MILLIS outside one, as in a test)."""

    def __init__(self) -> None:
        self.context: Any = None

    def get_remaining_time_in_millis(self) -> int:
        remaining = (
            self.context.get_remaining_time_in_millis() if self.context is not None else None
        )
        return min(remaining, MAX_CLAIM_MILLIS) if remaining is not None else MAX_CLAIM_MILLIS


class Once:
    """Runs work once per key within `scope` (a route, a listener); a key's record lives
    IDEMPOTENCY_TTL_SECONDS, under an id starting `scope#`."""

    def __init__(self, cloud: Cloud, idempotency: Idempotency, scope: str, service: str):
        self._scope, self._service = scope, service
        self._claim_time = _ClaimTime()
        config = IdempotencyConfig(
            event_key_jmespath="key",
            expires_after_seconds=idempotency.idempotency_ttl_seconds,
            # Not a LambdaContext, but all Powertools asks of one (see _ClaimTime).
            lambda_context=self._claim_time,  # type: ignore[arg-type]
            response_hook=lambda stored, _record: Outcome(stored, replayed=True),
        )
        store = DynamoDBPersistenceLayer(
            table_name=cloud.table_name("IdempotencyTable"), boto3_client=aws.dynamodb(cloud)
        )
        self._run = idempotent_function(
            data_keyword_argument="claim",
            persistence_store=store,
            config=config,
            key_prefix=scope,
        )(self._first_time)

    @staticmethod
    def _first_time(claim: dict, work: Callable[[], dict]) -> dict:
        return {RESULT: work(), PAYLOAD: claim["payload"]}

    def run(
        self, key: object, payload: str, work: Callable[[], dict], context: Any = None
    ) -> Outcome:
        """`work()` once for `key`; a repeat must bring an equal `payload` (the request's
        fingerprint: common.http.fingerprints) and gets what `work` returned (a JSON object)
        back. `context`: the invocation's Lambda context."""
        self._claim_time.context = context  # one invocation at a time per environment
        try:
            done = self._run(claim={"key": key, "payload": payload}, work=work)
        except (IdempotencyAlreadyInProgressError, IdempotencyInconsistentStateError):
            raise Conflict(
                "IDEMPOTENCY_IN_PROGRESS",
                "A request with this Idempotency-Key is still being processed; retry",
                retry_after_seconds=1,
            ) from None
        if not isinstance(done, Outcome):
            return Outcome(done[RESULT], replayed=False)
        # A record an earlier version stored holds its result alone: nothing to compare.
        stored = done.result
        if PAYLOAD in stored and stored[PAYLOAD] != payload:
            raise Unprocessable(
                "IDEMPOTENCY_KEY_REUSED", "This Idempotency-Key was used with another body"
            )
        metrics.count(metrics.IDEMPOTENT_REPLAYS, service=self._service, scope=self._scope)
        return Outcome(stored[RESULT] if PAYLOAD in stored else stored, replayed=True)
