"""The platform's two keys: the one bearer tokens are signed with (HS256) and the one list
page tokens are signed with.

Locally each comes from the environment (JWT_SECRET, PAGE_TOKEN_KEY, with development
defaults). On AWS each is a Secrets Manager secret the template generates, named by
JWT_SECRET_ID or PAGE_TOKEN_KEY_ID, so no key is in an environment variable or a
template parameter. A secret is read through Powertools' parameters utility and kept for
CACHE_SECONDS, so a rotation reaches every container within that time without a read
per request.
"""

from common.settings import MIN_JWT_SECRET_BYTES, ConfigError, Settings

CACHE_SECONDS = 300


class Key:
    def current(self) -> bytes:
        raise NotImplementedError


class FixedKey(Key):
    def __init__(self, value: bytes):
        self._value = value

    def current(self) -> bytes:
        return self._value


class SecretKey(Key):
    def __init__(self, secret_id: str, provider):
        self._id, self._provider = secret_id, provider

    def current(self) -> bytes:
        value = self._provider.get(self._id, max_age=CACHE_SECONDS)
        key = value.encode("utf-8") if isinstance(value, str) else bytes(value)
        if len(key) < MIN_JWT_SECRET_BYTES:
            raise ConfigError(f"the secret {self._id} holds fewer than "
                              f"{MIN_JWT_SECRET_BYTES} bytes")
        return key


def jwt_key(settings: Settings) -> Key:
    return _key(settings, settings.jwt_secret_id, settings.jwt_secret)


def page_token_key(settings: Settings) -> Key:
    return _key(settings, settings.page_token_key_id, settings.page_token_key)


def _key(settings: Settings, secret_id: str | None, literal: bytes) -> Key:
    if secret_id is None:
        return FixedKey(literal)
    # Loaded only where a key is a secret: the utility imports boto3 (and the client,
    # botocore), which a function without one (notifications, everything locally) need
    # not load at its cold start.
    from aws_lambda_powertools.utilities.parameters import SecretsProvider

    from common import aws

    return SecretKey(secret_id, SecretsProvider(boto3_client=aws.secretsmanager(settings)))
