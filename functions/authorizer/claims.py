"""What a gateway token must claim, and who it belongs to: the rules every verifier
(authorizer.shared_key, authorizer.oidc) applies once the signature is checked.

Every token must expire (`exp`), within MAX_LIFETIME_SECONDS of when it was issued, and
must not claim to be issued in the future (`iat`, beyond LEEWAY_SECONDS of clock skew).
Its role and user id (docs/api.md#who-may-do-what) come from its claims, see caller_of.
"""

import math
import time
from typing import Any, Protocol

import jwt

from common.http.bearer import bearer_token
from common.identity.callers import CUSTOMER, OPERATOR, ROLES, Caller
from common.platform.ids import ascii_digits, possible_id

# A leaked token is a credential until it expires: none may live longer than a day.
MAX_LIFETIME_SECONDS = 24 * 3600
# Clock skew tolerated between whoever issued a token and this function, for `iat` only
# (an expired token is refused at once, as it always was).
LEEWAY_SECONDS = 30
# Where roles and user ids are in a token (docs/operations.md#identity): a `role` claim
# (HS256 tokens, or any issuer that sets one), else membership of this Cognito group.
ROLE_CLAIM, GROUPS_CLAIM, OPERATOR_GROUP = "role", "cognito:groups", "operators"
USER_ID_CLAIMS = ("userId", "custom:userId")


class Verifier(Protocol):
    """What verifies a token (SharedKeyVerifier, OidcVerifier, ByAlgorithm)."""

    def __call__(self, token: str) -> Caller:
        """A token -> its caller, or InvalidToken."""

    def rehearse(self) -> None:
        """At init: what the first token would wait for, done now."""


class InvalidToken(Exception):
    """The request must not pass: why is for the logs, never for the client."""


class OtherKey(InvalidToken):
    """The signature does not match this key (another version may be the one)."""


def token_in(header: str | None) -> str:
    """The token of an `Authorization: Bearer <token>` header; InvalidToken without one."""
    token = bearer_token(header)
    if token is None:
        raise InvalidToken("no Bearer token in the Authorization header")
    return token


def caller_of(claims: dict, default_role: str) -> Caller:
    """Who a verified token belongs to. `role` is "operator" or "customer"; without it, a
    member of the Cognito group "operators" is an operator, and anyone else has
    `default_role` (HS256 tokens: operator, as every token was before roles; an issuer's:
    customer). A customer's token carries its userId (`userId`, or Cognito's
    `custom:userId`): a positive integer."""
    sub = claims.get("sub")
    if not isinstance(sub, str) or not sub.strip():
        raise InvalidToken("sub must be a non-empty string")
    role = claims.get(ROLE_CLAIM)
    if role is None:
        groups = claims.get(GROUPS_CLAIM)
        role = OPERATOR if isinstance(groups, list) and OPERATOR_GROUP in groups else default_role
    if role not in ROLES:
        raise InvalidToken(f"role {role!r} is not one this platform knows")
    user_id = _user_id(next((claims[c] for c in USER_ID_CLAIMS if c in claims), None))
    if role == CUSTOMER and user_id is None:
        raise InvalidToken("a customer's token must carry its userId (a positive integer)")
    return Caller(sub, role, user_id)


def _user_id(raw: object) -> int | None:
    """A userId as an order's body may name it (common.platform.ids): an integer, or its digits."""
    if isinstance(raw, bool):
        return None
    if isinstance(raw, str) and ascii_digits(raw) and len(raw) <= 19:
        raw = int(raw)  # Cognito's custom attributes are strings
    return raw if isinstance(raw, int) and possible_id(raw) else None


# RFC 7519's NumericDate claims: JSON numbers. PyJWT accepts a numeric string for them
# (it calls int() on it); anything but a number is refused here, before it is compared.
TIME_CLAIMS = ("exp", "nbf", "iat")


def _numeric_date(claims: dict, name: str) -> float | None:
    value = claims.get(name)
    if value is None:
        return None
    finite = isinstance(value, int) or (isinstance(value, float) and math.isfinite(value))
    if isinstance(value, bool) or not finite:
        raise InvalidToken(f"{name} must be a number")
    return value


def check_times(claims: dict, now: float | None = None) -> None:
    """`exp` is checked by PyJWT (required); here: every time claim a number, not issued
    in the future, and not valid for longer than MAX_LIFETIME_SECONDS."""
    now = time.time() if now is None else now
    expires, _, issued = (_numeric_date(claims, name) for name in TIME_CLAIMS)
    if expires is None:
        raise InvalidToken("exp is required")
    if issued is not None and issued > now + LEEWAY_SECONDS:
        raise InvalidToken("the token claims to be issued in the future (iat)")
    start = issued if issued is not None else now
    if expires - start > MAX_LIFETIME_SECONDS:
        raise InvalidToken(f"the token is valid for more than {MAX_LIFETIME_SECONDS} s")


def decoded(token: str, key: Any, algorithm: str) -> dict:
    try:
        claims = jwt.decode(
            token,
            key,
            algorithms=[algorithm],
            # No audience is part of the contract: one present is not
            # a reason to refuse (PyJWT would, without an expected aud).
            options={"require": ["sub", "exp"], "verify_aud": False, "verify_iat": False},
        )
    except jwt.InvalidSignatureError as exc:
        raise OtherKey(str(exc)) from None
    except jwt.PyJWTError as exc:
        raise InvalidToken(str(exc)) from None
    check_times(claims)
    return claims


def key_id(token: str) -> str | None:
    try:
        kid = jwt.get_unverified_header(token).get("kid")
    except jwt.PyJWTError as exc:
        raise InvalidToken(str(exc)) from None
    if kid is not None and not isinstance(kid, str):
        raise InvalidToken("kid must be a string")
    return kid
