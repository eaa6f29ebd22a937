"""Verifying the gateway's HS256 bearer tokens (issuing them is the local token tool's)."""

import jwt

from common.bearer import bearer_token as common_bearer_token

ALGORITHM = "HS256"


class InvalidToken(Exception):
    """The request must not pass: why is for the logs, never for the client."""


def bearer_token(header: str | None) -> str:
    """The token of an `Authorization: Bearer <token>` header."""
    token = common_bearer_token(header)
    if token is None:
        raise InvalidToken("no Bearer token in the Authorization header")
    return token


def verify(token: str, secret: bytes) -> dict:
    """The token's claims if it is a valid HS256 token for `secret` with a subject.

    Only HS256 is accepted, so `alg: none` and any algorithm swap fail; exp, nbf and
    iat are checked by PyJWT whenever they are present.
    """
    try:
        claims = jwt.decode(token, secret, algorithms=[ALGORITHM],
                            # No audience is part of the contract: one present is not
                            # a reason to refuse (PyJWT would, without an expected aud).
                            options={"require": ["sub"], "verify_aud": False})
    except jwt.PyJWTError as exc:
        raise InvalidToken(str(exc)) from None
    if not isinstance(claims.get("sub"), str) or not claims["sub"].strip():
        raise InvalidToken("sub must be a non-empty string")
    return claims
