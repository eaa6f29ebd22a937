"""Verifying the gateway's bearer tokens (issuing them is the token tool's:
infra/tokens.py). Two kinds:
- HS256 tokens signed with the platform's shared key (authorizer.shared_key): `make
  token`'s, for scripts and tests;
- when JWT_ISSUER is set, RS256 tokens from that OIDC issuer (authorizer.oidc): the
  users' own, from signing in (docs/identity.md).
With both, the token header's `alg` picks the one verifier that may look at it
(ByAlgorithm); each accepts its one algorithm only and brings its own key, so `alg:
none` and algorithm swaps (an HS256 token signed with the issuer's public key) fail: a
token chooses which verifier refuses it, never a key. What every token must claim, and
whose it is, is the same for both (authorizer.claims).
"""

import functools

import jwt

from authorizer.claims import InvalidToken, Verifier
from authorizer.oidc import OIDC_ALGORITHM, OidcVerifier
from authorizer.shared_key import ALGORITHM, SharedKeyVerifier
from common.identity.accounts import AccountCheck, Revocations
from common.identity.callers import Caller
from common.platform import aws
from common.platform.keys import jwt_keys
from common.platform.settings import Cloud, Pool, Tokens


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


def verifier_for(cloud: Cloud, tokens: Tokens, pool: Pool) -> Verifier:
    """The shared key's verifier, the issuer's, or both (ByAlgorithm). Without an issuer
    the shared key is required (jwt_keys stops init without one); with an issuer it is
    taken beside it when the environment names it (on AWS it always does: make token)."""
    shared = (
        SharedKeyVerifier(jwt_keys(tokens, cloud))
        if tokens.jwt_issuer is None or tokens.jwt_secret or tokens.jwt_secret_id
        else None
    )
    if tokens.jwt_issuer is None:
        assert shared is not None
        return shared
    assert tokens.jwt_audience is not None  # from_env refuses JWT_ISSUER without it
    # The stack's own pool (USER_POOL_ID names it): its accounts are checked as well.
    accounts = (
        AccountCheck(
            functools.partial(aws.cognito, cloud),
            pool.user_pool_id,
            keep_seconds=tokens.account_check_seconds,
            revocations=Revocations.for_function(cloud),
        )
        if pool.user_pool_id is not None
        else None
    )
    oidc = OidcVerifier(tokens.jwt_issuer, tokens.jwt_audience, tokens.jwt_jwks_url, accounts)
    if shared is None:
        return oidc
    return ByAlgorithm({ALGORITHM: shared, OIDC_ALGORITHM: oidc})
