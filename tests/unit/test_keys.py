"""Keys that rotate without refusing a token (common/platform/keys.py): which version signs, which
verify, and when a container reads the secret, against a stand-in for Secrets Manager."""

from datetime import UTC, datetime

import pytest
from botocore.exceptions import ClientError

from common.platform.errors import Invalid
from common.platform.keys import (
    MIN_REREAD_SECONDS,
    PROPAGATION_SECONDS,
    REFRESH_SECONDS,
    FixedRing,
    SecretRing,
)
from common.storage.paging import issue_token, read_token


class Clock:
    def __init__(self):
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now


class Secret:
    """A secret's versions by stage, as GetSecretValue answers them; counts the reads."""

    def __init__(self, clock: Clock):
        self.clock, self.reads, self.versions, self.stages = clock, 0, {}, {}
        self.rotate()

    def rotate(self) -> str:
        version = f"v{len(self.versions) + 1}"
        self.versions[version] = (f"{version}-" + "k" * 40, self.clock.now)
        current = self.stages.get("AWSCURRENT")
        if current:
            self.stages["AWSPREVIOUS"] = current
        self.stages["AWSCURRENT"] = version
        return version

    def get_secret_value(self, SecretId: str, VersionStage: str) -> dict:  # noqa: N803
        self.reads += 1
        version = self.stages.get(VersionStage)
        if version is None:
            raise ClientError({"Error": {"Code": "ResourceNotFoundException"}}, "GetSecretValue")
        value, created = self.versions[version]
        return {
            "VersionId": version,
            "SecretString": value,
            "CreatedDate": datetime.fromtimestamp(created, UTC),
        }


@pytest.fixture
def clock():
    return Clock()


@pytest.fixture
def secret(clock):
    return Secret(clock)


def ring(secret, clock):
    return SecretRing("stack/jwt-signing-key", lambda: secret, clock)


def test_a_container_reads_the_secret_once_per_refresh_period(secret, clock):
    keys = ring(secret, clock)
    assert keys.signing().kid == "v1"
    reads = secret.reads
    clock.now += REFRESH_SECONDS - 1
    keys.signing()
    assert secret.reads == reads
    clock.now += 1
    keys.signing()
    assert secret.reads > reads


def test_a_new_version_signs_only_once_every_container_has_read_it(secret, clock):
    signer, stale = ring(secret, clock), ring(secret, clock)
    before = signer.signing()
    stale.verifying(None)  # read just before the rotation
    new = secret.rotate()
    clock.now += REFRESH_SECONDS  # the signer has read the new version by now...
    assert signer.signing() == before  # ...but signs with the old one, which all accept
    assert [k.kid for k in stale.verifying(before.kid)] == ["v1"]
    clock.now = secret.versions[new][1] + PROPAGATION_SECONDS
    assert signer.signing().kid == new
    # every container read the secret at least once since the rotation
    assert [k.kid for k in stale.verifying(new)] == [new]


def test_the_current_and_previous_versions_verify_and_nothing_older(secret, clock):
    keys = ring(secret, clock)
    secret.rotate()
    secret.rotate()
    clock.now += REFRESH_SECONDS
    assert [k.kid for k in keys.verifying(None)] == ["v3", "v2"]
    assert keys.verifying("v1") == []


def test_a_token_naming_an_unread_version_makes_one_reread_at_most_every_few_seconds(secret, clock):
    keys = ring(secret, clock)
    keys.verifying(None)
    new = secret.rotate()
    clock.now += MIN_REREAD_SECONDS
    assert [k.kid for k in keys.verifying(new)] == [new]  # read again at once
    reads = secret.reads
    for _ in range(10):
        assert keys.verifying("junk") == []
    assert secret.reads == reads  # junk kids cannot turn into a read per request


def test_page_tokens_name_their_key_and_survive_a_rotation(secret, clock):
    keys = ring(secret, clock)
    token = issue_token(keys, "/api/pedidos", {"status": None}, 50)
    secret.rotate()
    clock.now += PROPAGATION_SECONDS
    assert keys.signing().kid == "v2"
    assert read_token(keys, token, "/api/pedidos", {"status": None}) == 50
    secret.rotate()
    clock.now += PROPAGATION_SECONDS
    with pytest.raises(Invalid, match="nextToken"):  # two rotations later: refused
        read_token(keys, token, "/api/pedidos", {"status": None})


def test_a_page_token_from_before_key_versions_is_still_read():
    import base64
    import hashlib
    import hmac
    import json

    key = b"x" * 40
    payload = json.dumps(
        {"list": "/l", "filters": {}, "after": 9}, separators=(",", ":"), sort_keys=True
    ).encode()
    mac = hmac.new(key, payload, hashlib.sha256).digest()[:16]

    def b64(data):
        return base64.urlsafe_b64encode(data).rstrip(b"=").decode()

    assert read_token(FixedRing(key), f"{b64(payload)}.{b64(mac)}", "/l", {}) == 9
