"""What can go wrong in a use case, said without HTTP.

Rules, services and repositories raise these; the HTTP edge (common.http.responses) is the one
place that turns each kind into a status code and the platform's error body. Each
carries a stable `code` for clients and a `message` for people.
"""


class DomainError(Exception):
    def __init__(
        self,
        code: str,
        message: str,
        *,
        details: list[dict] | None = None,
        retry_after_seconds: int | None = None,
    ):
        super().__init__(message)
        self.code = code
        self.message = message
        self.details = details
        self.retry_after_seconds = retry_after_seconds


class Invalid(DomainError):
    """The request cannot be carried out as sent: a bad field, or refused by a rule."""


class Forbidden(DomainError):
    """The caller's role may not do this (docs/api.md#who-may-do-what)."""

    def __init__(self, message: str):
        super().__init__("FORBIDDEN", message, details=[])


class Unauthenticated(DomainError):
    """The credentials the request presents are not good (a wrong email or password)."""


class NotFound(DomainError):
    """The thing the request names does not exist."""


class NotAcceptable(DomainError):
    """No answer the client takes can be given (one too large for it to take uncompressed)."""


class Conflict(DomainError):
    """The current state does not allow it now (a lost race, a forbidden transition)."""


class Unprocessable(DomainError):
    """Well-formed, but it contradicts what was asked before under the same name."""


class Unavailable(DomainError):
    """Something the use case depends on is down; worth retrying after a while."""

    def __init__(self, code: str, message: str, *, retry_after_seconds: int):
        super().__init__(code, message, retry_after_seconds=retry_after_seconds)


class TooManyRequests(DomainError):
    """The caller has tried too often; worth retrying only after a while."""

    def __init__(self, code: str, message: str, *, retry_after_seconds: int):
        super().__init__(code, message, details=[], retry_after_seconds=retry_after_seconds)


def invalid_fields(details: list[dict]) -> Invalid:
    """One error for every problem in a request, so a client fixes it in one round trip."""
    message = "; ".join(f"{d['field']} {d['message']}" for d in details)
    return Invalid("VALIDATION_ERROR", message, details=details)


def invalid_field(field: str, message: str) -> Invalid:
    return invalid_fields([{"field": field, "message": message}])


# Ids past this many characters are shown cut (a 45-digit id is simply not found).
SHOWN_ID_CHARACTERS = 20


def not_found(code: str, what: str, ident: int) -> NotFound:
    """One message shape per kind, whatever the id: "Product 99 not found", "Product 0
    not found"; a long id shown by its first digits ("Product 99999999999999999999…")."""
    shown = str(ident)
    if len(shown) > SHOWN_ID_CHARACTERS:
        shown = shown[:SHOWN_ID_CHARACTERS] + "…"
    return NotFound(code, f"{what} {shown} not found")
