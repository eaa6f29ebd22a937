"""docs/openapi.yaml held to the code: valid OpenAPI 3.1, exactly the Chalice routes of
both APIs, and the limits, states and texts the code itself uses.

What comes back over HTTP is held to the document by tests/e2e/test_fuzzing.py.
"""

from decimal import Decimal

import pytest
import yaml
from openapi_spec_validator import OpenAPIV31SpecValidator, validate

import inventory.rules
import notifications.service
import notifications.wiring
import orders.rules
import shipping.rules
import shipping.strategies
import users.rules
import webhooks.rules
from app import create_gateway
from common.http import creating, service_app
from common.http.service_app import gateway_routes
from common.orders import return_records
from common.platform import ids, validation
from common.platform.settings import AllSettings, Http
from common.storage import paging
from infra.api_docs import DOCUMENT

METHODS = {"get", "put", "post", "delete", "options", "head", "patch", "trace"}
DESCRIBED = yaml.safe_load(DOCUMENT.read_text(encoding="utf-8"))
SCHEMAS = DESCRIBED["components"]["schemas"]


def documented(paths: dict) -> set[tuple[str, str]]:
    return {
        (path, method.upper())
        for path, item in paths.items()
        for method in item
        if method in METHODS
    }


def routes(app) -> set[tuple[str, str]]:
    return gateway_routes(app)  # the services' internal routes are no client's


GATEWAY_LOCAL, NOTIFICATIONS_LOCAL = "http://127.0.0.1:8000", "http://127.0.0.1:8001"


def served_locally_at(item: dict) -> set[str]:
    return {server["url"] for server in item.get("servers", DESCRIBED["servers"])}


def notification_paths() -> dict:
    """The paths on the notification service's server (their own, or the root's)."""
    return {
        path: item
        for path, item in DESCRIBED["paths"].items()
        if NOTIFICATIONS_LOCAL in served_locally_at(item)
    }


def gateway_paths() -> dict:
    return {
        path: item
        for path, item in DESCRIBED["paths"].items()
        if GATEWAY_LOCAL in served_locally_at(item)
    }


def operations(paths: dict):
    for path, item in paths.items():
        for method, operation in item.items():
            if method in METHODS:
                yield path, method.upper(), operation


def test_the_document_is_valid_openapi_3_1():
    validate(DESCRIBED, cls=OpenAPIV31SpecValidator)
    assert DESCRIBED["openapi"].startswith("3.1.")


def test_every_gateway_route_is_documented_and_every_gateway_operation_is_a_route():
    assert documented(gateway_paths()) == routes(create_gateway(AllSettings.from_env()))


def test_every_notification_route_is_documented_and_every_operation_is_a_route():
    assert documented(notification_paths()) == routes(notifications.wiring.create(Http()))


def test_the_notification_paths_are_on_their_own_server_and_the_gateway_on_another():
    gateway = [server["url"] for server in DESCRIBED["servers"]]
    assert gateway[0] == GATEWAY_LOCAL
    for path, item in notification_paths().items():
        own = [server["url"] for server in item["servers"]]
        if path == "/":  # both APIs' root
            assert own[:2] == [GATEWAY_LOCAL, NOTIFICATIONS_LOCAL]
        else:
            assert own[0] == NOTIFICATIONS_LOCAL and own[0] not in gateway


def test_each_apis_root_is_open_and_says_the_documents_version():
    from common.http import index

    assert DESCRIBED["info"]["version"] == index.VERSION
    root = DESCRIBED["paths"]["/"]["get"]
    assert root["security"] == [] and "401" not in root["responses"]
    names = SCHEMAS["ServiceIndex"]["properties"]["name"]["enum"]
    assert names == [index.GATEWAY, index.NOTIFICATIONS]


def test_the_gateway_needs_a_bearer_token_and_the_notification_service_none():
    scheme = DESCRIBED["components"]["securitySchemes"]["bearerAuth"]
    assert (scheme["type"], scheme["scheme"]) == ("http", "bearer")
    assert DESCRIBED["security"] == [{"bearerAuth": []}]
    from infra import template

    # Open: the index, signing in, the public tracking look-up and the carriers' signed
    # events (the routes the template leaves without authorizer).
    public = template.public_routes("GatewayApi")
    assert public == {
        ("/", "GET"),
        ("/api/auth/login", "POST"),
        ("/api/auth/register", "POST"),
        ("/api/seguimiento/{codigoSeguimiento}", "GET"),
        ("/api/transportistas/{codigo}/eventos", "POST"),
    }
    for path, method, operation in operations(gateway_paths()):
        if (path, method.upper()) in public:
            assert operation["security"] == []
            assert operation["responses"].get("401") != {
                "$ref": "#/components/responses/Unauthorized"
            }
            continue
        assert "security" not in operation, f"{method} {path} must keep the bearer token"
        # A route that checks a password answers its own 401 beside the token's.
        assert operation["responses"]["401"] in (
            {"$ref": "#/components/responses/Unauthorized"},
            {"$ref": "#/components/responses/WrongPassword"},
        )
    for _, _, operation in operations(notification_paths()):
        assert operation["security"] == []
        assert "401" not in operation["responses"]


@pytest.mark.parametrize("path", ["/api/inventario", "/api/pedidos", "/api/envios"])
def test_each_create_takes_an_idempotency_key_and_documents_its_answers(path):
    operation = DESCRIBED["paths"][path]["post"]
    assert {"$ref": "#/components/parameters/IdempotencyKey"} in operation["parameters"]
    responses = operation["responses"]
    assert "Idempotent-Replayed" in responses["201"]["headers"]
    assert {"409", "413", "422"} <= set(responses)


def test_every_operation_with_a_body_documents_413():
    for path, method, operation in operations(DESCRIBED["paths"]):
        if "requestBody" in operation:
            assert "413" in operation["responses"], f"{method} {path}"


def test_a_wrong_password_is_documented_beside_a_refused_token():
    answer = DESCRIBED["components"]["responses"]["WrongPassword"]
    kinds = answer["content"]["application/json"]["schema"]["oneOf"]
    assert {"$ref": "#/components/schemas/Unauthorized"} in kinds


def test_every_list_documents_its_paging():
    lists = [
        ("/api/usuarios/solicitudes", "get"),
        ("/api/inventario", "get"),
        ("/api/inventario/alertas", "get"),
        ("/api/pedidos", "get"),
        ("/api/envios", "get"),
        ("/api/webhooks", "get"),
        ("/api/webhooks/{id}/entregas", "get"),
        ("/api/devoluciones", "get"),
        ("/api/pedidos/{id}/devoluciones", "get"),
    ]
    for path, method in lists:
        operation = DESCRIBED["paths"][path][method]
        names = {p.get("$ref", p.get("name")) for p in operation["parameters"]}
        assert {"#/components/parameters/limit", "#/components/parameters/nextToken"} <= names
        response = operation["responses"]["200"]
        headers = (
            response.get("headers")
            or DESCRIBED["components"]["responses"][response["$ref"].rsplit("/", 1)[1]]["headers"]
        )
        assert set(headers) == {"X-Next-Token", "Link"}


# -- the document's numbers, states and texts are the code's ---------------------------


def test_limits_are_the_codes():
    parameters = DESCRIBED["components"]["parameters"]
    assert parameters["limit"]["schema"]["maximum"] == paging.MAX_LIMIT
    assert parameters["IdempotencyKey"]["schema"]["maxLength"] == 255
    assert creating._IDEMPOTENCY_KEY.pattern == r"[\x21-\x7e]{1,255}"
    assert SCHEMAS["Id"]["maximum"] == ids.MAX_ID
    assert SCHEMAS["Count"]["maximum"] == validation.MAX_COUNT
    assert SCHEMAS["PositiveCount"]["maximum"] == validation.MAX_COUNT
    assert SCHEMAS["PositiveInteger"]["maximum"] == 10**validation.MAX_DIGITS - 1
    # A float in the document; compared exactly, as the code compares a Decimal.
    assert Decimal(repr(SCHEMAS["Money"]["exclusiveMaximum"])) == (
        Decimal(10) ** (validation.MAX_EXPONENT + 1)
    )
    assert SCHEMAS["Text"]["maxLength"] == validation.MAX_TEXT
    product = SCHEMAS["ProductInput"]["properties"]
    assert product["sku"]["maxLength"] == inventory.rules.MAX_SKU
    assert product["descripcion"]["maxLength"] == inventory.rules.MAX_DESCRIPTION
    assert product["bodega"]["maxLength"] == validation.MAX_TEXT
    assert SCHEMAS["OrderInput"]["properties"]["userEmail"]["pattern"] == (
        "^" + validation.EMAIL.pattern + "$"
    )
    assert "1,048,576" in DESCRIBED["components"]["responses"]["PayloadTooLarge"]["description"]
    assert service_app.MAX_BODY_BYTES == 1_048_576


def test_states_and_kinds_are_the_codes():
    assert tuple(SCHEMAS["OrderStatus"]["enum"]) == orders.rules.STATUSES
    assert tuple(SCHEMAS["ShipmentStatus"]["enum"]) == shipping.rules.STATUSES
    assert tuple(SCHEMAS["OrderInput"]["properties"]["tipoPedido"]["enum"]) == (
        orders.rules.TIPOS_PEDIDO
    )
    assert tuple(SCHEMAS["ShipmentInput"]["properties"]["tipoEnvio"]["enum"]) == (
        shipping.strategies.TIPOS_ENVIO
    )
    assert SCHEMAS["Order"]["properties"]["observaciones"]["enum"] == [
        orders.rules.CUSTOMS_NOTE,
        None,
    ]


def test_the_returns_states_and_reasons_are_the_codes():
    assert tuple(SCHEMAS["ReturnState"]["enum"]) == return_records.STATES
    assert tuple(SCHEMAS["ReturnReason"]["enum"]) == return_records.REASONS
    motivos = SCHEMAS["Return"]["properties"]["motivo"]["enum"]
    assert motivos == [*return_records.REASONS, return_records.NOT_DELIVERED]
    origins = (
        return_records.CUSTOMER_ORIGIN,
        return_records.OPERATOR_ORIGIN,
        return_records.CARRIER_ORIGIN,
    )
    assert tuple(SCHEMAS["Return"]["properties"]["origen"]["enum"]) == origins
    comment = SCHEMAS["ReturnInput"]["properties"]["comentario"]
    assert comment["maxLength"] == return_records.MAX_COMMENT


def test_the_rights_and_their_words_are_the_codes():
    rights = users.rules
    tipos = (rights.ACCESS, rights.PORTABILITY, rights.RECTIFICATION, rights.ERASURE)
    assert tuple(SCHEMAS["DataRequest"]["properties"]["tipo"]["enum"]) == tipos
    assert SCHEMAS["OwnErasureInput"]["properties"]["confirmacion"]["const"] == (
        rights.CONFIRMATION
    )
    assert SCHEMAS["ErasureAccepted"]["properties"]["estado"]["const"] == rights.CANCELLED
    estados = SCHEMAS["Account"]["properties"]["estado"]["enum"]
    assert tuple(estados) == (rights.ACTIVE, rights.DISABLED)
    fields = SCHEMAS["InFlightDetail"]["properties"]["field"]["enum"]
    assert fields == ["pedidos", "envios", "devoluciones"]


def test_the_webhooks_events_and_states_are_the_codes():
    assert tuple(SCHEMAS["EventType"]["enum"]) == webhooks.rules.EVENT_TYPES
    assert set(DESCRIBED["webhooks"]) == set(webhooks.rules.EVENT_TYPES)
    states = (webhooks.rules.PENDING, webhooks.rules.DELIVERED, webhooks.rules.FAILED)
    assert tuple(SCHEMAS["DeliveryState"]["enum"]) == states
    assert SCHEMAS["WebhookInput"]["properties"]["url"]["maxLength"] == webhooks.rules.MAX_URL
    assert SCHEMAS["WebhookAttempt"]["properties"]["eventId"]["pattern"] == (
        "^" + webhooks.rules.EVENT_ID.pattern + "$"
    )


def test_the_notification_texts_are_the_codes():
    paths = DESCRIBED["paths"]
    processed = paths["/notificaciones"]["post"]["responses"]["200"]["content"]["text/plain"]
    health = paths["/notificaciones/health"]["get"]["responses"]["200"]["content"]["text/plain"]
    assert processed["schema"]["const"] == notifications.service.PROCESSED
    assert health["schema"]["const"] == notifications.service.HEALTHY


def test_response_objects_are_closed_so_a_new_field_must_be_documented():
    for name in (
        "Product",
        "Order",
        "Shipment",
        "Webhook",
        "WebhookWithSecret",
        "WebhookAttempt",
        "Account",
        "DataRequest",
        "Return",
        "ReturnLine",
    ):
        assert SCHEMAS[name]["additionalProperties"] is False, name
        # A field a later feature added, which older clients never see unless it holds
        # something (common.http.responses.api_json: `omitted_when_empty`).
        optional = set(SCHEMAS[name].get("x-omitted-when-empty", []))
        assert set(SCHEMAS[name]["required"]) == set(SCHEMAS[name]["properties"]) - optional, name


def test_the_fields_a_shipment_omits_when_empty_are_the_codes():
    import dataclasses

    from common.orders.records import Shipment

    omitted = {
        "".join(w.capitalize() if i else w for i, w in enumerate(f.name.split("_")))
        for f in dataclasses.fields(Shipment)
        if f.metadata.get("omitted_when_empty")
    }
    assert set(SCHEMAS["Shipment"]["x-omitted-when-empty"]) == omitted


def test_every_error_schema_is_the_platforms_error_body():
    errors = [name for name in SCHEMAS if name.endswith("Error")]
    assert len(errors) > 10
    for name in errors:
        schema = SCHEMAS[name]
        assert schema["additionalProperties"] is False, name
        assert {"error", "message"} <= set(schema["required"]), name
        assert set(schema["properties"]) <= {"error", "message", "details"}, name
