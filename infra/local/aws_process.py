"""AWS's services for the local stack in a process of their own: the emulator
(infra/local/emulator.py) with the template's tables, queues, user pool and KMS keys, and
their data in LOCAL_DATA_DIR.

Every DynamoDB call of every function is answered here, as is every request of the stack
process (its gateways, its Lambda service): in one process they would share one
interpreter lock, and concurrency would add little. Started by the stack as
`python -m infra.local.aws_process <port> <region> <token trigger or ""> [<data dir>]`
(Hooks below), with the stack's
DYNAMODB_PARTITION_* variables (infra/local/settings.py: whether it counts, and
throttles, the writes of each partition key); it prints one JSON line when its data is
in (its URL, and what it restored or why it could not), waits for the stack to say
`streams` on its stdin (the product's `on_restored` hook, its migrations of data
an earlier version saved, runs between the two: what it writes makes no stream record),
and serves until SIGTERM, when it saves the data and stops; or when the stack is gone
(its stdin, a pipe from the stack, ends: a stack killed outright leaves no emulator
behind holding the data).
"""

import json
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from infra import template
from infra.local import LOCAL_AWS_ENV
from infra.local.persistence import DataDir, DataError
from infra.local.settings import partition_limits
from infra.local.sign_in import UserPool

if TYPE_CHECKING:
    from infra.local.partition_writes import PartitionWrites

# Saved before each block of ids is answered (infra/local/persistence.py): the counters'
# table.
WRITE_THROUGH = {"CountersTable"}
# The count of users restored, beside the tables' counts.
USERS = "users"
STREAMS = "streams"
# What the stack runs on the data restored before the streams start: (url, region, user
# pool id, the items restored by table) to what it changed, by name.
OnRestored = Callable[[str, str, str, dict[str, int]], dict[str, int]]


@dataclass(frozen=True)
class Hooks:
    """What the product hands the emulation, which knows none of its code: `on_restored`
    runs on the data restored, at every start of the emulator (the product's migrations);
    `token_trigger` ("module:function") runs on every access token the user pool issues,
    as its pre token generation trigger (infra/local/user_pool.py token_trigger); `pages`
    are served by the local gateway without a token (the docs, the console)."""

    on_restored: OnRestored | None = None
    token_trigger: str | None = None
    # (the gateway's URL, the notification API's) to the gateway's pages beside its routes.
    pages: Callable[[str, str], dict] = lambda gateway, notifications: {}


NO_HOOKS = Hooks()


class AwsProcess:
    """The emulator's process, as the stack sees it."""

    def __init__(self, port: int, region: str, data_dir: Path | None, hooks: Hooks = NO_HOOKS):
        args = [sys.executable, "-m", "infra.local.aws_process", str(port), region]
        args += [hooks.token_trigger or "", *([str(data_dir)] if data_dir else [])]
        self.process = subprocess.Popen(
            args,
            cwd=Path(__file__).resolve().parents[2],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
            text=True,
        )
        assert self.process.stdout is not None  # stdout=PIPE
        line = self.process.stdout.readline()
        try:
            ready = json.loads(line)
        except ValueError:
            self.stop()
            raise OSError(f"the AWS emulator did not start: {line.strip()!r}") from None
        if "error" in ready:
            self.stop()
            raise (DataError if ready.get("kind") == "data" else OSError)(ready["error"])
        self.url: str = ready["url"]
        self.restored: dict[str, int] = ready.get("restored", {})
        pool = ready["userPool"]
        self.user_pool = UserPool(region, self.url, pool["id"], pool["clientId"])
        self.migrated: dict[str, int] = {}
        if hooks.on_restored is not None and any(self.restored.values()):
            try:
                self.migrated = hooks.on_restored(self.url, region, pool["id"], self.restored)
            except Exception:
                self.stop()
                raise
        assert self.process.stdin is not None  # stdin=PIPE
        self.process.stdin.write(STREAMS + "\n")
        self.process.stdin.flush()
        self.process.stdout.readline()  # streaming from now

    def stop(self) -> None:
        """Stops it, its data saved."""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def _say(message: dict) -> None:
    print(json.dumps(message), flush=True)


def _partition_writes() -> "PartitionWrites | None":
    """The count of writes per partition key, when DYNAMODB_PARTITION_* asks for one
    (checked by the stack before it started this process); only then is it loaded."""
    limits = partition_limits()
    if limits is None:
        return None
    from infra.local.partition_writes import PartitionWrites

    return PartitionWrites(limits.rate, limits.burst)


def _stop_requested() -> tuple[threading.Event, threading.Event]:
    """(stopped, streams): stopped set by SIGTERM, or when the stack is gone (its pipe on
    stdin ends); streams when the stack says so. Ctrl-C reaches the whole foreground
    group: the stack stops this one, after its own."""
    stopped, streams = threading.Event(), threading.Event()

    def stop(*_) -> None:
        stopped.set()
        streams.set()  # a stack that stops before it said `streams` is not waited for

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, signal.SIG_IGN)

    def watch() -> None:
        for line in sys.stdin:
            if line.strip() == STREAMS:
                streams.set()
        stop()

    threading.Thread(target=watch, daemon=True, name="stack-watch").start()
    return stopped, streams


def main(argv: list[str]) -> None:
    # moto (and boto3) are this process's alone: the stack, which imports this module for
    # AwsProcess, does not pay their 0.6 s of CPU at each start.
    import boto3

    from infra.local.emulator import emulator
    from infra.local.kms_keys import keep_keys
    from infra.local.user_pool import HASH_IDS, signing_key, token_trigger

    port, region, trigger = int(argv[0]), argv[1], token_trigger(argv[2]) if argv[2] else None
    data = DataDir(Path(argv[3])) if len(argv) > 3 else None
    stopped, streams = _stop_requested()
    try:
        if data is not None:
            data.hold()
        aws = emulator(port, _partition_writes(), signing_key(data), trigger).start()
    except DataError as exc:
        _say({"error": str(exc), "kind": "data"})
        return
    except OSError as exc:
        _say(
            {
                "error": f"DYNAMODB_PORT={port}: cannot listen there ({exc.strerror}); is "
                "another make run or make emulators using it?"
            }
        )
        return
    for key, value in {**LOCAL_AWS_ENV, **HASH_IDS, "AWS_DEFAULT_REGION": region}.items():
        os.environ[key] = value
    template.create_tables(boto3.client("dynamodb", endpoint_url=aws.url))
    template.create_queues(boto3.client("sqs", endpoint_url=aws.url))
    pool_id, client_id = template.create_user_pool(
        boto3.client("cognito-idp", endpoint_url=aws.url)
    )
    restored = {}
    try:
        # The key first: the data restored may hold secrets encrypted with it.
        keep_keys(boto3.client("kms", endpoint_url=aws.url), region, data)
        if data is not None:
            restored = aws.keep_in(data, region, WRITE_THROUGH)
            restored[USERS] = aws.keep_users_in(data, region, pool_id)
    except DataError as exc:
        aws.stop()
        if data is not None:
            data.release()
        _say({"error": str(exc), "kind": "data"})
        return
    _say({"url": aws.url, "restored": restored, "userPool": {"id": pool_id, "clientId": client_id}})
    streams.wait()
    aws.streams_from_now(region)
    _say({"streams": True})
    stopped.wait()
    aws.stop()
    if data is not None:
        data.release()


if __name__ == "__main__":
    main(sys.argv[1:])
