"""The platform's own tokens: HS256, signed with a version of its shared key
(common.platform.keys: the environment locally, a rotated Secrets Manager secret on AWS; a token
names the key's version in `kid`): `make token`'s, for scripts and tests. Issuing them is
the token tool's (infra/tokens.py)."""

import time

import jwt

from authorizer.claims import InvalidToken, OtherKey, caller_of, decoded, key_id
from common.identity.callers import OPERATOR, Caller
from common.platform.keys import KeyRing
from common.platform.lambda_init import REHEARSAL

ALGORITHM = "HS256"


class SharedKeyVerifier:
    """HS256 tokens signed with a version of the platform's key the ring accepts."""

    def __init__(self, keys: KeyRing):
        self._keys = keys

    def __call__(self, token: str) -> Caller:
        candidates = self._keys.verifying(key_id(token))
        if not candidates:
            raise InvalidToken("signed with a key version this platform does not accept")
        for key in candidates[:-1]:  # a token without kid: the current key, then the previous
            try:
                return caller_of(decoded(token, key.secret, ALGORITHM), OPERATOR)
            except OtherKey:
                continue
        return caller_of(decoded(token, candidates[-1].secret, ALGORITHM), OPERATOR)

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
