"""Creating once per `Idempotency-Key`
(docs/api.md#retries-without-duplicates-idempotency-key)."""

import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from chalice import Response
from chalice.app import Request

from common import jsonio
from common.errors import invalid_field
from common.fingerprints import fingerprint
from common.readers import caller_of, gateway_base_url
from common.responses import JSON_CONTENT_TYPE, created

if TYPE_CHECKING:  # not at run time: functions without a POST never load the utility
    from common.idempotency import Once

_IDEMPOTENCY_KEY = re.compile(r"[\x21-\x7e]{1,255}")


class CreatedOnce:
    """A POST that creates, done once per `Idempotency-Key`
    (docs/api.md#retries-without-duplicates-idempotency-key).

    A key is the caller's (the token's sub) on this route; the first request with it is
    processed, and its 201 remembered; a repeat with an equal JSON body gets that 201
    and body again with `Idempotent-Replayed: true`, and changes nothing. The body is
    stored as the JSON text that was sent, so money replays with its exact digits.

    Every 201, replays included, says in `Location` where the new thing is read: the
    route's path and its id, on the gateway the request came in on.
    """

    def __init__(self, once: "Once"):
        self._once = once

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
            lambda: {"body": created(create()).body},
            request.lambda_context,
        )
        headers: dict[str, str | list[str]] = {"Content-Type": JSON_CONTENT_TYPE}
        if outcome.replayed:
            headers["Idempotent-Replayed"] = "true"
        return _located(
            request, Response(body=outcome.result["body"], status_code=201, headers=headers)
        )


def _located(request: Request, response: Response) -> Response:
    """The 201 with its Location: the created thing's id, read back from the body it
    answers (a replay's is the stored one)."""
    ident = jsonio.loads(response.body)["id"]
    route = request.context["resourcePath"]
    response.headers["Location"] = f"{gateway_base_url(request)}{route}/{ident}"
    return response
