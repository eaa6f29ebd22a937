"""Verifying the gateway's bearer tokens, and who each one belongs to (issuing them is the
token tool's: infra/tokens.py).

Two kinds:
- HS256 tokens signed with the platform's shared key (common.keys: the environment
  locally, a rotated Secrets Manager secret on AWS; a token names the key's version in
  `kid`): `make token`'s, for scripts and tests;
- when JWT_ISSUER is set, RS256 tokens from that OIDC issuer (a Cognito user pool, or any
  other), checked against the keys it publishes (its JWKS), its name and the client they
  were issued for: the users' own, from signing in (docs/identity.md).
With both, the token header's `alg` picks the one verifier that may look at it
(ByAlgorithm); each accepts its one algorithm only and brings its own key, so `alg:
none` and algorithm swaps (an HS256 token signed with the issuer's public key) fail: a
token chooses which verifier refuses it, never a key.

Every token must expire (`exp`), within MAX_LIFETIME_SECONDS of when it was issued, and
must not claim to be issued in the future (`iat`, beyond LEEWAY_SECONDS of clock skew).
Its role and user id (docs/api.md#who-may-do-what) come from its claims, see caller_of.
"""

import contextlib
import functools
import json
import math
import threading
import time
import urllib.request
from collections.abc import Callable
from typing import Any, Protocol

import jwt

from common import aws
from common.accounts import AccountCheck
from common.bearer import bearer_token
from common.callers import CUSTOMER, OPERATOR, ROLES, Caller
from common.ids import ascii_digits, possible_id
from common.keys import KeyRing, jwt_keys
from common.lambda_init import REHEARSAL
from common.settings import Settings

ALGORITHM = "HS256"
OIDC_ALGORITHM = "RS256"
# A leaked token is a credential until it expires: none may live longer than a day.
MAX_LIFETIME_SECONDS = 24 * 3600
# Clock skew tolerated between whoever issued a token and this function, for `iat` only
# (an expired token is refused at once, as it always was).
LEEWAY_SECONDS = 30
# Where roles and user ids are in a token (docs/operations.md#identity): a `role` claim
# (HS256 tokens, or any issuer that sets one), else membership of this Cognito group.
ROLE_CLAIM, GROUPS_CLAIM, OPERATOR_GROUP = "role", "cognito:groups", "operators"
USER_ID_CLAIMS = ("userId", "custom:userId")
# The issuer's keys are kept this long; a token naming a key not among them, or the keys
# expiring, makes one fetch at most every JWKS_RETRY_SECONDS. When a fetch fails, the keys
# already fetched keep working (an issuer outage is not our callers' fault); only with none
# at all does the authorizer fail.
JWKS_CACHE_SECONDS = 3600
JWKS_RETRY_SECONDS = 30
JWKS_TIMEOUT_SECONDS = 2


class Verifier(Protocol):
    """What verifies a token (SharedKeyVerifier, OidcVerifier)."""

    def __call__(self, token: str) -> Caller:
        """A token -> its caller, or InvalidToken."""

    def rehearse(self) -> None:
        """At init: what the first token would wait for, done now."""


class InvalidToken(Exception):
    """The request must not pass: why is for the logs, never for the client."""


class _OtherKey(InvalidToken):
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
    """A userId as an order's body may name it (common.ids): an integer, or its digits."""
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


def _decode(token: str, key: Any, algorithm: str) -> dict:
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
        raise _OtherKey(str(exc)) from None
    except jwt.PyJWTError as exc:
        raise InvalidToken(str(exc)) from None
    check_times(claims)
    return claims


def _kid(token: str) -> str | None:
    try:
        kid = jwt.get_unverified_header(token).get("kid")
    except jwt.PyJWTError as exc:
        raise InvalidToken(str(exc)) from None
    if kid is not None and not isinstance(kid, str):
        raise InvalidToken("kid must be a string")
    return kid


class SharedKeyVerifier:
    """HS256 tokens signed with a version of the platform's key the ring accepts."""

    def __init__(self, keys: KeyRing):
        self._keys = keys

    def __call__(self, token: str) -> Caller:
        candidates = self._keys.verifying(_kid(token))
        if not candidates:
            raise InvalidToken("signed with a key version this platform does not accept")
        for key in candidates[:-1]:  # a token without kid: the current key, then the previous
            try:
                return caller_of(_decode(token, key.secret, ALGORITHM), OPERATOR)
            except _OtherKey:
                continue
        return caller_of(_decode(token, candidates[-1].secret, ALGORITHM), OPERATOR)

    def rehearse(self) -> None:
        """Read the key (and keep it) and verify a token with it: what PyJWT loads on
        first use, and the secret's read, happen at init."""
        key = self._keys.signing()
        now = int(time.time())
        self(
            jwt.encode(
                {"sub": REHEARSAL, "iat": now, "exp": now + 60},
                key.secret,
                algorithm=ALGORITHM,
                headers={"kid": key.kid},
            )
        )


class IssuerUnreachable(Exception):
    """The issuer's keys could not be fetched and none are at hand: not the caller's
    fault, so not a 401 (the authorizer fails, API Gateway answers 500, and the errors
    alarm goes off)."""


class IssuerKeys:
    """An OIDC issuer's signing keys (its JWKS), kept and refreshed as the module says."""

    def __init__(
        self, issuer: str, jwks_url: str | None = None, clock: Callable[[], float] = time.monotonic
    ):
        self._issuer, self._jwks_url, self._clock = issuer, jwks_url, clock
        self._lock = threading.Lock()
        self._keys: dict[str, jwt.PyJWK] | None = None
        self._expires = self._next_fetch = float("-inf")

    def key_for(self, kid: str | None) -> jwt.PyJWK:
        with self._lock:
            now = self._clock()
            wanted = self._keys is None or now >= self._expires or kid not in self._keys
            if wanted and now >= self._next_fetch:
                self._next_fetch = now + JWKS_RETRY_SECONDS
                try:
                    self._keys = self._fetch()
                    self._expires = now + JWKS_CACHE_SECONDS
                except IssuerUnreachable:
                    if self._keys is None:
                        raise
            keys = self._keys
        if keys is None:
            raise IssuerUnreachable("the issuer's keys have not been fetched yet")
        if kid not in keys:
            raise InvalidToken(f"the issuer has no key {kid!r}")
        return keys[kid]

    def _fetch(self) -> dict[str, jwt.PyJWK]:
        if self._jwks_url is None:
            self._jwks_url = _get_json(
                self._issuer.rstrip("/") + "/.well-known/openid-configuration"
            ).get("jwks_uri")
            if not isinstance(self._jwks_url, str):
                raise IssuerUnreachable("the issuer's discovery document names no jwks_uri")
        try:
            found = jwt.PyJWKSet.from_dict(_get_json(self._jwks_url))
        except jwt.PyJWTError as exc:
            raise IssuerUnreachable(f"the issuer's keys cannot be read: {exc}") from exc
        return {key.key_id: key for key in found.keys if key.key_id}


def _get_json(url: str) -> dict:
    try:
        with urllib.request.urlopen(url, timeout=JWKS_TIMEOUT_SECONDS) as answer:  # noqa: S310
            found = json.load(answer)
    except (OSError, ValueError) as exc:
        raise IssuerUnreachable(f"{url}: {exc}") from exc
    if not isinstance(found, dict):
        raise IssuerUnreachable(f"{url}: not a JSON object")
    return found


def _text_claim(claims: dict, name: str) -> str | None:
    value = claims.get(name)
    if value is not None and not isinstance(value, str):
        raise InvalidToken(f"{name} must be a string")
    return value


def _audiences(aud: object) -> list[str]:
    """RFC 7519's `aud`: a string, or an array of strings."""
    audiences = [aud] if isinstance(aud, str) else aud
    if not isinstance(audiences, list) or not all(isinstance(a, str) for a in audiences):
        raise InvalidToken("aud must be a string or an array of strings")
    return audiences


class OidcVerifier:
    """RS256 tokens of one issuer, for one client: `iss` exactly the issuer, `exp` and
    `sub` present, and the client named by `aud`; a token without `aud` passes only as a
    Cognito access token (`token_use` "access") whose `client_id` is the client. ID tokens
    (`token_use` "id") are for the client application, never for the API.

    With `accounts` (the issuer is the stack's own user pool), the token's account must
    still be there and enabled (common.accounts: asked of the pool, kept 30 s), so a
    token of an account disabled or deleted is refused before it expires. When the pool
    cannot be asked and nothing is known of the account, the token passes on its
    signature (as keys already fetched keep working when the issuer is down)."""

    def __init__(
        self,
        issuer: str,
        audience: str,
        jwks_url: str | None = None,
        accounts: AccountCheck | None = None,
    ):
        self.issuer, self.audience = issuer, audience
        self.keys = IssuerKeys(issuer, jwks_url)
        self.accounts = accounts

    def __call__(self, token: str) -> Caller:
        key = self.keys.key_for(_kid(token))
        claims = _decode(token, key.key, OIDC_ALGORITHM)
        # Compared here, not by PyJWT, which raises TypeError for an `iss` not a string.
        if claims.get("iss") != self.issuer:
            raise InvalidToken("the token was issued by another issuer")
        token_use, client_id = _text_claim(claims, "token_use"), _text_claim(claims, "client_id")
        if token_use == "id":
            raise InvalidToken("an ID token is not an API credential")
        audiences = claims.get("aud")
        if audiences is not None:
            if self.audience not in _audiences(audiences):
                raise InvalidToken("the token was issued for another audience")
        elif token_use != "access" or client_id != self.audience:
            raise InvalidToken("the token was issued for another client")
        caller = caller_of(claims, CUSTOMER)
        if self.accounts is not None:
            # Cognito's access token names the account's username (its sub without one).
            username = _text_claim(claims, "username") or caller.sub
            if self.accounts.active(username) is False:
                raise InvalidToken("the token's account is disabled or deleted")
        return caller

    def rehearse(self) -> None:
        """Find the issuer's keys and fetch them (and keep them) at init, and build the
        client that asks the pool about accounts."""
        with contextlib.suppress(InvalidToken):  # no key is named None: fetched all the same
            self.keys.key_for(None)
        if self.accounts is not None:
            self.accounts.rehearse()


class ByAlgorithm:
    """Each token to the verifier of the algorithm its header names; a token of any other
    algorithm (`none`, HS512, ...) is refused before any key is looked at."""

    def __init__(self, verifiers: dict[str, Verifier]):
        self._verifiers = verifiers

    def __call__(self, token: str) -> Caller:
        try:
            algorithm = jwt.get_unverified_header(token).get("alg")
        except jwt.PyJWTError as exc:
            raise InvalidToken(str(exc)) from None
        verifier = self._verifiers.get(algorithm) if isinstance(algorithm, str) else None
        if verifier is None:
            raise InvalidToken(f"the algorithm {algorithm!r} is not accepted")
        return verifier(token)

    def rehearse(self) -> None:
        for verifier in self._verifiers.values():
            verifier.rehearse()


def verifier_for(settings: Settings) -> Verifier:
    """The shared key's verifier, the issuer's, or both (ByAlgorithm). Without an issuer
    the shared key is required (jwt_keys stops init without one); with an issuer it is
    taken beside it when the environment names it (on AWS it always does: make token)."""
    shared = (
        SharedKeyVerifier(jwt_keys(settings))
        if settings.jwt_issuer is None or settings.jwt_secret or settings.jwt_secret_id
        else None
    )
    if settings.jwt_issuer is None:
        assert shared is not None
        return shared
    assert settings.jwt_audience is not None  # from_env refuses JWT_ISSUER without it
    # The stack's own pool (USER_POOL_ID names it): its accounts are checked as well.
    accounts = (
        AccountCheck(functools.partial(aws.cognito, settings), settings.user_pool_id)
        if settings.user_pool_id is not None
        else None
    )
    oidc = OidcVerifier(settings.jwt_issuer, settings.jwt_audience, settings.jwt_jwks_url, accounts)
    if shared is None:
        return oidc
    return ByAlgorithm({ALGORITHM: shared, OIDC_ALGORITHM: oidc})
