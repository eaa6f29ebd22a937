"""The copies of a person's data the erasure finds beyond their orders, shipments
(common.personal_data.repository) and webhook deliveries (common.webhooks.repository):
the dashboard's newest lists. The only erasure module that knows DynamoDB."""

from typing import Any

from botocore.exceptions import ClientError

from common.dashboard import layout, table
from common.platform import aws, jsonio, personal
from common.platform.settings import Cloud


class DashboardLists:
    """The dashboard's newest orders and shipments (DashboardFiguresTable, the figures
    function's: common.dashboard.layout), as they show the person: stripped here, not
    left to the stream's records of the stripped items, which a failing batch may never
    apply. Each list item is written on the condition that its version is still the one
    read, as the figures function writes it, so neither loses the other's change."""

    ROUNDS = 5  # reads and writes again when the figures function wrote a list meanwhile

    def __init__(self, cloud: Cloud, client: Any = None):
        self._client = client or aws.dynamodb(cloud)
        self._table = cloud.table_name(table.TABLE)
        self._shipments = cloud.table_name("ShipmentsTable")

    def strip(self, user_id: int) -> None:
        for _ in range(self.ROUNDS):
            try:
                self._strip_once(user_id)
                return
            except ClientError as exc:
                if exc.response.get("Error", {}).get("Code") != "ConditionalCheckFailedException":
                    raise
        raise RuntimeError("the dashboard's lists kept changing: the erasure tries again")

    def _strip_once(self, user_id: int) -> None:
        keys = {key: kind for kind in KINDS for key in layout.list_keys(kind)}
        held = table.read_items(self._client, self._table, keys)
        lists = {key: jsonio.loads(item["items"], max_depth=None) for key, item in held.items()}
        # An order shows its userId; a shipment is its order's person's, as its table says.
        owners = self._shipment_owners(
            [e["id"] for key, items in lists.items() if keys[key] == SHIPMENTS for e in items]
        )
        for key, items in lists.items():
            kind = keys[key]
            stripped = [
                KINDS[kind].stripped_json(entry)
                if (entry.get("userId") if kind == ORDERS else owners.get(entry["id"])) == user_id
                else entry
                for entry in items
            ]
            if stripped != items:
                self._put(key, stripped, int(held[key]["version"]))

    def _shipment_owners(self, idents: list[int]) -> dict[int, int | None]:
        if not idents:
            return {}
        answer = self._client.batch_get_item(
            RequestItems={
                self._shipments: {
                    "Keys": [{"id": {"N": str(ident)}} for ident in set(idents)],
                    "ProjectionExpression": "id, userId",
                }
            }
        )
        return {
            int(item["id"]["N"]): int(item["userId"]["N"]) if "userId" in item else None
            for item in answer.get("Responses", {}).get(self._shipments, [])
        }

    def _put(self, key: str, items: list, version: int) -> None:
        self._client.put_item(
            TableName=self._table,
            Item=table.list_item(key, items, version),
            ConditionExpression="version = :held",
            ExpressionAttributeValues={":held": {"N": str(version)}},
        )


ORDERS, SHIPMENTS = layout.ORDERS, layout.SHIPMENTS
KINDS = {ORDERS: personal.ORDER, SHIPMENTS: personal.SHIPMENT}
