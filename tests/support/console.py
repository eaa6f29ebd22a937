"""Driving the console (console/, docs/console.md) in a real Chromium against a running
local stack: its users' tokens, data made through the API, and what a person sees."""

import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

import requests
from playwright.sync_api import Browser, Page, expect

from tests.support.browser import DESKTOP
from tests.support.tokens import make_token

HOUR = 3600


def operator_token(sub: str = "ops@example.com") -> str:
    return make_token(sub=sub, exp=int(time.time()) + HOUR)


def customer_token(user_id: int, sub: str | None = None) -> str:
    """A customer's token as the roles contract describes it: role and userId claims."""
    return make_token(
        sub=sub or f"customer{user_id}@example.com",
        role="customer",
        userId=user_id,
        exp=int(time.time()) + HOUR,
    )


class Api:
    """The gateway over HTTP with one token: to make data and to check what the console did."""

    def __init__(self, gateway: str, token: str):
        self.gateway, self.token = gateway, token

    def call(self, method: str, path: str, **kwargs) -> requests.Response:
        return requests.request(
            method,
            self.gateway + path,
            timeout=30,
            headers={"Authorization": f"Bearer {self.token}"},
            **kwargs,
        )

    def ok(self, method: str, path: str, **kwargs):
        response = self.call(method, path, **kwargs)
        assert response.status_code in (200, 201), (response.status_code, response.text)
        return response.json()

    def product(
        self,
        sku: str,
        stock: int = 100,
        threshold: int = 5,
        price: float = 10.0,
        name: str | None = None,
        warehouse: str | None = "Bodega Lima",
    ) -> dict:
        return self.ok(
            "POST",
            "/api/inventario",
            json={
                "sku": sku,
                "nombre": name or f"Product {sku}",
                "precioUnitario": price,
                "stockActual": stock,
                "umbralMinimo": threshold,
                "bodega": warehouse,
            },
        )

    def order(
        self,
        product_id: int,
        user_id: int = 7,
        quantity: int = 1,
        destination: str = "Lima",
        name: str = "Ana Pérez",
        email: str | None = None,
    ) -> dict:
        return self.ok(
            "POST",
            "/api/pedidos",
            json={
                "userId": user_id,
                "userEmail": email or f"customer{user_id}@example.com",
                "clienteNombre": name,
                "total": 10 * quantity,
                "tipoPedido": "NACIONAL",
                "destino": destination,
                "productoId": product_id,
                "cantidad": quantity,
            },
        )

    def shipment(
        self,
        order_id: int,
        kind: str = "TERRESTRE",
        carrier: str = "Olva",
        destination: str = "Lima",
    ) -> dict:
        return self.ok(
            "POST",
            "/api/envios",
            json={
                "pedidoId": order_id,
                "tipoEnvio": kind,
                "transportista": carrier,
                "destino": destination,
            },
        )


@dataclass
class Console:
    """One browser context on the console: every request it makes and every error the
    page reports are recorded."""

    page: Page
    gateway: str
    requests: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    @classmethod
    def open(
        cls, browser: Browser, gateway: str, viewport: dict = DESKTOP, timezone: str | None = None
    ) -> "Console":
        """`timezone`: where the browser is (an IANA name); the machine's when None."""
        options = {"timezone_id": timezone} if timezone else {}
        context = browser.new_context(viewport=viewport, **options)
        page = context.new_page()
        console = cls(page, gateway)
        context.on("request", lambda request: console.requests.append(request.url))
        page.on("pageerror", lambda error: console.errors.append(f"pageerror: {error}"))
        # An API's refusal is logged by Chromium as a failed resource: not an error of
        # the page's. Anything else logged as an error (a CSP violation, say) is.
        page.on(
            "console",
            lambda message: (
                console.errors.append(message.text)
                if message.type == "error"
                and not message.text.startswith("Failed to load resource")
                else None
            ),
        )
        page.on("dialog", lambda dialog: dialog.accept())
        page.goto(gateway + "/console")
        return console

    def close(self) -> None:
        self.page.context.close()

    def sign_in(self, token: str) -> None:
        self.page.get_by_label("Bearer token").fill(token)
        self.page.get_by_role("button", name="Sign in with the token").click()
        expect(self.status).to_contain_text("Signed in as")

    def sign_in_with_password(self, email: str, password: str) -> None:
        form = self.page.get_by_role("form", name="Sign in with your email")
        form.get_by_label("Email").fill(email)
        form.get_by_label("Password").fill(password)
        form.get_by_role("button", name="Sign in", exact=True).click()

    @property
    def status(self):
        return self.page.locator("#status")

    def go(self, section: str) -> None:
        self.page.get_by_role("navigation", name="Sections").get_by_role(
            "link", name=section
        ).click()
        expect(self.page.get_by_role("heading", level=2)).to_have_text(section)

    def row(self, item_id: int):
        return self.page.locator(f"tbody tr[data-id='{item_id}']")

    def reveal(self, item_id: int):
        """The row of an item, loading more pages until it is there."""
        more = self.page.get_by_role("button", name=re.compile("^Load more"))
        row = self.row(item_id)
        expect(self.page.locator(".count")).not_to_be_empty()
        while not row.count() and more.is_visible():
            loaded = self.page.locator("tbody tr").count()
            more.click()
            expect(self.page.locator("tbody tr")).not_to_have_count(loaded)
        return row

    def cell(self, item_id: int, column: str):
        """A row's cell under `column` (its data-label, the column's heading)."""
        return self.row(item_id).locator(f"td[data-label='{column}']")

    def fact(self, term: str):
        """The value of an item's field on its own screen (its description list)."""
        return (
            self.page.locator("dl.facts > div")
            .filter(has=self.page.locator("dt", has_text=re.compile(f"^{re.escape(term)}$")))
            .locator("dd")
        )

    def history(self):
        """The entries of the screen's history, oldest first."""
        return self.page.get_by_role("list", name="History").get_by_role("listitem")

    def buttons(self, item_id: int) -> list[str]:
        """The visible names of a row's buttons and links, in order."""
        return self.row(item_id).locator("button, a").all_inner_texts()

    def outside_requests(self) -> list[str]:
        origin = urlsplit(self.gateway)[:2]
        return [url for url in self.requests if urlsplit(url)[:2] != origin]


AUDIT = (Path(__file__).with_name("console_audit.js")).read_text(encoding="utf-8")


def audit(page: Page) -> list[str]:
    """Every text below WCAG AA contrast, and every control without a name."""
    return page.evaluate(AUDIT)


def focus_ring(page: Page) -> str:
    """The outline drawn around the element that has the keyboard's focus."""
    return page.evaluate("""() => {
      const style = getComputedStyle(document.activeElement);
      return `${style.outlineStyle} ${style.outlineWidth}`;
    }""")
