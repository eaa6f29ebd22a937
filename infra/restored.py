"""What data an earlier version saved lacks, given to it when `make run` restores it (the
product's part of the local stack's start: infra/local/aws_process.py calls it and knows
nothing of what it does). Each backfill is the one its `make` command runs against a
deployed stack (docs/operations.md); they read the functions' models, which an emulator
with nothing to restore has no need of, so they are imported here."""

import os


def backfill(url: str, region: str, pool_id: str, restored: dict[str, int]) -> None:
    """What data saved by an earlier version lacks (`restored`: the items of each table
    the emulator restored), given to it, in the emulator at `url`."""
    import boto3

    dynamodb = boto3.client("dynamodb", endpoint_url=url)
    if any(restored.values()):
        # Saved before write-sharding: its items get their shard keys, or lists would not
        # find them; before tracking: shipments get their codes and late checks; and
        # before userIds were claimed: the ids its orders, shipments and accounts carry
        # are claimed, or a new account could be given one.
        from infra import figures_backfill, shard_backfill, tracking_backfill, user_id_backfill

        shard_backfill.backfill(dynamodb, {table: table for table in shard_backfill.TABLES})
        tracking_backfill.backfill(dynamodb, {table: table for table in tracking_backfill.TABLES})
        tables = {table: table for table in (*user_id_backfill.TABLES, user_id_backfill.TABLE)}
        cognito = boto3.client("cognito-idp", endpoint_url=url)
        user_id_backfill.backfill(dynamodb, tables, cognito, pool_id)
        # Saved before warehouses and orders of several lines: every unit and reservation
        # in PRINCIPAL, every order its one line (the functions' models, on the emulator).
        from common.platform.settings import Cloud
        from infra import stock_migration

        os.environ["AWS_ENDPOINT_URL_DYNAMODB"] = url
        stock_migration.migrate(Cloud(region=region))
        # The dashboard's figures of what no stream delivered: the data restored, and the
        # changes still on their way when the stack last stopped (a stream lives in the
        # emulator's memory).
        figures = (*figures_backfill.TABLES, figures_backfill.TABLE)
        figures_backfill.backfill(dynamodb, {table: table for table in figures})
    if restored.get("WebhooksTable"):
        # Secrets saved before they were encrypted: encrypted now, as on AWS by `make
        # encrypt-webhook-secrets` (the functions read both forms meanwhile).
        from common.platform.settings import Cloud, Webhooks
        from common.webhooks.vault import Vault
        from infra import webhook_secrets

        kms = boto3.client("kms", endpoint_url=url)
        vault = Vault(Cloud(region=region), Webhooks(), client=kms)
        webhook_secrets.encrypt_all(dynamodb, webhook_secrets.TABLE, vault.seal)
