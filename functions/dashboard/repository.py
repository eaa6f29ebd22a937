"""The dashboard's read of its figures table: the few items of dashboard.layout, in one
BatchGetItem, whatever the data. The only dashboard module that talks to DynamoDB (the
items' attributes are named by what they count, which a model cannot declare: the
client's own calls, as common.aws builds it)."""

import time
from collections.abc import Iterable

from boto3.dynamodb.types import TypeDeserializer

from common import aws, jsonio
from common.settings import Settings
from dashboard import layout
from dashboard.rules import Stored

TABLE = "DashboardFiguresTable"
# BatchGetItem's own limit of keys a call, and how often keys DynamoDB left unread (its
# throughput, momentarily) are asked again.
MAX_KEYS = 100
MAX_ROUNDS = 5
_plain = TypeDeserializer().deserialize


def plain(item: dict) -> dict:
    """An item as DynamoDB's JSON has it, as Python values (numbers as Decimal)."""
    return {name: _plain(value) for name, value in item.items()}


def read_items(client, table: str, keys: Iterable[str]) -> dict[str, dict]:
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


def newest_of(item: dict | None) -> list[dict]:
    """A list item's orders or shipments, as the API shows them."""
    if not item or "items" not in item:
        return []
    return list(jsonio.loads(item["items"], max_depth=None))


class FiguresReader:
    """The figures table, as the dashboard reads it."""

    def __init__(self, settings: Settings):
        self._client = aws.dynamodb(settings)
        self._table = settings.table_name(TABLE)

    def read(self, hour: str) -> Stored:
        """The counters, the items of the shipments due in `hour`, the newest lists."""
        counters, due = layout.counter_keys(), layout.due_keys(hour)
        lists = {kind: layout.list_keys(kind) for kind in (layout.ORDERS, layout.SHIPMENTS)}
        found = read_items(
            self._client, self._table, [*counters, *due, *(k for ks in lists.values() for k in ks)]
        )
        return Stored(
            counters=[found[key] for key in counters if key in found],
            due_now=[found[key] for key in due if key in found],
            newest={
                kind: [newest_of(found.get(key)) for key in keys] for kind, keys in lists.items()
            },
        )
