"""The dashboard (docs/api.md#dashboard) against what the lists show: each figure worked
out by a client from GET /api/inventario, /api/pedidos, /api/envios (and the delivered
shipments' histories), to hold the answer to; and, for in-process tests, the tables'
streams handed to the figures function as Lambda's event source mappings would."""

import json
import time
from collections.abc import Callable
from datetime import date, datetime, timedelta
from decimal import Decimal

import boto3

from tests.support.recorded_aws import lambda_context

REGION = "us-east-1"
STREAMED = ("ProductsTable", "OrdersTable", "ShipmentsTable", "ReturnsTable")
CONTEXT = lambda_context("DashboardFiguresFunction")


def decimal_json(text: str | bytes):
    """JSON with its fractions as Decimal: sums compared exactly."""
    return json.loads(text, parse_float=Decimal)


def figures(answer: dict) -> dict:
    """What the lists can tell of a dashboard: all but when it was made and the services."""
    return {key: value for key, value in answer.items() if key not in ("servicios", "generadoEn")}


def by_warehouse(products: list[dict], rows: dict[int, list[dict]]) -> list[dict]:
    """Each warehouse's units and their value, from each product's rows (GET
    /api/inventario/{id}/existencias), those holding units, in ascending bodegaId."""
    found: dict[int, dict] = {}
    for p in products:
        for row in rows.get(p["id"], []):
            entry = found.setdefault(
                row["bodegaId"],
                {
                    "bodegaId": row["bodegaId"],
                    "codigo": row["codigo"],
                    "unidades": 0,
                    "valor": Decimal(0),
                },
            )
            entry["unidades"] += row["stockActual"]
            entry["valor"] += Decimal(p["precioUnitario"]) * row["stockActual"]
    return [found[b] for b in sorted(found) if found[b]["unidades"]]


def expected(
    products: list[dict],
    orders: list[dict],
    shipments: list[dict],
    delivered_at: dict[int, str],
    now: datetime,
    rows: dict[int, list[dict]] | None = None,
    returns: list[dict] | None = None,
) -> dict:
    """The figures as the lists make them at `now` (UTC); `delivered_at`: when each
    ENTREGADO shipment last became so (its history's last entry); `rows`: each product's
    stock per warehouse; `returns`: every return."""
    moment = now.isoformat(timespec="microseconds")
    delivered = [s for s in shipments if s["status"] == "ENTREGADO"]
    on_time = [s for s in delivered if delivered_at.get(s["id"], "") <= s["fechaEstimadaEntrega"]]
    warehouses = by_warehouse(products, rows or {})
    return {
        "productos": {
            "total": len(products),
            "enAlerta": sum(1 for p in products if p["stockActual"] < p["umbralMinimo"]),
            "valorStock": sum(
                (Decimal(p["precioUnitario"]) * p["stockActual"] for p in products), Decimal(0)
            ),
            "bodegas": warehouses,
        },
        "bodegas": warehouses,
        "pedidos": {
            "total": len(orders),
            "porEstado": _by_status(
                orders, ("PENDIENTE", "APROBADO", "EN_ENVIO", "ENTREGADO", "CANCELADO")
            ),
            "ultimos": sorted(orders, key=lambda o: o["id"], reverse=True)[:5],
        },
        "envios": {
            "total": len(shipments),
            "porEstado": _by_status(shipments, ("CREADO", "ASIGNADO", "EN_RUTA", "ENTREGADO")),
            "atrasados": sum(
                1
                for s in shipments
                if s["status"] != "ENTREGADO" and s["fechaEstimadaEntrega"] < moment
            ),
            "entregadosATiempo": len(on_time) / len(delivered) if delivered else None,
            "ultimos": sorted(shipments, key=lambda s: s["id"], reverse=True)[:3],
        },
        "devoluciones": {
            "abiertas": sum(r["estado"] in ("SOLICITADA", "APROBADA") for r in returns or [])
        },
        "ventasPorDia": _days(orders, now.date()),
    }


def _by_status(items: list[dict], statuses: tuple[str, ...]) -> dict:
    return {status: sum(1 for item in items if item["status"] == status) for status in statuses}


def _days(orders: list[dict], today: date) -> list[dict]:
    days = [(today - timedelta(days=back)).isoformat() for back in range(13, -1, -1)]
    return [
        {
            "fecha": day,
            "pedidos": sum(1 for o in orders if o["creadoEn"][:10] == day),
            "total": sum(
                (
                    Decimal(o["total"])
                    for o in orders
                    if o["creadoEn"][:10] == day and o["status"] != "CANCELADO"
                ),
                Decimal(0),
            ),
        }
        for day in days
    ]


def _normalized(value):
    if isinstance(value, dict):
        return {key: _normalized(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_normalized(item) for item in value]
    if isinstance(value, Decimal | int) and not isinstance(value, bool):
        return Decimal(value).normalize() if value else Decimal(0)
    return value


def comparable(value):
    """`value` with every number a normalised Decimal, so that 20.00, 20 and 20.0 agree."""
    return _normalized(value)


def until(read: Callable[[], object], done: Callable[[object], bool], seconds: float):
    """Read until `done` holds of what was read or `seconds` have gone by: the last read."""
    deadline = time.monotonic() + seconds
    while True:
        got = read()
        if done(got) or time.monotonic() > deadline:
            return got
        time.sleep(0.2)


class Streams:
    """The three tables' streams of an emulator, from their start (TRIM_HORIZON), handed
    to a handler as the figures function's mappings hand them (infra/local/event_sources)."""

    def __init__(self, url: str):
        self._dynamodb = boto3.client("dynamodb", endpoint_url=url, region_name=REGION)
        self._streams = boto3.client("dynamodbstreams", endpoint_url=url, region_name=REGION)
        self._iterators: dict[str, tuple[str, str]] = {}
        for table in STREAMED:
            arn = self._dynamodb.describe_table(TableName=table)["Table"]["LatestStreamArn"]
            (shard,) = self._streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"]
            iterator = self._streams.get_shard_iterator(
                StreamArn=arn, ShardId=shard["ShardId"], ShardIteratorType="TRIM_HORIZON"
            )["ShardIterator"]
            self._iterators[table] = (arn, iterator)
        self.events: list[dict] = []  # every event handed over, to hand over again

    def read(self) -> list[dict]:
        """The events of the records made since the last read, one per table with any."""
        events = []
        for table, (arn, iterator) in self._iterators.items():
            answer = self._streams.get_records(ShardIterator=iterator)
            self._iterators[table] = (arn, answer["NextShardIterator"])
            records = [_as_lambda(record, arn) for record in answer["Records"]]
            if records:
                events.append({"Records": records})
        return events

    def pump(self, handler) -> int:
        """Every record made so far handed to `handler`; how many."""
        events = self.read()
        for event in events:
            handler(event, CONTEXT)
        self.events += events
        return sum(len(event["Records"]) for event in events)


def _as_lambda(record: dict, arn: str) -> dict:
    stream = dict(record["dynamodb"])
    made = stream.get("ApproximateCreationDateTime")
    if isinstance(made, datetime):
        stream["ApproximateCreationDateTime"] = made.timestamp()
    return {**record, "eventSourceARN": arn, "dynamodb": stream}


def walked(get: Callable, path: str) -> list[dict]:
    """A whole list, page after page (a list without `limit` may end early with a token:
    docs/api.md#lists). `get(path, params)` answers a response."""
    items: list[dict] = []
    params: dict = {"limit": 1000}
    while True:
        response = get(path, params)
        assert response.status_code == 200, response.text
        items += decimal_json(response.text)
        token = response.headers.get("X-Next-Token")
        if token is None:
            return items
        params = {"limit": 1000, "nextToken": token}


def over_http(get: Callable) -> tuple[dict, dict]:
    """The dashboard's figures and, read right after, those the lists make at the instant
    it was made (`get(path, params)` on the gateway, as an operator)."""
    answer = get("/api/dashboard", None)
    assert answer.status_code == 200, answer.text
    shown = decimal_json(answer.text)
    products, orders, shipments, returns = (
        walked(get, path)
        for path in ("/api/inventario", "/api/pedidos", "/api/envios", "/api/devoluciones")
    )
    delivered_at = {
        s["id"]: decimal_json(get(f"/api/envios/{s['id']}/historial", None).text)[-1]["fecha"]
        for s in shipments
        if s["status"] == "ENTREGADO"
    }
    rows = {
        p["id"]: decimal_json(get(f"/api/inventario/{p['id']}/existencias", None).text)
        for p in products
    }
    now = datetime.fromisoformat(shown["generadoEn"])
    return shown, expected(products, orders, shipments, delivered_at, now, rows, returns)


# How long a test waits for the dashboard to agree with the lists after a write. The
# promise is 5 s from the write's answer (docs/api.md#dashboard), which a loaded machine
# three times slower stretches (the streams' pollers and the figures function share its
# cores with the tests): the tests wait for the agreement, and `make bench-dashboard`
# measures how soon it comes.
AGREES_WITHIN_SECONDS = 60


def settled(get: Callable, seconds: float = AGREES_WITHIN_SECONDS) -> tuple[dict, dict, float]:
    """Read the dashboard and the lists until they agree, at most `seconds`: the last
    answer, what the lists made of it, and how long it took."""
    started = time.monotonic()
    while True:
        shown, wanted = over_http(get)
        if comparable(figures(shown)) == comparable(wanted):
            return shown, wanted, time.monotonic() - started
        if time.monotonic() - started > seconds:
            return shown, wanted, time.monotonic() - started
        time.sleep(0.2)
