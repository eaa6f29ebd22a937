"""The webhooks' plain rules: targets, signatures (held to Standard Webhooks' own test
vector), the events a change makes, the retry schedule, the newest-first places."""

import base64
import hashlib
import hmac
import socket
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timedelta
from decimal import Decimal

import pytest

from common.platform import jsonio
from common.platform.env import ConfigError
from common.platform.errors import TooManyRequests
from common.platform.settings import Webhooks
from common.webhooks import targets
from common.webhooks.messages import DeliveryMessage, decoded, encoded
from inventory.rules import Product
from orders.rules import Order
from shipping.rules import Shipment
from webhook_delivery import signatures
from webhook_delivery.rules import Next, decide
from webhook_events.changes import ORDER, PRODUCT, SHIPMENT, Change, events_of
from webhooks import rules

NOW = datetime(2026, 5, 1, 12, 0, 0)

# -- targets ---------------------------------------------------------------------------


def resolving_to(*addresses: str):
    return lambda host, port, timeout: list(addresses)


@pytest.mark.parametrize(
    "address, local, allowed",
    [
        ("93.184.216.34", False, True),
        ("2606:2800:220:1:248:1893:25c8:1946", False, True),
        ("127.0.0.1", False, False),
        ("127.0.0.1", True, True),
        ("::1", True, True),
        ("::ffff:127.0.0.1", False, False),
        ("10.1.2.3", True, False),
        ("172.16.0.1", False, False),
        ("192.168.1.1", True, False),
        ("169.254.169.254", True, False),
        ("fe80::1", True, False),
        ("fc00::1", False, False),
        ("100.64.0.1", False, False),
        ("0.0.0.0", True, False),
        ("224.0.0.1", False, False),
        ("::ffff:10.0.0.1", False, False),
        # Every IPv6 form that reaches an IPv4 address is judged by that address.
        ("::ffff:169.254.169.254", True, False),  # IPv4-mapped
        ("::ffff:0:a00:1", False, False),  # IPv4-translated (SIIT)
        ("64:ff9b::a00:1", False, False),  # NAT64 of 10.0.0.1
        ("64:ff9b::a9fe:a9fe", True, False),  # NAT64 of the metadata service
        ("64:ff9b::7f00:1", False, False),  # NAT64 of loopback
        ("64:ff9b::7f00:1", True, False),  # locally too: loopback is allowed as itself
        ("::ffff:127.0.0.1", True, False),
        ("64:ff9b::5db8:d822", False, True),  # NAT64 of a public address
        ("64:ff9b:1::a00:1", False, False),  # NAT64's local-use prefix
        ("2002:a00:1::1", False, False),  # 6to4 of 10.0.0.1
        ("2002:a9fe:a9fe::", True, False),  # 6to4 of the metadata service
        ("2002:7f00:1::1", False, False),  # 6to4 of loopback
        ("2002:5db8:d822::1", False, True),  # 6to4 of a public address
        ("::a00:1", False, False),  # IPv4-compatible (deprecated)
        ("::a9fe:a9fe", True, False),
        ("::5db8:d822", False, False),  # deprecated whatever it embeds
        ("2001:0:4136:e378:8000:63bf:3fff:fdd2", False, False),  # Teredo
        ("fec0::1", False, False),  # site-local
        ("fd00:ec2::254", True, False),  # AWS's metadata service over IPv6
        ("168.63.129.16", False, False),  # Azure's platform address (public space)
        ("100.100.100.200", False, False),  # Alibaba's metadata service
        ("192.0.0.192", False, False),  # Oracle's
    ],
)
def test_only_public_addresses_are_targets_and_loopback_locally(address, local, allowed):
    import ipaddress

    assert targets.allowed(ipaddress.ip_address(address), local) is allowed


def test_a_host_is_judged_by_every_address_it_resolves_to():
    target = targets.parse("https://hooks.example.com/in?x=1", local=False)
    assert target == targets.Target("https", "hooks.example.com", 443, "/in?x=1")
    assert targets.check(target, False, resolving_to("93.184.216.34")) == "93.184.216.34"
    with pytest.raises(targets.Refused, match="private"):
        targets.check(target, False, resolving_to("93.184.216.34", "10.0.0.1"))

    def fails(host, port, timeout):
        raise OSError("no such host")

    with pytest.raises(targets.Refused, match="does not resolve"):
        targets.check(target, False, fails)


@pytest.mark.parametrize(
    "url, local, why",
    [
        ("http://hooks.example.com/", False, "https"),
        ("ftp://hooks.example.com/", True, "https"),
        ("https:///path", False, "host"),
        ("https://u:p@hooks.example.com/", False, "credentials"),
        ("https://hooks.example.com/#frag", False, "fragment"),
        ("https://hooks.example.com:99999/", False, "valid URL"),
    ],
)
def test_a_url_that_is_not_a_target_says_why(url, local, why):
    with pytest.raises(targets.Refused, match=why):
        targets.parse(url, local)


@pytest.mark.parametrize("port", [None, 0, 1, 22, 80, 443, 8080, 65535])
@pytest.mark.parametrize(
    "host", ["[64:ff9b::a9fe:a9fe]", "[2002:a00:1::]", "[fec0::1]", "10.0.0.1"]
)
def test_a_private_address_is_refused_on_any_port(host, port):
    url = f"https://{host}" + (f":{port}" if port is not None else "") + "/hook"
    with pytest.raises(targets.Refused):
        targets.checked(url, local=False)


def test_port_0_is_not_a_port():
    with pytest.raises(targets.Refused, match="port"):
        targets.parse("https://hooks.example.com:0/", local=False)


def test_locally_http_on_any_port_is_a_target():
    assert targets.parse("http://127.0.0.1:8123", local=True) == targets.Target(
        "http", "127.0.0.1", 8123, "/"
    )


# -- signatures ------------------------------------------------------------------------


def test_signatures_are_standard_webhooks_own_test_vector():
    # From the Standard Webhooks specification's reference libraries.
    secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
    body = b'{"test": 2432232314}'
    signed = signatures.signature(secret, "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, body)
    assert signed == "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="


def test_during_a_rotation_both_secrets_sign_and_either_verifies():
    old, new = rules.new_secret(), rules.new_secret()
    body = b'{"type":"pedido.creado"}'
    headers = signatures.headers([new, old], "evt_1", 1700000000, body)
    assert headers["webhook-id"] == "evt_1" and headers["webhook-timestamp"] == "1700000000"
    sent = headers["webhook-signature"].split(" ")
    for secret in (old, new):
        key = base64.b64decode(secret.removeprefix("whsec_"))
        digest = hmac.new(key, b"evt_1.1700000000." + body, hashlib.sha256).digest()
        assert "v1," + base64.b64encode(digest).decode() in sent


def test_a_rotated_secret_signs_for_24_hours_only():
    endpoint = rules.new_endpoint(
        rules.NewEndpoint(url="https://x.example", eventos=("pedido.creado",)),
        1,
        NOW,
        rules.new_secret(),
    )
    rotated = rules.rotated(endpoint, rules.new_secret(), NOW)
    assert rotated.signing_secrets(NOW) == [rotated.secreto, endpoint.secreto]
    assert rotated.signing_secrets(NOW + timedelta(hours=23, minutes=59)) == [
        rotated.secreto,
        endpoint.secreto,
    ]
    assert rotated.signing_secrets(NOW + timedelta(hours=24)) == [rotated.secreto]
    assert endpoint.signing_secrets(NOW) == [endpoint.secreto]


def test_every_secret_a_rotation_replaced_in_the_last_24_hours_still_signs():
    first = rules.new_endpoint(
        rules.NewEndpoint(url="https://x.example", eventos=("pedido.creado",)),
        1,
        NOW,
        rules.new_secret(),
    )
    hour = timedelta(hours=1)
    second = rules.rotated(first, rules.new_secret(), NOW + hour)
    third = rules.rotated(second, rules.new_secret(), NOW + 2 * hour)
    issued = [third.secreto, second.secreto, first.secreto]
    assert third.signing_secrets(NOW + 2 * hour) == issued
    assert third.signing_secrets(NOW + 25 * hour - timedelta(seconds=1)) == issued
    assert third.signing_secrets(NOW + 25 * hour) == issued[:2]
    assert third.signing_secrets(NOW + 26 * hour) == issued[:1]


def test_rotations_are_refused_once_ten_secrets_would_sign():
    endpoint = rules.new_endpoint(
        rules.NewEndpoint(url="https://x.example", eventos=("pedido.creado",)),
        1,
        NOW,
        rules.new_secret(),
    )
    for minutes in range(rules.MAX_SIGNING_SECRETS - 1):
        endpoint = rules.rotated(endpoint, rules.new_secret(), NOW + timedelta(minutes=minutes))
    assert len(endpoint.signing_secrets(NOW + timedelta(hours=1))) == rules.MAX_SIGNING_SECRETS
    with pytest.raises(TooManyRequests) as refused:
        rules.rotated(endpoint, rules.new_secret(), NOW + timedelta(hours=1))
    assert refused.value.code == "TOO_MANY_ROTATIONS"
    # until the first replaced secret stops signing: 24 h after its rotation
    assert refused.value.retry_after_seconds == 23 * 3600
    later = NOW + timedelta(hours=24)
    assert len(rules.rotated(endpoint, rules.new_secret(), later).signing_secrets(later)) == 10


# -- the events a change makes -----------------------------------------------------------


def order(status: str) -> Order:
    return Order(
        id=7,
        user_id=3,
        user_email="ana@example.com",
        cliente_nombre="Ana",
        total=Decimal("19.99"),
        tipo_pedido="NACIONAL",
        destino="Lima",
        producto_id=1,
        cantidad=2,
        status=status,
        observaciones=None,
        creado_en="2026-05-01T12:00:00.000000",
    )


def product(stock: int, threshold: int = 5) -> Product:
    return Product(
        id=1,
        sku="SKU-1",
        nombre="Caja",
        precio_unitario=Decimal("2.50"),
        stock_actual=stock,
        umbral_minimo=threshold,
        bodega=None,
        descripcion=None,
    )


def shipment(status: str) -> Shipment:
    return Shipment(
        id=4,
        pedido_id=7,
        tipo_envio="EXPRESS",
        transportista="Olva",
        destino="Lima",
        status=status,
        guia_despecho="EXP-20260501-000004",
        ruta_descripcion="Express prioritario — Lima",
        fecha_estimada_entrega="2026-05-02T12:00:00.000000",
        creado_en="2026-05-01T12:00:00.000000",
        owner_id=3,
    )


def made(kind: str, old, new, record: str = "OrdersTable:abc") -> list[tuple[str, dict]]:
    events = events_of(Change(kind, record, NOW, old, new))
    return [(event.type, jsonio.loads(event.body)) for event in events]


def test_an_order_created_or_moved_makes_its_event_with_the_order_as_the_api_shows_it():
    ((kind, body),) = made(ORDER, None, order("PENDIENTE"))
    assert kind == "pedido.creado" and body["type"] == kind
    assert body["timestamp"] == "2026-05-01T12:00:00.000000"
    assert body["data"]["id"] == 7 and body["data"]["total"] == Decimal("19.99")
    assert body["data"]["userEmail"] == "ana@example.com"
    ((kind, body),) = made(ORDER, order("PENDIENTE"), order("APROBADO"))
    assert kind == "pedido.estado"
    assert (body["data"]["status"], body["data"]["statusAnterior"]) == ("APROBADO", "PENDIENTE")


def test_a_change_no_event_reports_makes_none():
    assert made(ORDER, order("APROBADO"), order("APROBADO")) == []  # the outbox unmarked
    assert made(ORDER, order("APROBADO"), None) == []
    assert made(PRODUCT, product(10), product(9)) == []  # still above the threshold
    assert made(PRODUCT, product(4), product(3)) == []  # already below it
    assert made(PRODUCT, product(4), None) == []


def test_a_shipment_created_or_moved_makes_its_event_without_its_owner():
    ((kind, body),) = made(SHIPMENT, None, shipment("CREADO"))
    assert kind == "envio.creado" and "ownerId" not in body["data"]
    ((kind, body),) = made(SHIPMENT, shipment("CREADO"), shipment("EN_RUTA"))
    assert kind == "envio.estado" and body["data"]["statusAnterior"] == "CREADO"


def test_a_product_crossing_its_threshold_makes_stock_bajo_by_any_write():
    assert [k for k, _ in made(PRODUCT, product(5), product(4))] == ["inventario.stock_bajo"]
    assert [k for k, _ in made(PRODUCT, product(9, 5), product(9, 10))] == [
        "inventario.stock_bajo"
    ]  # the threshold raised past the stock
    assert [k for k, _ in made(PRODUCT, None, product(1))] == ["inventario.stock_bajo"]
    assert made(PRODUCT, product(0, 0), product(0, 0)) == []  # a threshold of 0 never alerts


def test_an_event_keeps_its_id_when_its_record_comes_again():
    first = events_of(Change(ORDER, "OrdersTable:r1", NOW, None, order("PENDIENTE")))
    again = events_of(Change(ORDER, "OrdersTable:r1", NOW, None, order("PENDIENTE")))
    other = events_of(Change(ORDER, "OrdersTable:r2", NOW, None, order("PENDIENTE")))
    assert first == again and first[0].id != other[0].id
    assert first[0].id.startswith("evt_")


def test_a_message_carries_its_event_whole():
    message = DeliveryMessage(webhook_id=3, event_id="evt_1", type="pedido.creado", body="{}")
    assert decoded(encoded(message)) == message
    with pytest.raises(ValueError):
        decoded('{"webhookId": 3}')


# -- retries -----------------------------------------------------------------------------

SCHEDULE = (5, 60, 600, 3600, 21600)


def test_2xx_is_delivered_410_turns_off_and_the_rest_is_retried_then_dead():
    assert decide(200, 1, SCHEDULE).next is Next.DONE
    assert decide(204, 6, SCHEDULE).estado == "ENTREGADO"
    gone = decide(410, 1, SCHEDULE)
    assert (gone.next, gone.estado) == (Next.DONE, "FALLIDO")
    delays = [decide(500, attempt, SCHEDULE).delay for attempt in range(1, 6)]
    assert delays == list(SCHEDULE)
    assert decide(None, 3, SCHEDULE).next is Next.RETRY
    assert decide(302, 1, SCHEDULE).next is Next.RETRY  # a redirect is never followed
    dead = decide(500, 6, SCHEDULE)
    assert (dead.next, dead.estado) == (Next.DEAD, "FALLIDO")


def test_the_schedule_is_five_whole_numbers_of_seconds():
    assert Webhooks.from_env({}).webhook_retry_seconds == SCHEDULE
    assert Webhooks.from_env({"WEBHOOK_RETRY_SECONDS": "1, 1,2,3,5"}).webhook_retry_seconds == (
        1,
        1,
        2,
        3,
        5,
    )
    for bad in ("1,2,3", "1,2,3,4,x", "1,2,3,4,-1", "1,2,3,4,50000", "0.5,1,1,1,1"):
        with pytest.raises(ConfigError, match="WEBHOOK_RETRY_SECONDS"):
            Webhooks.from_env({"WEBHOOK_RETRY_SECONDS": bad})


def test_later_attempts_have_smaller_places_so_the_list_is_newest_first():
    places = [rules.position(NOW + timedelta(microseconds=n), spread=999) for n in range(3)]
    assert places == sorted(places, reverse=True)
    assert rules.position(NOW, spread=0) < rules.position(NOW - timedelta(microseconds=1), 0)
    assert 0 < rules.position(NOW) < 2**63


def test_the_verification_docs_api_md_gives_accepts_a_delivery_and_nothing_else():
    import re
    import time
    from pathlib import Path

    text = (Path(__file__).resolve().parents[2] / "docs" / "api.md").read_text()
    (snippet,) = re.findall(r"```python\n(import base64.*?)```", text, re.S)
    documented: dict = {}
    exec(snippet, documented)  # the integrators' few lines, as written there
    old, new = rules.new_secret(), rules.new_secret()
    body = b'{"type":"pedido.creado","timestamp":"2026-05-01T12:00:00.000000","data":{}}'
    now = int(time.time())
    headers = signatures.headers([new, old], "evt_" + "a" * 32, now, body)
    assert documented["verify"](new, headers, body)
    assert documented["verify"](old, headers, body)
    assert not documented["verify"](rules.new_secret(), headers, body)
    assert not documented["verify"](new, headers, body + b" ")
    stale = signatures.headers([new], "evt_" + "a" * 32, now - 301, body)
    assert not documented["verify"](new, stale, body)


# -- name lookups ----------------------------------------------------------------------


class Lookups:
    """getaddrinfo as a test scripts it: names starting "hang" never answer until the
    test ends; any other resolves to a public address, after `delay` seconds."""

    def __init__(self, delay: float = 0.0):
        self.delay, self.started = delay, 0
        self.released = threading.Event()
        self._counted = threading.Condition()

    def __call__(self, host, port, *args, **kwargs):
        with self._counted:
            self.started += 1
            self._counted.notify_all()
        if host.startswith("hang"):
            self.released.wait(60)
            raise socket.gaierror("the resolver gave up")
        time.sleep(self.delay)
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("93.184.216.34", port))]

    def wait_started(self, count: int) -> None:
        with self._counted:
            assert self._counted.wait_for(lambda: self.started >= count, 10), self.started


@pytest.fixture
def lookups(monkeypatch):
    scripted = Lookups()
    monkeypatch.setattr(socket, "getaddrinfo", scripted)
    yield scripted
    scripted.released.set()


def test_names_whose_lookup_hangs_delay_no_other_name(lookups):
    with ThreadPoolExecutor(8) as hanging:
        stuck = [hanging.submit(targets.resolve, f"hang-{n}.example", 443) for n in range(8)]
        lookups.wait_started(4)  # a pool of 4 would be full now
        assert targets.resolve("hooks.example.com", 443) == ["93.184.216.34"]
        lookups.released.set()
        for lookup in stuck:
            with pytest.raises(OSError):
                lookup.result()


def test_a_lookup_that_outlasts_its_time_is_refused_saying_so(lookups):
    with pytest.raises(targets.Refused, match="did not resolve within 0.5 s"):
        targets.checked("https://hang.example/hook", False, timeout=0.5)
