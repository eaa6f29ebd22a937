"""Rotating one of the platform's keys, in the four steps Secrets Manager invokes a rotation
function with (createSecret, setSecret, testSecret, finishSecret).

The keys are random bytes nothing outside the platform holds, so setting one anywhere
else is nothing, and testing it is checking it can sign. Once finished, the new version is
AWSCURRENT and the one before it AWSPREVIOUS: every container accepts both, and signs
with the new one only once all have read it (common.platform.keys), so a rotation refuses no token
issued before it and none issued during it.
"""

import secrets
from typing import Any

from botocore.exceptions import ClientError

from common.platform.env import MIN_JWT_SECRET_BYTES
from common.platform.keys import CURRENT

PENDING = "AWSPENDING"
STEPS = ("createSecret", "setSecret", "testSecret", "finishSecret")
KEY_CHARACTERS = 64  # as the template generates them: hex, so 64 characters, 32 bytes


class RotationError(Exception):
    """This rotation cannot go on (Secrets Manager records the failure and retries)."""


def new_key() -> str:
    return secrets.token_hex(KEY_CHARACTERS // 2)


def rotate(client: Any, secret_id: str, token: str, step: str) -> None:
    """One step of the rotation whose new version is named `token`."""
    if step not in STEPS:
        raise RotationError(f"unknown step {step!r}")
    stages = client.describe_secret(SecretId=secret_id).get("VersionIdsToStages", {})
    if CURRENT in stages.get(token, []):
        return  # finished already: a repeated invocation changes nothing
    if step == "createSecret":
        _create(client, secret_id, token)
    elif step == "testSecret":
        _test(client, secret_id, token)
    elif step == "finishSecret":
        current = next(version for version, labels in stages.items() if CURRENT in labels)
        client.update_secret_version_stage(
            SecretId=secret_id,
            VersionStage=CURRENT,
            MoveToVersionId=token,
            RemoveFromVersionId=current,
        )
        # Done with it as pending (Secrets Manager would also drop the label itself).
        client.update_secret_version_stage(
            SecretId=secret_id, VersionStage=PENDING, RemoveFromVersionId=token
        )
    # setSecret: no other system holds the key.


def _pending(client: Any, secret_id: str, token: str) -> str | None:
    try:
        return client.get_secret_value(SecretId=secret_id, VersionId=token, VersionStage=PENDING)[
            "SecretString"
        ]
    except ClientError as exc:
        if exc.response["Error"]["Code"] == "ResourceNotFoundException":
            return None
        raise


def _create(client: Any, secret_id: str, token: str) -> None:
    if _pending(client, secret_id, token) is None:
        client.put_secret_value(
            SecretId=secret_id,
            ClientRequestToken=token,
            SecretString=new_key(),
            VersionStages=[PENDING],
        )


def _test(client: Any, secret_id: str, token: str) -> None:
    value = _pending(client, secret_id, token)
    if value is None or len(value.encode("utf-8")) < MIN_JWT_SECRET_BYTES:
        raise RotationError(f"the pending version of {secret_id} cannot sign tokens")
