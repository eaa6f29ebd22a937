"""The dashboard's figures table (common.dashboard.layout says what it holds), read by
key: its items' attributes are named by what they count, which a model cannot declare,
so it is read with the client's own calls (as common.platform.aws builds it). The dashboard reads
its few items so, and the figures function those a run of changes writes.
"""

import time
from collections.abc import Iterable
from typing import Any

from boto3.dynamodb.types import TypeDeserializer

from common.dashboard import layout
from common.platform import jsonio

TABLE = "DashboardFiguresTable"
# BatchGetItem's own limit of keys a call, and how often keys DynamoDB left unread (its
# throughput, momentarily) are asked again.
MAX_KEYS = 100
MAX_ROUNDS = 5
_plain = TypeDeserializer().deserialize


def plain(item: dict) -> dict:
    """An item as DynamoDB's JSON has it, as Python values (numbers as Decimal)."""
    return {name: _plain(value) for name, value in item.items()}


def read_items(client: Any, table: str, keys: Iterable[str]) -> dict[str, dict]:
    """{key: item} of those of `keys` that exist, read consistently."""
    wanted = list(dict.fromkeys(keys))
    found: dict[str, dict] = {}
    for start in range(0, len(wanted), MAX_KEYS):
        request = {
            table: {
                "Keys": [{layout.KEY: {"S": key}} for key in wanted[start : start + MAX_KEYS]],
                "ConsistentRead": True,
            }
        }
        for attempt in range(MAX_ROUNDS):
            answer = client.batch_get_item(RequestItems=request)
            for item in answer.get("Responses", {}).get(table, []):
                found[item[layout.KEY]["S"]] = plain(item)
            request = answer.get("UnprocessedKeys") or {}
            if not request:
                break
            time.sleep(0.05 * 2**attempt)
        else:
            raise RuntimeError(f"{table}: keys left unread after {MAX_ROUNDS} rounds")
    return found


def list_item(key: str, items: list, held_version: int) -> dict:
    """A list shard's item as written over the one read at `held_version` (0: none): its
    newest items as the API shows them, and the next version."""
    return {
        layout.KEY: {"S": key},
        "items": {"S": jsonio.dumps(items, ascii_only=False)},
        "version": {"N": str(held_version + 1)},
    }
