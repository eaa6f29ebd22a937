"""The dashboard's read of its figures table: the few items of its layout
(common.dashboard_layout), in one BatchGetItem, whatever the data (common.dashboard_table,
which the figures function reads with too). The only dashboard module that talks to
DynamoDB."""

from common import aws, jsonio
from common import dashboard_layout as layout
from common.dashboard_table import TABLE, read_items
from common.settings import Settings
from dashboard.rules import Stored


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
