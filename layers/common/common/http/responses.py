"""The platform's answers: JSON (its camelCase of domain objects, exact money), the error
body, and the few other shapes a route answers with. The one place that turns a domain
error (common.platform.errors) into its status code and error body."""

import dataclasses
import gzip
import math

from chalice import Response

from common.platform import jsonio
from common.platform.errors import (
    Conflict,
    DomainError,
    Forbidden,
    Invalid,
    NotAcceptable,
    NotFound,
    TooManyRequests,
    Unauthenticated,
    Unavailable,
    Unprocessable,
)

JSON_CONTENT_TYPE = "application/json; charset=utf-8"
STATUS = {
    Invalid: 400,
    Unauthenticated: 401,
    Forbidden: 403,
    NotFound: 404,
    NotAcceptable: 406,
    Conflict: 409,
    Unprocessable: 422,
    TooManyRequests: 429,
    Unavailable: 503,
}


def error_response(
    status: int,
    code: str,
    message: str,
    *,
    details: list | None = None,
    headers: dict | None = None,
) -> Response:
    """The platform's error body: {"error": CODE, "message": text[, "details": [...]]}."""
    body: dict[str, object] = {"error": code, "message": message}
    if details is not None:
        body["details"] = details
    return json_response(body, status, headers)


def status_of(err: DomainError) -> int:
    """The status code a domain error is answered with."""
    return next(code for kind, code in STATUS.items() if isinstance(err, kind))


def domain_error_response(err: DomainError) -> Response:
    status = status_of(err)
    headers = (
        {"Retry-After": str(err.retry_after_seconds)}
        if err.retry_after_seconds is not None
        else None
    )
    return error_response(status, err.code, err.message, details=err.details, headers=headers)


def api_json(value: object) -> object:
    """A domain value as the API shows it: dataclasses become objects whose keys are the
    camelCase of their field names (precio_unitario -> precioUnitario), id first, unless a
    field names its own (`wire`, a name kept for clients that read it); a field marked
    `internal` is the platform's own and not shown, one marked `omitted_when_empty` only
    when it holds something (a field a later feature added to what older clients read)."""
    if isinstance(value, list | tuple):
        return [api_json(item) for item in value]
    if dataclasses.is_dataclass(value):
        fields = sorted(
            (f for f in dataclasses.fields(value) if not f.metadata.get("internal")),
            key=lambda f: f.name != "id",
        )
        return {
            f.metadata.get("wire") or _camel(f.name): api_json(getattr(value, f.name))
            for f in fields
            if not (f.metadata.get("omitted_when_empty") and getattr(value, f.name) in (None, ()))
        }
    return value


def _camel(name: str) -> str:
    first, *rest = name.split("_")
    return first + "".join(word.capitalize() for word in rest)


def json_response(body: object, status: int = 200, headers: dict | None = None) -> Response:
    # Responses carry UTF-8 as is ("Ruta terrestre — Lima"); every text field was checked
    # to be encodable on the way in.
    return Response(
        body=jsonio.dumps(api_json(body), ascii_only=False),
        status_code=status,
        headers={"Content-Type": JSON_CONTENT_TYPE, **(headers or {})},
    )


def ok(body: object) -> Response:
    return json_response(body, 200)


def created(body: object) -> Response:
    return json_response(body, 201)


def no_content() -> Response:
    return Response(body="", status_code=204)


def text(body: str) -> Response:
    return Response(
        body=body, status_code=200, headers={"Content-Type": "text/plain; charset=utf-8"}
    )


# Smaller answers are not worth compressing (nor their headers).
GZIP_FROM_BYTES = 1024


def _takes(header: str | None, names: tuple[str, ...]) -> bool:
    """Whether a header listing values with qualities (Accept, Accept-Encoding) takes one
    of `names` (without q=0)."""
    for value in (header or "").split(","):
        name, _, parameters = value.strip().partition(";")
        quality = parameters.strip().removeprefix("q=").strip() if parameters else "1"
        if name.strip().lower() in names and quality not in ("0", "0.0", "0.00", "0.000"):
            return True
    return False


def takes_gzip(accept: str | None, accept_encoding: str | None) -> bool:
    """Whether a request takes a JSON answer compressed with gzip: it takes gzip
    (Accept-Encoding) and asks for JSON by name (Accept: application/json). API Gateway
    passes a compressed (binary) answer on only to a request whose Accept names one of
    its binary media types, application/json (infra/template.yaml); to one that asks for
    `*/*` it would pass the base64 text."""
    return _takes(accept_encoding, ("gzip", "*")) and _takes(accept, ("application/json",))


def json_document(
    body: object, *, gzip_ok: bool, max_bytes: int, headers: dict | None = None
) -> Response:
    """A JSON answer that may be large (a person's data: docs/api.md#personal-data):
    compressed with gzip when the client takes it (takes_gzip; Content-Encoding), so that
    it stays under what a function may answer (MAX_RESPONSE_BYTES, under Lambda's 6 MB)
    for many times that in JSON; a body still larger, or larger uncompressed for a client
    that takes no gzip, is 406 RESPONSE_TOO_LARGE, saying so. Its bytes go out base64-encoded, as
    API Gateway takes a binary answer (common.http.service_app)."""
    text = jsonio.dumps(api_json(body), ascii_only=False).encode("utf-8")
    headers = {"Content-Type": JSON_CONTENT_TYPE, "Vary": "Accept-Encoding", **(headers or {})}
    if gzip_ok and len(text) >= GZIP_FROM_BYTES:
        text = gzip.compress(text, compresslevel=6, mtime=0)
        headers["Content-Encoding"] = "gzip"
    # What Lambda returns is the body as sent: a compressed one base64-encoded, a third
    # larger (a gzip of 4.9 MB went out as 6.5 MB, past Lambda's 6 MB).
    sent = 4 * math.ceil(len(text) / 3) if "Content-Encoding" in headers else len(text)
    if sent > max_bytes:
        taken = (
            "compressed"
            if gzip_ok
            else "uncompressed: ask with Accept: application/json and Accept-Encoding: gzip"
        )
        raise NotAcceptable(
            "RESPONSE_TOO_LARGE",
            f"The answer is {sent} bytes {taken} (as sent), more than {max_bytes}",
            details=[],
        )
    # Bytes go out base64-encoded (binary), text as text: API Gateway passes a binary
    # answer on as bytes only to a request whose Accept names a binary type, so only a
    # compressed one, made for such a request alone, is binary.
    body = text if "Content-Encoding" in headers else text.decode("utf-8")
    return Response(body=body, status_code=200, headers=headers)
