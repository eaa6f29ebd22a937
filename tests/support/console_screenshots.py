"""The console's screenshots in docs/console/, taken in headless Chromium against a local
stack with demo data:

    .venv/bin/python -m tests.support.console_screenshots [OUT_DIR]

(default docs/console/). tests/e2e/test_console_screenshots.py runs it on every `make test`.
"""

import sys
from pathlib import Path

import requests
from playwright.sync_api import expect

from tests.support.browser import DESKTOP, PHONE, chromium
from tests.support.console import Api, Console, customer_token, operator_token
from tests.support.dashboard import until
from tests.support.stack_process import PATIENT_STOCK_CHECK, ROOT, StackProcess

OUT = ROOT / "docs" / "console"
CUSTOMER = 42
PRODUCTS = [  # sku, name, price, stock, threshold, warehouse
    ("CAJ-4030", "Caja de cartón 40x30", 1.2, 840, 200, "Lima — Callao"),
    ("CIN-48", "Cinta de embalaje 48 mm", 3.5, 35, 60, "Lima — Callao"),
    ("PAL-EUR", "Pallet europeo", 18.0, 120, 40, "Arequipa"),
    ("BUR-100", "Rollo de plástico burbuja 100 m", 24.9, 8, 15, "Lima — Ate"),
    ("ETQ-A6", "Etiquetas térmicas A6 (500)", 12.75, 300, 50, "Trujillo"),
    ("GUA-NIT", "Guantes de nitrilo (caja)", 9.9, 64, 20, "Lima — Ate"),
]


def seed(api: Api, customer: Api) -> dict:
    """Demo data; `customer` places the orders of CUSTOMER, so that their history says
    who placed them."""
    products = [
        api.product(
            sku, name=name, price=price, stock=stock, threshold=threshold, warehouse=warehouse
        )
        for sku, name, price, stock, threshold, warehouse in PRODUCTS
    ]
    orders = []
    for number, (user, destination, name, moves) in enumerate(
        [
            (7, "Arequipa", "Ana Pérez", ["APROBADO", "EN_ENVIO"]),
            (CUSTOMER, "Trujillo", "Luis Quispe", ["APROBADO"]),
            (9, "Cusco", "María Huamán", []),
            (CUSTOMER, "Piura", "Luis Quispe", []),
            (11, "Lima", "Jorge Rojas", ["APROBADO", "EN_ENVIO", "ENTREGADO"]),
            (12, "Chiclayo", "Rosa Flores", ["CANCELADO"]),
        ]
    ):
        order = (customer if user == CUSTOMER else api).order(
            products[number % len(products)]["id"],
            user_id=user,
            quantity=number + 1,
            destination=destination,
            name=name,
        )
        for status in moves:
            order = api.ok("PATCH", f"/api/pedidos/{order['id']}/status", params={"status": status})
        orders.append(order)
    for order, kind, carrier, status in [
        (orders[0], "TERRESTRE", "Olva Courier", "EN_RUTA"),
        (orders[1], "EXPRESS", "Shalom", "ASIGNADO"),
        (orders[4], "EXPRESS", "Olva Courier", "ENTREGADO"),
    ]:
        shipment = api.shipment(
            order["id"], kind=kind, carrier=carrier, destination=order["destino"]
        )
        api.ok("PATCH", f"/api/envios/{shipment['id']}/status", params={"status": status})
    # A recount that found fewer rolls than an approved order holds: over-reserved.
    rolls = products[3]
    held = api.order(rolls["id"], user_id=13, quantity=6, destination="Ica", name="Elena Soto")
    api.ok("PATCH", f"/api/pedidos/{held['id']}/status", params={"status": "APROBADO"})
    fields = ("sku", "nombre", "precioUnitario", "umbralMinimo", "bodega", "descripcion")
    api.ok(
        "PUT",
        f"/api/inventario/{rolls['id']}",
        json={**{name: rolls[name] for name in fields}, "stockActual": 5},
    )
    return {"products": products, "orders": orders}


def tracked(api: Api, order: dict) -> str:
    """A shipment of `order` on its way, with the events a carrier sent; its code."""
    shipment = api.shipment(order["id"], kind="EXPRESS", carrier="Olva Courier")
    for estado, fecha, ubicacion in (
        ("ASIGNADO", "2026-12-01T08:05:00-05:00", "Centro de distribución Lima"),
        ("EN_RUTA", "2026-12-01T13:40:00-05:00", "Lima — Panamericana Sur"),
        ("EN_REPARTO", "2026-12-02T08:15:00-05:00", "Arequipa"),
    ):
        api.ok(
            "POST",
            f"/api/envios/{shipment['id']}/eventos",
            json={"estado": estado, "fecha": fecha, "ubicacion": ubicacion},
        )
    return shipment["codigoSeguimiento"]


def my_data(stack: StackProcess, api: Api, products: list[dict]) -> tuple[str, str]:
    """A customer with an account (registered) and orders of theirs, one delivered and
    shipped, one pending; their email and password."""
    email, password = "carmen.vega@example.com", "A-long-Passphrase-2026"
    made = requests.post(
        stack.gateway + "/api/auth/register",
        json={"email": email, "password": password, "nombre": "Carmen Vega"},
        timeout=30,
    )
    assert made.status_code == 201, made.text
    user_id = made.json()["userId"]
    delivered = api.order(
        products[0]["id"],
        user_id=user_id,
        quantity=2,
        destination="Jr. Ucayali 120, Lima",
        name="Carmen Vega",
        email=email,
    )
    for status in ("APROBADO", "EN_ENVIO", "ENTREGADO"):
        api.ok("PATCH", f"/api/pedidos/{delivered['id']}/status", params={"status": status})
    shipment = api.shipment(delivered["id"], destination="Jr. Ucayali 120, Lima")
    api.ok("PATCH", f"/api/envios/{shipment['id']}/status", params={"status": "ENTREGADO"})
    api.order(
        products[4]["id"],
        user_id=user_id,
        quantity=1,
        destination="Jr. Ucayali 120, Lima",
        name="Carmen Vega",
        email=email,
    )
    # Requests that came by mail: a person's file sent to them, another erased (her one
    # order was cancelled).
    api.ok("GET", "/api/usuarios/7/datos/exportar")
    api.ok("POST", "/api/usuarios/12/cancelacion", json={"motivo": "Correo, ticket 4411"})
    return email, password


def take(out: Path = OUT) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    # A stock move that waits on a busy machine is not what these show (make test runs
    # this beside everything else).
    stack = StackProcess(PATIENT_STOCK_CHECK).start()
    shots = []
    try:
        operator = Api(stack.gateway, operator_token())
        data = seed(
            operator, Api(stack.gateway, customer_token(CUSTOMER, "luis.quispe@example.com"))
        )
        # The dashboard's figures follow the writes within seconds: all of them shown.
        until(
            lambda: operator.ok("GET", "/api/dashboard"),
            lambda figures: (figures["pedidos"]["total"], figures["envios"]["total"]) == (7, 3),
            30,
        )
        with chromium() as browser:

            def shoot(console: Console, name: str, full_page: bool = True, rows=True) -> None:
                if rows:
                    expect(console.page.locator("tbody tr").first).to_be_visible()
                path = out / f"{name}.png"
                console.page.screenshot(path=str(path), full_page=full_page)
                shots.append(path)

            desk = Console.open(browser, stack.gateway, DESKTOP)
            path = out / "sign-in.png"
            desk.page.screenshot(path=str(path))
            shots.append(path)
            desk.sign_in(operator_token("ana.torres@example.com"))
            # Operators land on the dashboard: its figures, once its charts are drawn.
            expect(desk.page.locator("#dashboard-newest-orders tr")).to_have_count(5)
            for chart in ("dashboard-sales-chart", "dashboard-shipments-chart"):
                desk.page.wait_for_function(f"() => window.Chart && Chart.getChart('{chart}')")
            shoot(desk, "dashboard", rows=False)
            desk.go("Catalog")
            shoot(desk, "catalog")
            desk.go("Orders")
            shoot(desk, "orders")
            desk.go("Shipments")
            shoot(desk, "shipments")
            # An order's screen, with its history (placed by the customer, approved by
            # an operator), and a product's, with the approved orders holding its units.
            order = data["orders"][1]
            desk.go("Orders")
            desk.row(order["id"]).get_by_role("link", name="Details").click()
            expect(desk.history()).to_have_count(2)
            shoot(desk, "order", rows=False)
            rolls = data["products"][3]
            desk.go("Catalog")
            desk.row(rolls["id"]).get_by_role("link", name="Details").click()
            expect(desk.page.locator("#reservations-count")).not_to_be_empty()
            shoot(desk, "product")
            desk.close()

            # A customer's lists hold only their own once the gateway applies roles;
            # until then the shot would show everyone's orders as theirs.
            token = customer_token(CUSTOMER, "luis.quispe@example.com")
            if {o["userId"] for o in Api(stack.gateway, token).ok("GET", "/api/pedidos")} == {
                CUSTOMER
            }:
                customer = Console.open(browser, stack.gateway, DESKTOP)
                customer.sign_in(token)
                customer.go("My orders")
                shoot(customer, "customer-orders")
                customer.close()
            else:
                print(
                    "customer-orders.png not taken: the gateway lists every order to a "
                    "customer (no roles yet)",
                    file=sys.stderr,
                )

            # A customer's own data (an account of the pool, orders of theirs), and the
            # operators' record of the requests about people's data.
            mine = my_data(stack, Api(stack.gateway, operator_token()), data["products"])
            customer = Console.open(browser, stack.gateway, DESKTOP)
            customer.sign_in_with_password(*mine)
            expect(customer.status).to_contain_text("Signed in as")
            customer.go("Mis datos")
            expect(customer.fact("Email")).to_have_text(mine[0])
            shoot(customer, "my-data")
            customer.close()
            desk = Console.open(browser, stack.gateway, DESKTOP)
            desk.sign_in(operator_token("ana.torres@example.com"))
            desk.go("Data requests")
            shoot(desk, "requests")
            desk.close()

            phone = Console.open(browser, stack.gateway, PHONE)
            phone.sign_in(operator_token("ana.torres@example.com"))
            phone.go("Orders")
            shoot(phone, "phone-orders", full_page=False)
            phone.close()

            # The public tracking page a customer opens from a link, on a phone.
            code = tracked(operator, data["orders"][0])
            public = Console.open(browser, stack.gateway, PHONE)
            public.page.goto(f"{stack.gateway}/console/seguimiento.html?codigo={code}")
            # Its one look-up on a loaded machine (make test runs this beside everything).
            expect(public.page.locator("#events li")).to_have_count(3)
            shoot(public, "phone-tracking", rows=False)
            public.close()
    finally:
        stack.stop()
    return shots


if __name__ == "__main__":
    for shot in take(Path(sys.argv[1]) if len(sys.argv) > 1 else OUT):
        print(shot)
