"""Personal data declared once (common.personal): what each kind's personal fields are,
what stripping them leaves, and that no log line of the platform ever holds them."""

import json

from common import jsonio, personal
from common.logs import get_logger
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
    """Declared once (common.personal), stored by those names, and erasable: a model
    whose personal field could not be null could not lose it."""
    import dataclasses

    from common.order_model import OrderModel
    from common.records import Order, Shipment
    from common.shipment_model import ShipmentModel

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
