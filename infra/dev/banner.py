"""`make run`'s banner: where everything is, a token, what the data holds and what the
migrations changed (infra/dev/migrations.py), as one block of lines."""

import os
import socket

from common.platform.keys import FixedRing
from infra import api_docs
from infra.dev import console
from infra.dev.reload import WATCHED
from infra.dev.tokens import local_token
from infra.local.running import RunningStack
from infra.local.settings import DEFAULT_PORTS, PARTITION_WRITES_PATH
from infra.local.stack import LocalStack

# What a user creates, by the table that holds it, for the banner's count of what was
# restored; the other tables hold the platform's own records (sku claims, counters,
# idempotency records, the breaker's state).
CREATED_IN = {"ProductsTable": "product", "OrdersTable": "order", "ShipmentsTable": "shipment"}


def banner(stack: LocalStack) -> list[str]:
    lines = []
    if stack.with_gateway:
        url = stack.gateway_url
        lines += [
            f"Gateway:       {url}  (e.g. {url}/api/inventario)",
            f"Notifications: {stack.notification_url}/notificaciones",
            f"Docs:          {url}{api_docs.PAGE_PATH}  "
            f"(the OpenAPI document: {url}{api_docs.SPEC_PATH})",
            f"Console:       {url}{console.PAGE_PATH}  "
            "(sign in with a user of `make seed`, or the token below)",
        ]
    else:
        command = chalice_local_command(
            stack.local.gateway_port or _free_port(),
            _port(stack.dynamodb_url),
            _port(stack.lambda_url),
        )
        lines += [
            f"Notifications: {stack.notification_url}/notificaciones",
            f"Gateway:       not served here: in another terminal run `{command}`",
        ]
    lines += [
        f"DynamoDB:      {stack.dynamodb_url}",
        f"Lambda:        {stack.lambda_url}  (runs the template's "
        f"{len(stack.lambdas.specs)} functions)",
        *_partitions_line(stack),
    ]
    token = local_token(stack.settings.tokens)
    lines.append(f"Token:         {token}")
    if stack.with_gateway:
        lines.append(
            f'Try:           curl -H "Authorization: Bearer {token}" '
            f"{stack.gateway_url}/api/inventario"
        )
    if stack.data is None:
        lines.append(
            "Data:          in memory only (LOCAL_DATA_DIR is empty): gone when this stops"
        )
    else:
        lines.append(
            f"Data:          {stack.data.path}  (restored: {restored(stack.restored)}; "
            "kept across restarts, `make reset` empties it)"
        )
        migrated = said(stack.migrated) if stack.restored else "none needed (nothing restored)"
        lines.append(f"Migrations:    of data an earlier version saved: {migrated}")
    watched = ", ".join(f"{name}/" if "." not in name else name for name in WATCHED)
    lines.append(
        f"Reload:        on: a change under {watched} replaces the functions it "
        "touches, not the data (RELOAD=0 turns it off)"
        if stack.local.reload
        else "Reload:        off"
    )
    return lines


def running(stack: LocalStack) -> RunningStack:
    """Where this stack runs, for the tools beside it (infra/local/running.py)."""
    assert stack.settings.tokens.jwt_secret is not None  # the stack always has its key
    return RunningStack(
        pid=os.getpid(),
        dynamodb_url=stack.dynamodb_url,
        lambda_url=stack.lambda_url,
        notification_url=stack.notification_url,
        gateway_url=stack.gateway_url,
        key_id=FixedRing(stack.settings.tokens.jwt_secret).signing().kid,
    )


def chalice_local_command(gateway_port: int, dynamodb_port: int, lambda_port: int) -> str:
    """The command that serves the gateway on `gateway_port` against emulators on these
    ports: those that are not the defaults, in the variables `chalice local` reads them
    from (infra/chalice_local.py), and its `--port`."""
    emulators = {"DYNAMODB_PORT": dynamodb_port, "LAMBDA_PORT": lambda_port}
    moved = [f"{name}={port}" for name, port in emulators.items() if port != DEFAULT_PORTS[name]]
    port = [f"--port {gateway_port}"] if gateway_port != DEFAULT_PORTS["GATEWAY_PORT"] else []
    return " ".join([*moved, ".venv/bin/chalice local --stage local", *port])


def _port(url: str) -> int:
    return int(url.rsplit(":", 1)[1])


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def said(migrated: dict[str, int]) -> str:
    """What the migrations changed: "3 shard keys, 1 stock into warehouses", or that none
    was needed."""
    changed = [f"{count} {name}" for name, count in migrated.items() if count]
    return ", ".join(changed) if changed else "none needed"


def restored(counts: dict[str, int]) -> str:
    """What was restored, by kind: "2 products, 1 order, 0 shipments"."""
    return ", ".join(
        f"{counts.get(table, 0)} {kind}{'' if counts.get(table, 0) == 1 else 's'}"
        for table, kind in CREATED_IN.items()
    )


def _partitions_line(stack: LocalStack) -> list[str]:
    """Where the writes per partition key are counted, when they are."""
    limits = stack.local.partitions
    if limits is None:
        return []
    throttled = (
        f"; a key written over {limits.rate:g} a second is throttled"
        if limits.rate is not None
        else ""
    )
    return [
        f"Partitions:    writes per key counted at {stack.dynamodb_url}"
        f"{PARTITION_WRITES_PATH}{throttled}"
    ]
