"""Tokens from an OIDC issuer (JWT_ISSUER: a Cognito user pool, or any other): RS256,
checked against the keys it publishes (its JWKS), its name and the client they were
issued for: the users' own, from signing in (docs/identity.md)."""

import contextlib
import dataclasses
import json
import threading
import time
import urllib.request
from collections.abc import Callable

import jwt

from authorizer.claims import InvalidToken, caller_of, decoded, key_id
from common.identity.accounts import AccountCheck
from common.identity.callers import CUSTOMER, Caller

OIDC_ALGORITHM = "RS256"
# The issuer's keys are kept this long; a token naming a key not among them, or the keys
# expiring, makes one fetch at most every JWKS_RETRY_SECONDS. When a fetch fails, the keys
# already fetched keep working (an issuer outage is not our callers' fault); only with none
# at all does the authorizer fail.
JWKS_CACHE_SECONDS = 3600
JWKS_RETRY_SECONDS = 30
JWKS_TIMEOUT_SECONDS = 2


class IssuerUnreachable(Exception):
    """The issuer's keys could not be fetched and none are at hand: not the caller's
    fault, so not a 401 (the authorizer fails, API Gateway answers 500, and the errors
    alarm goes off)."""


class IssuerKeys:
    """An OIDC issuer's signing keys (its JWKS), kept and refreshed as JWKS_CACHE_SECONDS says."""

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
    still be there and enabled (common.identity.accounts: asked of the pool, kept 30 s), so a
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
        key = self.keys.key_for(key_id(token))
        claims = decoded(token, key.key, OIDC_ALGORITHM)
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
            return dataclasses.replace(caller, username=username)
        return caller

    def rehearse(self) -> None:
        """Find the issuer's keys and fetch them (and keep them) at init, and build the
        client that asks the pool about accounts."""
        with contextlib.suppress(InvalidToken):  # no key is named None: fetched all the same
            self.keys.key_for(None)
        if self.accounts is not None:
            self.accounts.rehearse()
