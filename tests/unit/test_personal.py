"""Personal data declared once (common.platform.personal): what each kind's personal fields are,
what stripping them leaves, and that no log line of the platform ever holds them."""

import json

import pytest

from common.platform import jsonio, personal
from common.platform.errors import NotAcceptable
from common.platform.logs import get_logger
from tests.support.logs import captured_lines

EMAIL, NAME, ADDRESS = "ana.torres@example.com", "Ana Torres", "Av. Arequipa 1234, Lima"


def test_no_log_line_holds_a_personal_field_wherever_it_is():
    logger = get_logger("personal-test")
    event = {"pedidoId": 7, "userEmail": EMAIL, "total": 59.97, "tipoPedido": "NACIONAL"}
    with captured_lines(logger) as lines:
        logger.info("event", extra={"payload": event})
        logger.info("nested", extra={"orders": [{"clienteNombre": NAME, "destino": ADDRESS}]})
        # A payload logged as the JSON text it came as (the notification service's).
        logger.info("raw", extra={"payload": jsonio.raw(json.dumps({"destino": ADDRESS}))})
        # ... and one logged cut, as a string.
        logger.info("cut", extra={"payload": '{"rutaDescripcion": "Ruta terrestre — Lim'})
    written = json.dumps(lines)
    for value in (EMAIL, NAME, ADDRESS, "Ruta terrestre"):
        assert value not in written
    assert lines[0]["payload"] == {**event, "userEmail": personal.REDACTED}
    assert lines[2]["payload"] == {"destino": personal.REDACTED}


def test_an_event_body_loses_its_personal_fields_and_keeps_the_facts():
    data = {
        "id": 42,
        "userId": 7,
        "userEmail": EMAIL,
        "clienteNombre": NAME,
        "destino": ADDRESS,
        "observaciones": None,
        "total": 59.97,
        "status": "ENTREGADO",
    }
    body = jsonio.dumps({"type": "pedido.estado", "timestamp": "t", "data": data})
    stripped = json.loads(personal.stripped_event(body))
    assert stripped["data"] == {
        **data,
        "userEmail": None,
        "clienteNombre": None,
        "destino": None,
    }
    shipment = jsonio.dumps(
        {"type": "envio.creado", "data": {"id": 1, "destino": ADDRESS, "rutaDescripcion": "R"}}
    )
    assert json.loads(personal.stripped_event(shipment))["data"] == {
        "id": 1,
        "destino": None,
        "rutaDescripcion": None,
    }
    product = jsonio.dumps({"type": "inventario.stock_bajo", "data": {"id": 1, "nombre": "X"}})
    assert personal.stripped_event(product) == product
    assert personal.stripped_event("not json") == "not json"


def test_every_personal_field_is_a_nullable_attribute_of_its_model_and_its_record():
    """Declared once (common.platform.personal), stored by those names, and erasable: a model
    whose personal field could not be null could not lose it."""
    import dataclasses

    from common.orders.model import OrderModel
    from common.orders.records import Order, Shipment
    from common.orders.shipment_model import ShipmentModel

    for kind, model, record in (
        (personal.ORDER, OrderModel, Order),
        (personal.SHIPMENT, ShipmentModel, Shipment),
    ):
        attributes = model.get_attributes()
        fields = {field.name for field in dataclasses.fields(record)}
        for field, shown in zip(kind.fields, kind.shown, strict=True):
            assert attributes[field].null, (model, field)
            assert attributes[field].attr_name == shown
            assert field in fields


def test_an_order_events_person_is_read_off_its_body_when_its_message_names_none():
    """A delivery queued before events named their person (no `userId` on the message)
    still goes out without an erased person's data: an order's event names them."""
    order = jsonio.dumps({"type": "pedido.estado", "data": {"id": 1, "userId": 7}})
    assert personal.event_subject(order) == 7
    shipment = jsonio.dumps({"type": "envio.estado", "data": {"id": 1, "pedidoId": 3}})
    assert personal.event_subject(shipment) is None
    assert personal.event_subject("not json") is None


def test_a_personal_field_logged_as_text_is_redacted_by_its_decoded_name():
    """A payload logged as text (cut, or too deep) hid its fields behind JSON escapes:
    "user\\u0045mail" is userEmail to any reader, and stayed in clear."""
    from common.platform.personal import REDACTED, redacted

    text = '{"user\\u0045mail": "ana@example.com", "cli\\u0065nteNombre":"Ana", "total": 3, "x'
    shown = redacted({"payload": text})["payload"]
    assert "ana@example.com" not in shown and '"Ana"' not in shown
    assert shown.count(REDACTED) == 2 and '"total": 3' in shown


class _NoAccount:
    def account(self, user_id, own=None):
        return None


def _more_than_an_answer_holds(read: list):
    """Items past what any answer can hold, each noted in `read` as it is taken."""
    from users import service

    for n in range(service.MAX_ITEMS + 10_000):
        read.append(n)
        yield n


def _refused_after_reading(persons, with_events: bool = False) -> int:
    """How many items the export read before its 406 RESPONSE_TOO_LARGE."""
    from users import service

    with pytest.raises(NotAcceptable) as refused:
        service.data_of(persons, _NoAccount(), 7, with_events=with_events)
    assert refused.value.code == "RESPONSE_TOO_LARGE"
    return len(persons.read)


def test_a_persons_data_is_read_no_further_than_an_answer_can_hold():
    """The export read every order before its size was judged: 50,000 orders were all read
    (and held) to answer 406. It stops reading past what any answer can hold."""
    from users import service

    class Many:
        def __init__(self, read):
            self.read = read

        def every(self, user_id, only=None):
            return _more_than_an_answer_holds(self.read)

    class Persons:
        read: list = []
        orders = shipments = Many(read)

    assert _refused_after_reading(Persons()) == service.MAX_ITEMS + 1


def test_a_persons_tracking_events_are_read_no_further_than_an_answer_can_hold():
    """The export bounded orders and shipments but read every tracking event of the
    person's shipments (a carrier's events are unbounded per shipment) before answering."""
    from users import service

    class Shipments:
        def __init__(self, read):
            self.read = read

        def every(self, user_id, only=None):
            yield from ()

        def events(self, user_id):
            return _more_than_an_answer_holds(self.read)

    class Persons:
        read: list = []
        orders = shipments = returns = Shipments(read)

    assert _refused_after_reading(Persons(), with_events=True) == service.MAX_ITEMS + 1
