"""The error body of every endpoint: {"error": CODE, "message": text[, "details": [...]]}."""

from chalice import ChaliceUnhandledError, Response

from common import jsonio


class ApiError(ChaliceUnhandledError):
    """Raised anywhere below a route; the app middleware turns it into the error body.

    It derives from ChaliceUnhandledError because Chalice lets only that family reach
    middleware; anything else it would answer itself in its own format.
    """

    def __init__(self, status: int, code: str, message: str, *,
                 details: list[dict] | None = None, headers: dict | None = None):
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.details = details
        self.headers = headers or {}

    def to_response(self) -> Response:
        body = {"error": self.code, "message": self.message}
        if self.details is not None:
            body["details"] = self.details
        return jsonio.response(body, self.status, self.headers)


def validation_failed(details: list[dict]) -> ApiError:
    message = "; ".join(f"{d['field']} {d['message']}" for d in details)
    return ApiError(400, "VALIDATION_ERROR", message, details=details)


def invalid_field(field: str, message: str) -> ApiError:
    return validation_failed([{"field": field, "message": message}])


def not_found(code: str, what: str, ident: int | None) -> ApiError:
    """`ident` None: a number no entity can have (0, negative, absurdly long)."""
    return ApiError(404, code, f"{what} {ident} not found" if ident is not None
                    else f"No {what.lower()} has that id")


def internal_error() -> ApiError:
    return ApiError(500, "INTERNAL_ERROR", "An internal error occurred")
