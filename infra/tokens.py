"""`make token`: one line, a bearer token valid 24 hours, an operator's unless told.

`ROLE=customer USER_ID=42` makes it a customer's (docs/api.md#who-may-do-what); `SUB=`
sets its subject. Without STAGE, for the local stack: signed with its key, JWT_SECRET or
the one kept in LOCAL_DATA_DIR (infra/local/signing_key.py); when a stack runs on that
LOCAL_DATA_DIR (infra/local/running.py) and signs with another key, it says so instead.
With STAGE=dev|prod, for that deployed stack: signed with the key its template generated
in Secrets Manager (`<stack name>/jwt-signing-key`), in the version the stack's own
functions would sign with now (common.platform.keys), read with the caller's own AWS credentials,
so only someone allowed to read that secret can mint one. A stack that takes tokens from
an OIDC issuer (JWT_ISSUER) refuses these: sign in with the issuer instead.
"""

import argparse
import getpass
import sys
import tomllib
from pathlib import Path

from common.identity.callers import CUSTOMER, OPERATOR, ROLES
from common.platform.ids import ascii_digits
from infra.dev.tokens import LOCAL_SUBJECT, issue, local_settings, local_token

ROOT = Path(__file__).resolve().parent.parent
# The template names the secret <stack name>/<this> (tests/release holds them together).
JWT_SECRET_NAME = "jwt-signing-key"


def stage_stack(stage: str, samconfig: Path = ROOT / "samconfig.toml") -> tuple[str, str]:
    """The stack name and region `sam deploy --config-env <stage>` deploys to."""
    config = tomllib.loads(samconfig.read_text())
    if stage not in config or stage == "default":
        known = sorted(name for name in config if name not in ("version", "default"))
        raise SystemExit(f"STAGE={stage!r} is not in samconfig.toml (one of {', '.join(known)})")
    stack = config[stage]["global"]["parameters"]["stack_name"]
    region = config[stage].get("deploy", {}).get("parameters", {}).get("region", "us-east-1")
    return stack, region


def stage_token(stage: str, subject: str, role: str, user_id: int | None) -> str:
    import boto3
    from botocore.exceptions import BotoCoreError, ClientError

    from common.platform.keys import SecretRing

    stack, region = stage_stack(stage)
    secret_id = f"{stack}/{JWT_SECRET_NAME}"
    try:
        key = SecretRing(
            secret_id, lambda: boto3.client("secretsmanager", region_name=region)
        ).signing()
    except (BotoCoreError, ClientError) as exc:
        raise SystemExit(
            f"Cannot read the secret {secret_id} in {region} with your AWS credentials: {exc}"
        ) from None
    return issue(subject, key, role=role, user_id=user_id)


def _user_id(raw: str | None) -> int | None:
    if raw in (None, ""):
        return None
    if not ascii_digits(raw) or int(raw) < 1:
        raise SystemExit(f"USER_ID={raw!r}: must be a positive integer")
    return int(raw)


def _same_key_as_the_running_stack(settings) -> None:
    """A token the running stack would refuse is not printed: it says why instead (the
    stack was given a JWT_SECRET this was not, or another)."""
    from common.platform.keys import FixedRing
    from infra.local.running import running

    found = running()
    if found is None or settings.jwt_secret is None:
        return
    if FixedRing(settings.jwt_secret).signing().kid != found.key_id:
        raise SystemExit(
            "make token: the local stack running on this LOCAL_DATA_DIR signs with another "
            "key (the JWT_SECRET it was started with): run make token with the same "
            "JWT_SECRET, or use the token the stack printed"
        )


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stage", help="a samconfig.toml environment: dev, prod")
    parser.add_argument("--subject", help="the token's sub (default: you@STAGE)")
    parser.add_argument("--role", default=OPERATOR, help="operator (default) or customer")
    parser.add_argument("--user-id", help="the customer's userId (required for a customer)")
    args = parser.parse_args(argv)
    role = (args.role or OPERATOR).lower()
    if role not in ROLES:
        raise SystemExit(f"ROLE={args.role!r}: must be one of {', '.join(ROLES)}")
    user_id = _user_id(args.user_id)
    if role == CUSTOMER and user_id is None:
        raise SystemExit("ROLE=customer needs USER_ID=<the customer's userId>, e.g. USER_ID=42")
    if args.stage:
        subject = args.subject or f"{getpass.getuser()}@{args.stage}"
        print(stage_token(args.stage, subject, role, user_id))
    else:
        from common.platform.env import ConfigError, stop_process

        subject = args.subject or (
            f"customer-{user_id}@localhost" if role == CUSTOMER else LOCAL_SUBJECT
        )
        try:
            settings = local_settings()
        except ConfigError as exc:
            stop_process(exc)
        _same_key_as_the_running_stack(settings)
        print(local_token(settings, subject, role, user_id))


if __name__ == "__main__":
    main(sys.argv[1:])
