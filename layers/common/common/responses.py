"""The platform's answers: JSON (its camelCase of domain objects, exact money), the error
body, and the few other shapes a route answers with. The one place that turns a domain
error (common.errors) into its status code and error body."""

import dataclasses

from chalice import Response

from common import jsonio
from common.errors import (
    Conflict,
    DomainError,
    Forbidden,
    Invalid,
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


def domain_error_response(err: DomainError) -> Response:
    status = next(code for kind, code in STATUS.items() if isinstance(err, kind))
    headers = (
        {"Retry-After": str(err.retry_after_seconds)}
        if err.retry_after_seconds is not None
        else None
    )
    return error_response(status, err.code, err.message, details=err.details, headers=headers)


def api_json(value: object) -> object:
    """A domain value as the API shows it: dataclasses become objects whose keys are the
    camelCase of their field names (precio_unitario -> precioUnitario), id first; a field
    marked `internal` is the platform's own and not shown."""
    if isinstance(value, list | tuple):
        return [api_json(item) for item in value]
    if dataclasses.is_dataclass(value):
        fields = sorted(
            (f for f in dataclasses.fields(value) if not f.metadata.get("internal")),
            key=lambda f: f.name != "id",
        )
        return {_camel(f.name): api_json(getattr(value, f.name)) for f in fields}
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
