"""The dashboard's read of its figures table: the few items of its layout
(common.dashboard.layout), in one BatchGetItem, whatever the data (common.dashboard.table,
which the figures function reads with too). The only dashboard module that talks to
DynamoDB."""

from collections.abc import Mapping

from common.dashboard import layout
from common.dashboard.table import TABLE, read_items
from common.platform import aws, jsonio
from common.platform.settings import Cloud
from dashboard.rules import Stored, warehouse_ids

WAREHOUSES = "WarehousesTable"
# The warehouse every stack has: its code never changes (nor does any), so it is not read.
PRINCIPAL = {1: "PRINCIPAL"}


def newest_of(item: dict | None) -> list[dict]:
    """A list item's orders or shipments, as the API shows them."""
    if not item or "items" not in item:
        return []
    return list(jsonio.loads(item["items"], max_depth=None))


class FiguresReader:
    """The figures table, as the dashboard reads it."""

    def __init__(self, cloud: Cloud):
        self._client = aws.dynamodb(cloud)
        self._table = cloud.table_name(TABLE)
        self._warehouses = cloud.table_name(WAREHOUSES)

    def read(self, hour: str) -> Stored:
        """The counters, the items of the shipments due in `hour`, the newest lists."""
        counters, due = layout.counter_keys(), layout.due_keys(hour)
        lists = {kind: layout.list_keys(kind) for kind in (layout.ORDERS, layout.SHIPMENTS)}
        found = read_items(
            self._client, self._table, [*counters, *due, *(k for ks in lists.values() for k in ks)]
        )
        counted: list[Mapping[str, object]] = [found[key] for key in counters if key in found]
        return Stored(
            counters=counted,
            due_now=[found[key] for key in due if key in found],
            newest={
                kind: [newest_of(found.get(key)) for key in keys] for kind, keys in lists.items()
            },
            codes=self.codes(warehouse_ids(counted)),
        )

    def codes(self, idents: list[int]) -> dict[int, str]:
        """The code of each of these warehouses that exists (one BatchGetItem of a handful;
        none when only PRINCIPAL holds units)."""
        codes: dict[int, str] = {
            ident: code for ident, code in PRINCIPAL.items() if ident in idents
        }
        others = [ident for ident in idents if ident not in PRINCIPAL]
        for start in range(0, len(others), 100):
            keys = [{"id": {"N": str(ident)}} for ident in others[start : start + 100]]
            request = {self._warehouses: {"Keys": keys, "ProjectionExpression": "id, codigo"}}
            while request:
                answer = self._client.batch_get_item(RequestItems=request)
                for item in answer.get("Responses", {}).get(self._warehouses, []):
                    codes[int(item["id"]["N"])] = item["codigo"]["S"]
                request = answer.get("UnprocessedKeys") or {}
        return codes
