"""The bearer scheme: how a token travels in an Authorization header (RFC 6750)."""


def bearer_token(header: str | None) -> str | None:
    """The token of an `Authorization: Bearer <token>` header, or None without one.

    The authorizer decides with this token, and a service that forwards the caller's
    identity sends this token again, never the header's own bytes.
    """
    scheme, _, token = (header or "").strip().partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return None
    return token.strip()
