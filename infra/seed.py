"""`make seed`: the demo data of examples/demo.json, loaded into a running local stack
through its public API, as a client would, and a summary of what is there.

Products across three warehouses (three below their threshold, so in alert), orders in
every state of the lifecycle, shipments of both types. It is safe to run again: what is
there already is looked up first by what names it (a product by its sku, an order by
its customer's email, a shipment by its order) and left as it is, so a second run adds
nothing. The gateway is GATEWAY_URL, else 127.0.0.1 on GATEWAY_PORT (`make run`'s, or
`chalice local --port`'s), with an operator's token for the stack (infra/dev/tokens.py).
Then the demo's users, in the local pool (the emulator on DYNAMODB_PORT): an operator and
two customers whose userIds are those of demo orders, and how to sign in as each.
"""

import json
import os
import sys
from collections import Counter
from pathlib import Path
from urllib.parse import urlencode

import urllib3

from common.identity.callers import CUSTOMER, OPERATOR
from common.platform.env import ConfigError, stop_process
from infra.dev.tokens import local_settings, local_token
from infra.local.running import url_of
from infra.users import Refused as NotMade
from infra.users import existing, local_pool, make_user

DEMO = Path(__file__).resolve().parents[1] / "examples" / "demo.json"
# The moves that take a new order (PENDIENTE) to each state (docs/api.md#the-order-lifecycle).
MOVES = {
    "PENDIENTE": [],
    "APROBADO": ["APROBADO"],
    "EN_ENVIO": ["APROBADO", "EN_ENVIO"],
    "ENTREGADO": ["APROBADO", "EN_ENVIO", "ENTREGADO"],
    "CANCELADO": ["CANCELADO"],
}


class Refused(Exception):
    """The stack answered something the seed cannot go on from."""


class Gateway:
    def __init__(self, url: str, token: str):
        self.url = url
        self._http = urllib3.PoolManager(retries=False, timeout=urllib3.Timeout(total=30))
        self._headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}

    def call(
        self,
        method: str,
        path: str,
        body: dict | None = None,
        query: dict | None = None,
        expect: int = 200,
    ):
        url = f"{self.url}{path}" + (f"?{urlencode(query)}" if query else "")
        answer = self._http.request(
            method, url, headers=self._headers, body=json.dumps(body) if body is not None else None
        )
        if answer.status != expect:
            raise Refused(
                f"{method} {path} answered {answer.status}: {answer.data.decode(errors='replace')}"
            )
        return answer

    def every(self, path: str, **filters) -> list[dict]:
        """Every item of a list, page after page (docs/api.md#lists)."""
        items, query = [], {**filters, "limit": "1000"}
        while True:
            answer = self.call("GET", path, query=query)
            items += json.loads(answer.data)
            token = answer.headers.get("X-Next-Token")
            if not token:
                return items
            query = {**query, "nextToken": token}


def seed(gateway: Gateway, demo: dict) -> dict[str, Counter]:
    """Whatever of `demo` is missing, created; returns how many of each kind were created
    and how many were there already."""
    done: dict[str, Counter] = {"created": Counter(), "found": Counter()}

    products = {p["sku"]: p for p in gateway.every("/api/inventario")}
    for product in demo["products"]:
        if product["sku"] in products:
            done["found"]["products"] += 1
            continue
        created = gateway.call("POST", "/api/inventario", product, expect=201)
        products[product["sku"]] = json.loads(created.data)
        done["created"]["products"] += 1

    orders = {o["userEmail"]: o for o in gateway.every("/api/pedidos")}
    for wanted in demo["orders"]:
        if wanted["userEmail"] in orders:
            done["found"]["orders"] += 1
            continue
        body = {key: value for key, value in wanted.items() if key not in ("producto", "status")}
        body["productoId"] = products[wanted["producto"]]["id"]
        order = json.loads(gateway.call("POST", "/api/pedidos", body, expect=201).data)
        for status in MOVES[wanted["status"]]:
            order = json.loads(
                gateway.call(
                    "PATCH", f"/api/pedidos/{order['id']}/status", query={"status": status}
                ).data
            )
        orders[order["userEmail"]] = order
        done["created"]["orders"] += 1

    for wanted in demo["shipments"]:
        order_id = orders[wanted["pedido"]]["id"]
        if gateway.every("/api/envios", pedidoId=str(order_id)):
            done["found"]["shipments"] += 1
            continue
        body = {key: value for key, value in wanted.items() if key not in ("pedido", "status")}
        shipment = json.loads(
            gateway.call("POST", "/api/envios", {**body, "pedidoId": order_id}, expect=201).data
        )
        if wanted["status"] != shipment["status"]:
            gateway.call(
                "PATCH", f"/api/envios/{shipment['id']}/status", query={"status": wanted["status"]}
            )
        done["created"]["shipments"] += 1
    return done


def summary(gateway: Gateway, done: dict[str, Counter]) -> list[str]:
    """What the seed did, then what the stack holds now."""
    products = gateway.every("/api/inventario")
    alerts = gateway.every("/api/inventario/alertas")
    orders = gateway.every("/api/pedidos")
    shipments = gateway.every("/api/envios")
    kinds = ("products", "orders", "shipments")
    created, found = done["created"], done["found"]

    def counted(items: list[dict], field: str) -> str:
        return ", ".join(
            f"{value} {count}"
            for value, count in sorted(Counter(str(item[field]) for item in items).items())
        )

    return [
        f"Seeded {gateway.url}: created "
        + ", ".join(f"{created[kind]} {kind}" for kind in kinds)
        + "; already there: "
        + ", ".join(f"{found[kind]} {kind}" for kind in kinds)
        + ".",
        f"Products:      {len(products)} in {len({p['bodega'] for p in products})} "
        f"warehouses ({counted(products, 'bodega')}), {len(alerts)} in alert",
        f"Orders:        {len(orders)} ({counted(orders, 'status')})",
        f"Shipments:     {len(shipments)} ({counted(shipments, 'tipoEnvio')}; "
        f"{counted(shipments, 'status')})",
    ]


# Who signs in to the demo (the local pool only): an operator, and the customers of the
# first two demo orders (their userIds), with passwords for a laptop, never for a cloud.
DEMO_USERS = (
    ("ops@example.com", OPERATOR, None, "Demo-Operator-2026"),
    ("ana.torres@example.com", CUSTOMER, 101, "Demo-Customer-2026"),
    ("luis.quispe@example.com", CUSTOMER, 102, "Demo-Customer-2026"),
)


def demo_users(gateway_url: str) -> list[str]:
    """The demo's users in the local stack's pool (made as `make user` makes them), and
    how to sign in as each. One that is there already is left as it is; an email someone
    else took (registering it first, say) is said, never changed."""
    try:
        pool = local_pool()
    except SystemExit as exc:
        return [f"Users:         none made: {str(exc).removeprefix('make user: ')}"]
    lines, created, found = [], 0, 0
    for email, role, user_id, password in DEMO_USERS:
        account = existing(pool, email)
        if account is None:
            try:
                account = make_user(pool, email, role, password, user_id)
                created += 1
            except NotMade as refused:
                lines.append(f"  not made: {str(refused).removeprefix('make user: ')}")
                continue
        elif (account.role, account.user_id) != (role, user_id):
            lines.append(
                f"  not the demo's: {email} is a {account.role}'s account someone made "
                "before the seed; left as it is"
            )
            continue
        else:
            found += 1
        whose = f"  (userId {account.user_id}: their orders)" if account.user_id else ""
        lines.append(f"  {account.role:<9} {account.email:<24} password {password}{whose}")
    return [
        f"Users:         created {created}, already there {found}; sign in at "
        f"{gateway_url}/console (or POST {gateway_url}/api/auth/login) as:",
        *lines,
    ]


def main() -> None:
    try:
        settings = local_settings()  # the stack's key: JWT_SECRET, or LOCAL_DATA_DIR's
        url = os.environ.get("GATEWAY_URL") or url_of("make seed", "GATEWAY_PORT")
    except ConfigError as exc:
        stop_process(exc)
    gateway = Gateway(url.rstrip("/"), local_token(settings))
    try:
        done = seed(gateway, json.loads(DEMO.read_text(encoding="utf-8")))
        print("\n".join(summary(gateway, done)))
        print("\n".join(demo_users(gateway.url)))
    except (Refused, urllib3.exceptions.HTTPError) as exc:
        sys.exit(f"make seed: {exc}. Is the local stack running there (make run)?")


if __name__ == "__main__":
    main()
