"""Creating once per `Idempotency-Key`
(docs/api.md#retries-without-duplicates-idempotency-key)."""

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from chalice import Response
from chalice.app import Request

from common.http.fingerprints import fingerprint
from common.http.readers import caller_of, gateway_base_url
from common.http.responses import JSON_CONTENT_TYPE, created
from common.platform import jsonio, personal
from common.platform.errors import invalid_field

if TYPE_CHECKING:  # not at run time: functions without a POST never load the utility
    from common.http.idempotency import Once

_IDEMPOTENCY_KEY = re.compile(r"[\x21-\x7e]{1,255}")


@dataclass(frozen=True)
class PersonsCopy:
    """What a created thing holds of a person (an order, a shipment): its personal fields,
    whose they are, whether that person's data was erased since (common.identity.user_ids),
    and the thing as it is stored now (`now(id)`; None when gone)."""

    kind: personal.Kind
    whose: Callable[[Any], int | None]
    erased: Callable[[int | None], bool]
    now: Callable[[int], Any | None]


# A kept answer stored without the person's data (a replay reads it from the thing now);
# one stored before holds it, and is replayed stripped once they are erased.
WITHOUT_PERSON = "withoutPerson"


class CreatedOnce:
    """A POST that creates, done once per `Idempotency-Key`
    (docs/api.md#retries-without-duplicates-idempotency-key).

    A key is the caller's (the token's sub) on this route; the first request with it is
    processed, and its 201 remembered; a repeat with an equal JSON body gets that 201
    and body again with `Idempotent-Replayed: true`, and changes nothing. The body is
    stored as the JSON text that was sent, so money replays with its exact digits.

    Every 201, replays included, says in `Location` where the new thing is read: the
    route's path and its id, on the gateway the request came in on.

    The answer is kept for IDEMPOTENCY_TTL_SECONDS without the personal data it held
    (`persons`): a replay reads those fields from the thing as it is stored now, so it
    answers as the first time did, and without their data once the person is erased
    (docs/personal-data.md), and no copy of it outlives the erasure.
    """

    def __init__(self, once: "Once", persons: PersonsCopy | None = None):
        self._once, self._persons = once, persons

    def _kept(self, made: object, answer: str) -> dict:
        """What the table keeps of the first answer."""
        if self._persons is None:
            return {"body": answer}
        shown = self._persons.kind.stripped_json(jsonio.loads(answer))
        return {
            "body": jsonio.dumps(shown, ascii_only=False),
            "userId": self._persons.whose(made),
            WITHOUT_PERSON: True,
        }

    def _replayed(self, result: dict) -> str:
        """A kept answer as it is replayed: with the person's data as the thing holds it
        now, none once they are erased."""
        body = str(result["body"])
        if self._persons is None:
            return body
        kind, shown = self._persons.kind, jsonio.loads(body)
        # Erased as soon as asked, before the erasure has stripped the thing itself.
        if self._persons.erased(result.get("userId")):
            return jsonio.dumps(kind.stripped_json(shown), ascii_only=False)
        if not result.get(WITHOUT_PERSON):
            return body
        thing = self._persons.now(int(shown["id"]))
        for field, name in zip(kind.fields, kind.shown, strict=True):
            if name in shown:
                shown[name] = getattr(thing, field) if thing is not None else None
        return jsonio.dumps(shown, ascii_only=False)

    def created(self, request: Request, body: dict, create: Callable[[], object]) -> Response:
        """The 201 of what `create()` makes (the use case, its command already checked
        from `body`), made once for the request's `Idempotency-Key`, if it has one."""
        key = request.headers.get("idempotency-key")
        if key is not None and not _IDEMPOTENCY_KEY.fullmatch(key):
            raise invalid_field("Idempotency-Key", "must be 1 to 255 visible ASCII characters")
        if key is None:
            return _located(request, created(create()))
        first: dict[str, str] = {}  # the first answer whole: this request's alone

        def work() -> dict:
            made = create()
            first["body"] = created(made).body
            return self._kept(made, first["body"])

        outcome = self._once.run(
            {"caller": caller_of(request).sub, "key": key},
            fingerprint(body),
            work,
            request.lambda_context,
        )
        headers: dict[str, str | list[str]] = {"Content-Type": JSON_CONTENT_TYPE}
        if outcome.replayed:
            headers["Idempotent-Replayed"] = "true"
            answered = self._replayed(outcome.result)
        else:
            answered = first["body"]
        return _located(request, Response(body=answered, status_code=201, headers=headers))


def _located(request: Request, response: Response) -> Response:
    """The 201 with its Location: the created thing's id, read back from the body it
    answers (a replay's is the stored one)."""
    ident = jsonio.loads(response.body)["id"]
    route = request.context["resourcePath"]
    response.headers["Location"] = f"{gateway_base_url(request)}{route}/{ident}"
    return response
