"""`make token STAGE=dev`: a token for a deployed stack, signed with the key its template
generated in Secrets Manager, read with the caller's credentials (moto stands in)."""

import contextlib
import os
import subprocess
from pathlib import Path

import boto3
import jwt
import pytest

from infra.tokens import JWT_SECRET_NAME, stage_stack

ROOT = Path(__file__).resolve().parents[2]
KEY = "the-dev-stacks-generated-signing-key-0123456789abcdefghijklmnopq"


def make_token(*args: str, endpoint: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["make", "-s", "token", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "AWS_ENDPOINT_URL_SECRETS_MANAGER": endpoint},
    )


@pytest.fixture
def dev_secret(emulator):
    stack, region = stage_stack("dev")
    client = boto3.client("secretsmanager", region_name=region, endpoint_url=emulator.url)
    name = f"{stack}/{JWT_SECRET_NAME}"
    with contextlib.suppress(client.exceptions.ResourceNotFoundException):
        client.delete_secret(SecretId=name, ForceDeleteWithoutRecovery=True)
    client.create_secret(Name=name, SecretString=KEY)
    yield name
    client.delete_secret(SecretId=name, ForceDeleteWithoutRecovery=True)


def test_a_stage_token_is_signed_with_the_stages_secret(emulator, dev_secret):
    result = make_token("STAGE=dev", "SUB=ops@example.com", endpoint=emulator.url)
    assert result.returncode == 0, result.stderr
    (token,) = result.stdout.splitlines()
    claims = jwt.decode(token, KEY.encode(), algorithms=["HS256"])
    assert claims["sub"] == "ops@example.com" and claims["exp"] - claims["iat"] == 24 * 3600


def test_without_access_to_the_secret_it_says_which_and_where(emulator):
    result = make_token("STAGE=prod", endpoint=emulator.url)
    assert result.returncode != 0 and result.stdout == ""
    assert "Cannot read the secret logistics-prod/jwt-signing-key in us-east-1" in result.stderr


def test_an_unknown_stage_is_named(emulator):
    result = make_token("STAGE=staging", endpoint=emulator.url)
    assert result.returncode != 0
    assert "STAGE='staging' is not in samconfig.toml (one of dev, prod)" in result.stderr
