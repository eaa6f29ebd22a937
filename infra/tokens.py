"""`make token`: one line, a bearer token valid 24 hours.

Without STAGE, for the local stack (signed with JWT_SECRET, or its development default).
With STAGE=dev|prod, for that deployed stack: signed with the key its template generated
in Secrets Manager (`<stack name>/jwt-signing-key`), read with the caller's own AWS
credentials, so only someone allowed to read that secret can mint one. A stack that takes
tokens from an OIDC issuer (JWT_ISSUER) refuses these: sign in with the issuer instead.
"""

import argparse
import getpass
import sys
import tomllib
from pathlib import Path

from infra.local.tokens import issue, local_token

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


def stage_token(stage: str, subject: str) -> str:
    import boto3
    from botocore.exceptions import BotoCoreError, ClientError

    stack, region = stage_stack(stage)
    secret_id = f"{stack}/{JWT_SECRET_NAME}"
    try:
        secret = boto3.client("secretsmanager", region_name=region).get_secret_value(
            SecretId=secret_id)["SecretString"]
    except (BotoCoreError, ClientError) as exc:
        raise SystemExit(f"Cannot read the secret {secret_id} in {region} with your AWS "
                         f"credentials: {exc}") from None
    return issue(subject, secret.encode("utf-8"))


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stage", help="a samconfig.toml environment: dev, prod")
    parser.add_argument("--subject", help="the token's sub (default: you@STAGE)")
    args = parser.parse_args(argv)
    if args.stage:
        print(stage_token(args.stage, args.subject or f"{getpass.getuser()}@{args.stage}"))
    else:
        from common.settings import Settings

        print(local_token(Settings.load()))


if __name__ == "__main__":
    main(sys.argv[1:])
