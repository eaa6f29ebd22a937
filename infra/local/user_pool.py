"""The template's user pool in the emulator: made by `make run` from infra/template.yaml
(infra/template.py create_user_pool), its users kept in LOCAL_DATA_DIR, and its access
tokens carrying what the template's trigger adds on AWS.

Corrections to moto's Cognito, where the platform can tell:

- The pre token generation trigger. moto runs no Lambda trigger, so its access tokens
  lacked `userId` and a customer's token was refused. Here every access token the pool
  issues is given the claims the template's own trigger code returns (handed in by
  `make run`'s glue and the tests: `token_trigger`), as Cognito does on AWS. Its
  `username` is the account's username, by which AdminGetUser finds it, as Cognito's
  is (moto wrote the sub there, which it cannot look up: the authorizer asks the pool
  about each token's account, common/identity/accounts.py).
- Tokens are signed with a key of the stack's own. moto signs every pool's tokens with
  a private key its package ships (anyone can read it), so anyone could mint an
  operator's token for a developer's stack. Here the pools sign with an RSA key made for
  the data directory (SIGNING_KEY_FILE beside the HS256 key, readable by its owner alone;
  a new one at each start with the data in memory), and their keys' document (JWKS)
  publishes that key alone (`sign_with`). The key's id stays moto's name for it.
- Passwords are never kept in clear. moto holds them as given; once saved, a user's
  password is held as its scrypt (`Hashed`), in memory as on disk, and moto's comparison
  of a password with it checks the hash. A sign-in for a username the pool lacks hashes
  its password too (moto refused it at once: the time told which emails have accounts).
- A sign-in flow the app client does not allow is refused. moto signs in by any flow
  whatever the client's ExplicitAuthFlows; Cognito answers InvalidParameterException
  ("... flow not enabled for this client"), and the template's client allows no password
  flow of its own (only the API's administrator flow), so nobody can guess passwords
  against the emulator's pool past the API's limits either (`refused_flow`).
- Users survive a restart. moto keeps users in memory; `users.json` in the data
  directory holds every user of the pool (sub, username, attributes, status, groups,
  the password's hash), written after each request that may have changed one, before it
  is answered, and put back into the pool at start. The pool's and its client's ids
  are the hash of their declarations (moto's HASH id strategy), so the issuer, the
  audience and every token issued before a restart stay valid after it.
"""

import contextlib
import hashlib
import hmac
import importlib
import json
import secrets
import threading
from collections.abc import Callable
from typing import Any

from joserfc import jwk
from moto.cognitoidp.models import (
    CognitoIdpUser,
    CognitoIdpUserPool,
    UserStatus,
    cognitoidp_backends,
)
from moto.cognitoidp.responses import CognitoIdpJsonWebKeyResponse
from moto.cognitoidp.utils import flatten_attrs
from moto.core import DEFAULT_ACCOUNT_ID

from infra.local.persistence import DataDir, DataError, write_atomically
from infra.local.signing_key import create_once

COGNITO_TARGET = "AWSCognitoIdentityProviderService."
# moto's own environment variables: ids that are hashes of the declarations, not random.
HASH_IDS = {
    "MOTO_COGNITO_IDP_USER_POOL_ID_STRATEGY": "HASH",
    "MOTO_COGNITO_IDP_USER_POOL_CLIENT_ID_STRATEGY": "HASH",
}
USERS_FILE = "users.json"
USERS_FORMAT = "logistics-local-users/1"
# Operations that change no user: nothing to save after them (a sign-in makes tokens,
# which are not kept: they are signed, and valid after a restart by their signature).
_READS = {
    "InitiateAuth",
    "AdminInitiateAuth",
    "RespondToAuthChallenge",
    "GetUser",
    "AdminGetUser",
    "ListUsers",
    "ListGroups",
    "GetGroup",
    "ListUsersInGroup",
    "AdminListGroupsForUser",
    "DescribeUserPool",
    "DescribeUserPoolClient",
    "ListUserPools",
    "ListUserPoolClients",
}
# The hash is for the data directory, which holds no password in clear; a sign-in for
# no one costs one too (`cost_a_hash`), so the time tells a guesser nothing.
_SCRYPT = {"n": 2**10, "r": 8, "p": 1, "dklen": 32}


# The pools' signing key, in the data directory (beside infra/local/signing_key.py's KEY_FILE).
SIGNING_KEY_FILE = "user-pool-signing-key.pem"
SIGNING_KEY_BITS = 2048
# The key id moto's tokens name (its create_jwt writes it): the key is ours, the name moto's.
SIGNING_KEY_ID = "dummy"


def signing_key(directory: DataDir | None) -> jwk.RSAKey:
    """The pools' signing key: the data directory's, made there on first use; a new one,
    in memory only, for data in memory. DataError for a file that holds no key."""
    if directory is None:
        return jwk.RSAKey.generate_key(SIGNING_KEY_BITS)
    path = directory.file(SIGNING_KEY_FILE)
    try:
        if not path.exists():
            made = jwk.RSAKey.generate_key(SIGNING_KEY_BITS)
            create_once(path, made.as_pem(private=True).decode("ascii"))
        return jwk.RSAKey.import_key(path.read_bytes())
    except (OSError, ValueError) as exc:
        raise DataError(
            f"Local data: {path} holds no signing key of the user pool ({exc}): delete it, "
            "and a new one is made (tokens signed with the old one are then refused)"
        ) from None


def sign_with(key: jwk.RSAKey) -> None:
    """Every pool, made now or later, signs its tokens with `key`, and publishes it alone
    as its keys (JWKS); never moto's own key, which its package ships."""
    published = {**key.as_dict(private=False), "kid": SIGNING_KEY_ID, "use": "sig", "alg": "RS256"}
    # A property on the class wins over the attribute moto sets on each pool.
    CognitoIdpUserPool.json_web_key = property(  # type: ignore[assignment]
        lambda _pool: key, lambda _pool, _moto_key: None
    )
    CognitoIdpJsonWebKeyResponse.json_web_key = json.dumps({"keys": [published]}).encode()


def changes_users(operation: str) -> bool:
    return operation not in _READS


# The setting of an app client's ExplicitAuthFlows each AuthFlow needs, and what a client
# that names none allows (Cognito's defaults).
_FLOW_SETTINGS = {
    "USER_PASSWORD_AUTH": "ALLOW_USER_PASSWORD_AUTH",
    "USER_SRP_AUTH": "ALLOW_USER_SRP_AUTH",
    "ADMIN_USER_PASSWORD_AUTH": "ALLOW_ADMIN_USER_PASSWORD_AUTH",
    "ADMIN_NO_SRP_AUTH": "ALLOW_ADMIN_USER_PASSWORD_AUTH",
    "REFRESH_TOKEN_AUTH": "ALLOW_REFRESH_TOKEN_AUTH",
    "REFRESH_TOKEN": "ALLOW_REFRESH_TOKEN_AUTH",
    "CUSTOM_AUTH": "ALLOW_CUSTOM_AUTH",
    "USER_AUTH": "ALLOW_USER_AUTH",
}
_DEFAULT_FLOWS = ("ALLOW_REFRESH_TOKEN_AUTH", "ALLOW_USER_SRP_AUTH", "ALLOW_CUSTOM_AUTH")
_SIGN_INS = {"InitiateAuth", "AdminInitiateAuth"}


def refused_flow(operation: str, body: bytes) -> str | None:
    """Cognito's message refusing a sign-in whose flow its app client does not allow;
    None for any other request (moto answers it, an unknown client or flow included)."""
    if operation not in _SIGN_INS:
        return None
    try:
        request = json.loads(body or b"{}")
        flow, client_id = request.get("AuthFlow"), request.get("ClientId")
    except (ValueError, AttributeError):
        return None
    for backend in list(cognitoidp_backends[DEFAULT_ACCOUNT_ID].values()):
        for pool in list(backend.user_pools.values()):
            client = pool.clients.get(client_id)
            if client is None or flow not in _FLOW_SETTINGS:
                continue
            allowed = client.extended_config.get("ExplicitAuthFlows") or _DEFAULT_FLOWS
            if _FLOW_SETTINGS[flow] not in allowed:
                return f"{flow} flow not enabled for this client"
    return None


class Hashed:
    """A password held as its scrypt. moto compares a user's password with `!=`."""

    def __init__(self, salt: bytes, digest: bytes):
        self.salt, self.digest = salt, digest

    @classmethod
    def of(cls, password: str) -> "Hashed":
        salt = secrets.token_bytes(16)
        return cls(salt, hashlib.scrypt(password.encode("utf-8"), salt=salt, **_SCRYPT))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, str):
            return False
        tried = hashlib.scrypt(other.encode("utf-8"), salt=self.salt, **_SCRYPT)
        return hmac.compare_digest(tried, self.digest)

    def __ne__(self, other: object) -> bool:
        return not self == other

    __hash__ = None  # type: ignore[assignment]

    def saved(self) -> str:
        return f"scrypt${self.salt.hex()}${self.digest.hex()}"

    @classmethod
    def from_saved(cls, text: str) -> "Hashed":
        kind, salt, digest = text.split("$")
        if kind != "scrypt":
            raise ValueError(kind)
        return cls(bytes.fromhex(salt), bytes.fromhex(digest))


_NOTHING = Hashed(b"", b"")  # what a password for no one is checked against


def cost_a_hash(operation: str, body: bytes, response: list[bytes]) -> None:
    """A password sign-in refused for a username the pool lacks costs the hash a known
    one's check does (moto refused it at once: the time told who has an account)."""
    if operation in _SIGN_INS and b"UserNotFoundException" in b"".join(response):
        with contextlib.suppress(ValueError, AttributeError):
            password = json.loads(body or b"{}").get("AuthParameters", {}).get("PASSWORD")
            _ = str(password or "") == _NOTHING


# A pre token generation trigger (version 2): Cognito's event in, with its `response` out.
TokenTrigger = Callable[[dict], dict]


def token_trigger(path: str) -> TokenTrigger:
    """The trigger at `path` ("module:function"): the product's code, named by the product."""
    module, _, name = path.partition(":")
    return getattr(importlib.import_module(module), name)


def access_tokens_run_the_trigger(trigger: TokenTrigger | None) -> None:
    """Every access token moto issues carries the claims `trigger` adds, as Cognito runs
    the pool's on AWS. moto's pools are this process's: the last trigger given is run,
    and none leaves them as they are (another emulator of this process may have one)."""
    if trigger is None:
        return

    def create_access_token(
        self: CognitoIdpUserPool, client_id: str, username: str, origin_jti: str
    ) -> tuple[str, int]:
        user = self._get_user(username)
        event = {"request": {"userAttributes": flatten_attrs(user.attributes)}}
        details = trigger(event)["response"]["claimsAndScopeOverrideDetails"]
        extra: dict[str, Any] = {
            "origin_jti": origin_jti,
            "scope": "aws.cognito.signin.user.admin",
            # The account's username as the pool finds it (AdminGetUser), as Cognito's
            # claim is: moto writes the sub there, by which it cannot find the user.
            "username": user.username,
            **details["accessTokenGeneration"]["claimsToAddOrOverride"],
        }
        if user.groups:
            extra["cognito:groups"] = sorted(group.group_name for group in user.groups)
        token, expires_in = self.create_jwt(client_id, username, "access", extra_data=extra)
        self.access_tokens[token] = (client_id, username)
        return token, expires_in

    CognitoIdpUserPool.create_access_token = create_access_token  # type: ignore[method-assign]


def _pool(region: str, pool_id: str) -> CognitoIdpUserPool:
    return cognitoidp_backends[DEFAULT_ACCOUNT_ID][region].user_pools[pool_id]


class PoolUsers:
    """The users of one pool, restored from a DataDir and saved back to it."""

    def __init__(self, directory: DataDir, region: str, pool_id: str):
        self._path = directory.file(USERS_FILE)
        self._region, self._pool_id = region, pool_id
        self._lock = threading.Lock()

    def restore(self) -> int:
        """Put every saved user back into the (new, empty) pool; DataError for a file
        that cannot be used (left as it is). Returns how many."""
        if not self._path.exists():
            return 0
        try:
            document = json.loads(self._path.read_text(encoding="utf-8"))
            assert document["format"] == USERS_FORMAT
            users = document["users"]
            for saved in users:
                self._put_back(saved)
        except (ValueError, KeyError, TypeError, AssertionError) as exc:
            raise DataError(
                f"Local data: {self._path} is not a users file of this stack ({exc!r}); "
                "it was left as it is"
            ) from None
        return len(users)

    def _put_back(self, saved: dict) -> None:
        pool = _pool(self._region, self._pool_id)
        user = CognitoIdpUser(
            pool.id, saved["username"], None, UserStatus(saved["status"]), saved["attributes"]
        )
        user.id = saved["sub"]
        user.update_attributes([{"Name": "sub", "Value": saved["sub"]}])
        user.enabled = bool(saved["enabled"])
        if saved.get("password"):
            user.password = Hashed.from_saved(saved["password"])  # type: ignore[assignment]
        pool.users[user.username] = user
        for name in saved["groups"]:
            group = pool.groups[name]
            group.users.add(user)
            user.groups.add(group)

    def save(self) -> None:
        """Every user as the pool has them now (their passwords hashed first)."""
        with self._lock:
            users = []
            for user in list(_pool(self._region, self._pool_id).users.values()):
                if isinstance(user.password, str):
                    user.password = Hashed.of(user.password)  # type: ignore[assignment]
                users.append(
                    {
                        "sub": user.id,
                        "username": user.username,
                        "attributes": user.attributes,
                        "status": str(getattr(user.status, "value", user.status)),
                        "enabled": user.enabled,
                        "groups": sorted(group.group_name for group in user.groups),
                        "password": user.password.saved()
                        if isinstance(user.password, Hashed)
                        else None,
                    }
                )
            write_atomically(
                self._path,
                json.dumps({"format": USERS_FORMAT, "users": users}, separators=(",", ":")) + "\n",
            )
