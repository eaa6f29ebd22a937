"""Creating once per `Idempotency-Key`
(docs/api.md#retries-without-duplicates-idempotency-key)."""

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from chalice import Response
from chalice.app import Request

from common import jsonio, personal
from common.errors import invalid_field
from common.fingerprints import fingerprint
from common.readers import caller_of, gateway_base_url
from common.responses import JSON_CONTENT_TYPE, created

if TYPE_CHECKING:  # not at run time: functions without a POST never load the utility
    from common.idempotency import Once

_IDEMPOTENCY_KEY = re.compile(r"[\x21-\x7e]{1,255}")


@dataclass(frozen=True)
class PersonsCopy:
    """What a created thing holds of a person (an order, a shipment): its personal fields,
    whose they are, and whether that person's data was erased since (common.user_ids)."""

    kind: personal.Kind
    whose: Callable[[Any], int | None]
    erased: Callable[[int | None], bool]


class CreatedOnce:
    """A POST that creates, done once per `Idempotency-Key`
    (docs/api.md#retries-without-duplicates-idempotency-key).

    A key is the caller's (the token's sub) on this route; the first request with it is
    processed, and its 201 remembered; a repeat with an equal JSON body gets that 201
    and body again with `Idempotent-Replayed: true`, and changes nothing. The body is
    stored as the JSON text that was sent, so money replays with its exact digits.

    Every 201, replays included, says in `Location` where the new thing is read: the
    route's path and its id, on the gateway the request came in on.

    The answer is kept as it was sent, for IDEMPOTENCY_TTL_SECONDS; replayed after the
    data of the person it holds was erased (`persons`), it answers without their data
    (docs/personal-data.md), as the thing itself is now read.
    """

    def __init__(self, once: "Once", persons: PersonsCopy | None = None):
        self._once, self._persons = once, persons

    def _first(self, create: Callable[[], object]) -> dict:
        made = create()
        whose = self._persons.whose(made) if self._persons is not None else None
        return {"body": created(made).body, "userId": whose}

    def _replayed(self, result: dict) -> str:
        """A kept answer as it is replayed: without the data of a person erased since."""
        body = str(result["body"])
        if self._persons is None or not self._persons.erased(result.get("userId")):
            return body
        shown = jsonio.loads(body)
        return jsonio.dumps(self._persons.kind.stripped_json(shown), ascii_only=False)

    def created(self, request: Request, body: dict, create: Callable[[], object]) -> Response:
        """The 201 of what `create()` makes (the use case, its command already checked
        from `body`), made once for the request's `Idempotency-Key`, if it has one."""
        key = request.headers.get("idempotency-key")
        if key is not None and not _IDEMPOTENCY_KEY.fullmatch(key):
            raise invalid_field("Idempotency-Key", "must be 1 to 255 visible ASCII characters")
        if key is None:
            return _located(request, created(create()))
        outcome = self._once.run(
            {"caller": caller_of(request).sub, "key": key},
            fingerprint(body),
            lambda: self._first(create),
            request.lambda_context,
        )
        headers: dict[str, str | list[str]] = {"Content-Type": JSON_CONTENT_TYPE}
        answered = outcome.result["body"]
        if outcome.replayed:
            headers["Idempotent-Replayed"] = "true"
            answered = self._replayed(outcome.result)
        return _located(request, Response(body=answered, status_code=201, headers=headers))


def _located(request: Request, response: Response) -> Response:
    """The 201 with its Location: the created thing's id, read back from the body it
    answers (a replay's is the stored one)."""
    ident = jsonio.loads(response.body)["id"]
    route = request.context["resourcePath"]
    response.headers["Location"] = f"{gateway_base_url(request)}{route}/{ident}"
    return response
