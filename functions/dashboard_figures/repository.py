"""The figures function's reads and writes: a stream record's item, as its own service
reads it (with the models and records the layer publishes: common.orders.model,
common.orders.shipment_model, common.orders.records, common.stock.product_model,
common.stock.records), made into a Change; and
the figures table read before a run of changes and written after it, in one transaction
(dashboard_figures.figures.Plan). The only dashboard_figures module that knows PynamoDB
or DynamoDB."""

from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

from botocore.exceptions import ClientError
from pynamodb.models import Model

from common.dashboard import layout
from common.dashboard.table import TABLE, list_item, read_items
from common.http.responses import api_json
from common.orders.model import OrderModel
from common.orders.records import Order, Shipment
from common.orders.return_model import ReturnModel, return_of
from common.orders.shipment_model import ShipmentModel
from common.platform import aws, jsonio
from common.platform.settings import Cloud
from common.stock.product_model import ProductModel, product_of
from common.storage import tables as storage
from dashboard_figures.figures import (
    LISTED,
    Change,
    Contended,
    Counted,
    Key,
    Newest,
    Plan,
    Record,
    list_keys_of,
)
from dashboard_figures.shares import (
    DELIVERED,
    NOTHING,
    ORDER,
    PRODUCT,
    RETURN,
    SHIPMENT,
    Share,
    order_share,
    product_share,
    return_share,
    shipment_share,
)

# An hour's item of shipments due outlives its hour by this much, then DynamoDB deletes it
# (its TTL, `expira`): the dashboard reads the current hour's alone.
DUE_KEPT = timedelta(days=2)


def _product(item: Any) -> tuple[Share, dict | None]:
    return product_share(product_of(item)), None


def _order(item: Any) -> tuple[Share, dict | None]:
    order = storage.to_domain(item, Order)
    return order_share(order), _shown(order)


def _shipment(item: Any) -> tuple[Share, dict | None]:
    shipment = storage.to_domain(item, Shipment)
    changes = storage.entries(item.historial)
    # Its history's last entry is the change that made its status what it is.
    delivered_at = (
        changes[-1].fecha
        if changes and changes[-1].status == DELIVERED == shipment.status
        else None
    )
    return shipment_share(shipment, delivered_at), _shown(shipment)


def _return(item: Any) -> tuple[Share, dict | None]:
    return return_share(return_of(item)), None


def _shown(entity: object) -> dict:
    shown = api_json(entity)
    assert isinstance(shown, dict)  # an order or a shipment: an object
    return shown


# Each table whose changes move figures: the kind of its items, their model, and what an
# item adds to the figures (and how the API shows it).
READ: dict[str, tuple[str, type[Model], Callable[[Any], tuple[Share, dict | None]]]] = {
    "ProductsTable": (PRODUCT, ProductModel, _product),
    "OrdersTable": (ORDER, OrderModel, _order),
    "ShipmentsTable": (SHIPMENT, ShipmentModel, _shipment),
    "ReturnsTable": (RETURN, ReturnModel, _return),
}


def change_of_item(
    logical_id: str, image: dict | None, ident: int, record: Record | None = None
) -> Change:
    """What an item of the table `logical_id` is now (DynamoDB's JSON; None: gone)."""
    kind, model, read = READ[logical_id]
    if image is None:
        return Change(kind, ident, NOTHING, None, record)
    share, shown = read(model.from_raw_data(image))
    return Change(kind, ident, share, shown, record)


class Images:
    """Stream records (DynamoDB's, as Lambda hands them over) read as changes."""

    def __init__(self, cloud: Cloud):
        self._tables = {cloud.table_name(logical_id): logical_id for logical_id in READ}

    def change_of(self, record: dict) -> Change | None:
        """The change a record is, or None for a table whose changes move no figure."""
        arn = record["eventSourceARN"]
        table = arn.split(":table/", 1)[1].split("/", 1)[0]
        if table not in self._tables:
            return None
        stream = record["dynamodb"]
        return change_of_item(
            self._tables[table],
            stream.get("NewImage"),
            int(stream["Keys"]["id"]["N"]),
            Record(arn, int(stream["SequenceNumber"])),
        )


def _number(value: Decimal) -> dict:
    return {"N": format(value, "f")}


def counted_of(item: Mapping[str, Any]) -> Counted:
    """An item's share as the figures table holds it."""
    counts = {name: Decimal(value) for name, value in (item.get("cuenta") or {}).items()}
    record = (
        Record(item["flujo"], int(item["secuencia"])) if item.get("flujo") is not None else None
    )
    return Counted(Share(counts, item.get("vence")), int(item.get("version", 0)), record)


def newest_held(item: Mapping[str, Any]) -> Newest:
    items = jsonio.loads(item["items"], max_depth=None) if item.get("items") else []
    return Newest(tuple(items), int(item.get("version", 0)))


class FiguresStore:
    """The figures table, as the figures function (and the backfill) reads and writes it."""

    def __init__(self, client: Any, table: str):
        self._client, self._table = client, table

    @classmethod
    def from_settings(cls, cloud: Cloud) -> "FiguresStore":
        return cls(aws.dynamodb(cloud), cloud.table_name(TABLE))

    def read(
        self, changes: Sequence[Change], shard: int
    ) -> tuple[dict[Key, Counted], dict[str, Newest], dict]:
        """The changed items' shares, the lists they may touch, and counter item `shard`."""
        shares = {layout.share_key(*change.key): change.key for change in changes}
        lists = list_keys_of(changes)
        counter = layout.counter_key(shard)
        found = read_items(self._client, self._table, [*shares, *lists, counter])
        return (
            {key: counted_of(found[name]) for name, key in shares.items() if name in found},
            {name: newest_held(found[name]) for name in lists if name in found},
            found.get(counter, {}),
        )

    def held(self, keys: Iterable[Key]) -> dict[Key, Counted]:
        """The shares held of these items (those that have one)."""
        names = {layout.share_key(*key): key for key in keys}
        found = read_items(self._client, self._table, names)
        return {names[name]: counted_of(item) for name, item in found.items()}

    def newest(self) -> dict[str, Newest]:
        """Every list shard as held."""
        names = [name for kind in LISTED.values() for name in layout.list_keys(kind)]
        found = read_items(self._client, self._table, names)
        return {name: newest_held(item) for name, item in found.items()}

    def write(self, moved: Plan, shard: int) -> None:
        """The plan, in one transaction; Contended when what it read has changed."""
        actions = [
            *(self._share(key, *held) for key, held in moved.shares.items()),
            *(self._list(key, *held) for key, held in moved.lists.items()),
            *self._dues(moved),
        ]
        counter = self._counter(moved, shard)
        if counter is not None:
            actions.append(counter)
        try:
            self._client.transact_write_items(TransactItems=actions)
        except ClientError as exc:
            if exc.response["Error"]["Code"] in (
                "TransactionCanceledException",
                "TransactionConflictException",
            ):
                raise Contended(str(exc)) from exc
            raise

    def _conditional_put(self, item: dict, version: int) -> dict:
        put: dict[str, Any] = {"TableName": self._table, "Item": item}
        if version:
            put["ConditionExpression"] = "version = :held"
            put["ExpressionAttributeValues"] = {":held": {"N": str(version)}}
        else:
            put["ConditionExpression"] = "attribute_not_exists(#key)"
            put["ExpressionAttributeNames"] = {"#key": layout.KEY}
        return {"Put": put}

    def _share(self, key: Key, held: Counted, new: Counted) -> dict:
        item: dict[str, Any] = {
            layout.KEY: {"S": layout.share_key(*key)},
            "cuenta": {"M": {name: _number(value) for name, value in new.share.counts.items()}},
            "version": {"N": str(held.version + 1)},
        }
        if new.share.due is not None:
            item["vence"] = {"S": new.share.due}
        if new.record is not None:
            item["flujo"] = {"S": new.record.stream}
            item["secuencia"] = {"S": str(new.record.sequence)}
        return self._conditional_put(item, held.version)

    def _list(self, key: str, held: Newest, new: Newest) -> dict:
        return self._conditional_put(list_item(key, list(new.items), held.version), held.version)

    def _counter(self, moved: Plan, shard: int) -> dict | None:
        names: dict[str, str] = {}
        values: dict[str, dict] = {}
        for n, (name, change) in enumerate(sorted(moved.counters.items())):
            names[f"#a{n}"], values[f":a{n}"] = name, _number(change)
        for n, name in enumerate(moved.stale):
            names[f"#r{n}"] = name
        parts = []
        if values:
            parts.append("ADD " + ", ".join(f"#a{n} :a{n}" for n in range(len(values))))
        if moved.stale:
            parts.append("REMOVE " + ", ".join(f"#r{n}" for n in range(len(moved.stale))))
        if not parts:
            return None
        update: dict[str, Any] = {
            "TableName": self._table,
            "Key": {layout.KEY: {"S": layout.counter_key(shard)}},
            "UpdateExpression": " ".join(parts),
            "ExpressionAttributeNames": names,
        }
        if values:
            update["ExpressionAttributeValues"] = values
        return {"Update": update}

    def _dues(self, moved: Plan) -> list[dict]:
        return [
            self._due(key, moved.due_set.get(key, {}), moved.due_removed.get(key, set()))
            for key in sorted(moved.due_set.keys() | moved.due_removed.keys())
        ]

    def _due(self, key: str, added: Mapping[str, str], removed: set[str]) -> dict:
        names: dict[str, str] = {}
        values: dict[str, dict] = {}
        sets = []
        for n, (entry, estimate) in enumerate(sorted(added.items())):
            names[f"#s{n}"], values[f":s{n}"] = entry, {"S": estimate}
            sets.append(f"#s{n} = :s{n}")
        if added:
            values[":expira"] = {"N": str(_expiry(next(iter(added.values()))))}
            sets.append("expira = :expira")
        gone = sorted(removed)
        for n, entry in enumerate(gone):
            names[f"#r{n}"] = entry
        parts = [f"SET {', '.join(sets)}"] if sets else []
        if gone:
            parts.append("REMOVE " + ", ".join(f"#r{n}" for n in range(len(gone))))
        update: dict[str, Any] = {
            "TableName": self._table,
            "Key": {layout.KEY: {"S": key}},
            "UpdateExpression": " ".join(parts),
            "ExpressionAttributeNames": names,
        }
        if values:
            update["ExpressionAttributeValues"] = values
        return {"Update": update}


def _expiry(estimate: str) -> int:
    """When an hour's item may go: DUE_KEPT after the end of its hour (epoch seconds)."""
    hour = datetime.strptime(layout.hour_of(estimate), "%Y-%m-%dT%H").replace(tzinfo=UTC)
    return int((hour + timedelta(hours=1) + DUE_KEPT).timestamp())
