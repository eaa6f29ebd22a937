"""The product's migrations of data an earlier version saved, run by `make run` on what it
restores, before the streams start (infra/local/aws_process.py waits for them and knows
nothing of what they do); `make run`'s banner names what they changed. Each is the one its
`make` command runs against a deployed stack (docs/operations.md). They run in a process
of their own (`python -m infra.dev.migrations`): they bind the functions' models and set
the endpoint, which the stack's process must not carry.
"""

import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

from infra.local.persistence import DataError

ROOT = Path(__file__).resolve().parents[2]
# What the banner calls each migration's count, in the order they run.
NAMES = (
    "shard keys",
    "tracking codes",
    "userIds checked",
    "stock into warehouses",
    "dashboard figures",
    "webhook secrets encrypted",
)


def run(url: str, region: str, pool_id: str, restored: dict[str, int]) -> dict[str, int]:
    """`migrate` in a child process (the stack's on_restored hook); raises DataError with
    what it said when it fails."""
    done = subprocess.run(
        [sys.executable, "-m", "infra.dev.migrations", url, region, pool_id, json.dumps(restored)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    if done.returncode != 0:
        said = (done.stderr.strip().splitlines() or ["(nothing)"])[-1]
        raise DataError(f"the data restored could not be migrated: {said}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def migrate(url: str, region: str, pool_id: str, restored: dict[str, int]) -> dict[str, int]:
    """What data saved by an earlier version lacks (`restored`: the items of each table
    the emulator restored), given to it, in the emulator at `url`; how many items each
    migration changed (NAMES)."""
    import boto3

    done = dict.fromkeys(NAMES, 0)
    if not any(restored.values()):
        return done
    dynamodb = boto3.client("dynamodb", endpoint_url=url)
    # Saved before write-sharding: its items get their shard keys, or lists would not
    # find them; before tracking: shipments get their codes and late checks; and
    # before userIds were claimed: the ids its orders, shipments and accounts carry
    # are claimed, or a new account could be given one.
    from infra import figures_backfill, shard_backfill, tracking_backfill, user_id_backfill

    done["shard keys"] = _total(
        shard_backfill.backfill(dynamodb, {table: table for table in shard_backfill.TABLES})
    )
    done["tracking codes"] = _total(
        tracking_backfill.backfill(dynamodb, {table: table for table in tracking_backfill.TABLES})
    )
    tables = {table: table for table in (*user_id_backfill.TABLES, user_id_backfill.TABLE)}
    cognito = boto3.client("cognito-idp", endpoint_url=url)
    done["userIds checked"] = _total(user_id_backfill.backfill(dynamodb, tables, cognito, pool_id))
    # Saved before warehouses and orders of several lines: every unit and reservation
    # in PRINCIPAL, every order its one line (the functions' models, on the emulator).
    from common.platform.settings import Cloud, Webhooks
    from infra import stock_migration

    os.environ["AWS_ENDPOINT_URL_DYNAMODB"] = url
    done["stock into warehouses"] = _total(stock_migration.migrate(Cloud(region=region)))
    # The dashboard's figures of what no stream delivered: the data restored, and the
    # changes still on their way when the stack last stopped (a stream lives in the
    # emulator's memory).
    figures = (*figures_backfill.TABLES, figures_backfill.TABLE)
    done["dashboard figures"] = _total(
        figures_backfill.backfill(dynamodb, {table: table for table in figures})
    )
    if restored.get("WebhooksTable"):
        # Secrets saved before they were encrypted: encrypted now, as on AWS by `make
        # encrypt-webhook-secrets` (the functions read both forms meanwhile).
        from common.webhooks.vault import Vault
        from infra import webhook_secrets

        kms = boto3.client("kms", endpoint_url=url)
        vault = Vault(Cloud(region=region), Webhooks(), client=kms)
        done["webhook secrets encrypted"] = webhook_secrets.encrypt_all(
            dynamodb, webhook_secrets.TABLE, vault.seal
        )
    return done


def _total(counts: Counter) -> int:
    return sum(counts.values())


if __name__ == "__main__":
    url, region, pool_id, restored = sys.argv[1:5]
    print(json.dumps(migrate(url, region, pool_id, json.loads(restored))), flush=True)
