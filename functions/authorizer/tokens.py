"""Verifying the gateway's bearer tokens (issuing them is the local token tool's).

Two kinds, never both at once:
- by default, HS256 tokens signed with the platform's shared key (keys.jwt_key: the
  environment locally, Secrets Manager on AWS);
- when JWT_ISSUER is set, RS256 tokens from that OIDC issuer (a Cognito user pool, or
  any other), checked against the keys it publishes (its JWKS), its name and the client
  they were issued for.
Each accepts its one algorithm only, so `alg: none` and algorithm swaps (an HS256 token
signed with the issuer's public key) fail.
"""

import json
import urllib.request
from collections.abc import Callable

import jwt

from common.bearer import bearer_token as common_bearer_token
from common.keys import Key, jwt_key
from common.lambda_init import REHEARSAL
from common.settings import Settings

ALGORITHM = "HS256"
OIDC_ALGORITHM = "RS256"
# The issuer's keys are fetched once and kept this long: an issuer outage shorter than
# that goes unnoticed, and a key the issuer withdraws is refused within it. A token with
# a key id not among them makes one fetch (a rotation), at most one every 30 s (PyJWT).
JWKS_CACHE_SECONDS = 3600
JWKS_TIMEOUT_SECONDS = 3

Verifier = Callable[[str], dict]  # a token -> its claims, or InvalidToken


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

    exp, nbf and iat are checked by PyJWT whenever they are present.
    """
    try:
        claims = jwt.decode(token, secret, algorithms=[ALGORITHM],
                            # No audience is part of the contract: one present is not
                            # a reason to refuse (PyJWT would, without an expected aud).
                            options={"require": ["sub"], "verify_aud": False})
    except jwt.PyJWTError as exc:
        raise InvalidToken(str(exc)) from None
    return _with_subject(claims)


class SharedKeyVerifier:
    def __init__(self, key: Key):
        self._key = key

    def __call__(self, token: str) -> dict:
        return verify(token, self._key.current())

    def rehearse(self) -> None:
        """Read the key (and keep it) and verify a token with it: what PyJWT loads on
        first use, and the secret's read, happen at init."""
        key = self._key.current()
        verify(jwt.encode({"sub": REHEARSAL}, key, algorithm=ALGORITHM), key)


class IssuerUnreachable(Exception):
    """The issuer's keys could not be fetched: not the caller's fault, so not a 401 (the
    authorizer fails, API Gateway answers 500, and the errors alarm goes off)."""


class OidcVerifier:
    """RS256 tokens of one issuer, for one client: `iss` exactly the issuer, `exp` and
    `sub` present, and the client named by `aud`; a token without `aud` passes only as a
    Cognito access token (`token_use` "access") whose `client_id` is the client. ID tokens
    (`token_use` "id") are for the client application, never for the API."""

    def __init__(self, issuer: str, audience: str, jwks_url: str | None = None):
        self.issuer, self.audience = issuer, audience
        self._jwks_url = jwks_url
        self._keys: jwt.PyJWKClient | None = None

    def __call__(self, token: str) -> dict:
        try:
            key = self._client().get_signing_key_from_jwt(token)
        except jwt.PyJWKClientConnectionError as exc:
            raise IssuerUnreachable(str(exc)) from exc
        except (jwt.PyJWTError, jwt.PyJWKClientError) as exc:
            raise InvalidToken(str(exc)) from None
        try:
            claims = jwt.decode(token, key.key, algorithms=[OIDC_ALGORITHM],
                                issuer=self.issuer,
                                options={"require": ["sub", "iss", "exp"],
                                         "verify_aud": False})
        except jwt.PyJWTError as exc:
            raise InvalidToken(str(exc)) from None
        if claims.get("token_use") == "id":
            raise InvalidToken("an ID token is not an API credential")
        audiences = claims.get("aud")
        if audiences is not None:
            audiences = [audiences] if isinstance(audiences, str) else audiences
            if self.audience not in audiences:
                raise InvalidToken("the token was issued for another audience")
        elif claims.get("token_use") != "access" or claims.get("client_id") != self.audience:
            raise InvalidToken("the token was issued for another client")
        return _with_subject(claims)

    def rehearse(self) -> None:
        """Find the issuer's keys and fetch them (and keep them) at init."""
        self._client().get_jwk_set()

    def _client(self) -> jwt.PyJWKClient:
        if self._keys is None:
            self._keys = jwt.PyJWKClient(self._jwks_url or _discovered_jwks_url(self.issuer),
                                         cache_jwk_set=True, lifespan=JWKS_CACHE_SECONDS,
                                         timeout=JWKS_TIMEOUT_SECONDS)
        return self._keys


def _discovered_jwks_url(issuer: str) -> str:
    """Where the issuer publishes its keys, from its OIDC discovery document."""
    url = issuer.rstrip("/") + "/.well-known/openid-configuration"
    try:
        with urllib.request.urlopen(url, timeout=JWKS_TIMEOUT_SECONDS) as answer:  # noqa: S310
            return json.load(answer)["jwks_uri"]
    except (OSError, ValueError, KeyError) as exc:
        raise IssuerUnreachable(f"no discovery document at {url}: {exc}") from exc


def verifier_for(settings: Settings) -> Verifier:
    if settings.jwt_issuer:
        return OidcVerifier(settings.jwt_issuer, settings.jwt_audience, settings.jwt_jwks_url)
    return SharedKeyVerifier(jwt_key(settings))


def _with_subject(claims: dict) -> dict:
    if not isinstance(claims.get("sub"), str) or not claims["sub"].strip():
        raise InvalidToken("sub must be a non-empty string")
    return claims
