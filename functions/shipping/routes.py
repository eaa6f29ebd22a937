"""Shipping HTTP routes (docs/api.md#shipping, docs/api.md#tracking): read the request,
call the service, answer. `blueprint`: the routes behind the gateway's token;
`public_blueprint`: the two without one (the public tracking look-up, a carrier's signed
events), which the template leaves open and gives a function of their own."""

from chalice import Response

from common.http.creating import CreatedOnce
from common.http.lists import Lists
from common.http.readers import (
    caller_of,
    client_address,
    json_object,
    json_object_of,
    on_behalf_of,
    path_id,
    query_param,
)
from common.http.responses import created, json_response, no_content, ok
from common.http.service_app import ServiceBlueprint
from common.platform.clock import utcnow
from shipping import access, carriers, rules, service, tracking
from shipping.order_owners import OrderOwners
from shipping.repository import Moved
from shipping.service import Carriers, Lookups, Parts, Shipments, Signed


def _event_answer(moved: Moved) -> Response:
    """201 with the event recorded; 200 with the first one for a repeat of its idExterno."""
    return json_response(moved.event, 200 if moved.repeated else 201)


def blueprint(
    shipments: Shipments,
    owners: OrderOwners,
    lists: Lists,
    once: CreatedOnce,
    carrier_store: Carriers,
    parts: Parts | None = None,
) -> ServiceBlueprint:
    bp = ServiceBlueprint(__name__)

    @bp.route("/api/envios", methods=["GET"])
    def list_shipments() -> Response:
        request = bp.current_request
        caller = caller_of(request)
        filters = {
            "status": query_param(request, "status"),
            "pedidoId": query_param(request, "pedidoId"),
        }
        return lists.answer(
            request,
            lambda after, limit: service.list_shipments(
                shipments, caller, after, limit, filters["status"], filters["pedidoId"]
            ),
            filters,
        )

    # A role's refusal (403) comes before anything of the request is read (docs/api.md).
    @bp.route("/api/envios", methods=["POST"])
    def create_shipment() -> Response:
        request = bp.current_request
        access.may_create(caller_of(request))
        on_behalf = on_behalf_of(request)
        body = json_object(request)
        new = rules.parse_shipment(body)

        def owner_of(pedido_id: int) -> int | None:
            return owners.owner_of(pedido_id, on_behalf)

        return once.created(
            request,
            body,
            lambda: service.create_shipment(shipments, owner_of, new, utcnow(), parts),
        )

    @bp.route("/api/envios/{id}", methods=["GET"])
    def get_shipment(id: str) -> Response:
        return ok(service.get_shipment(shipments, caller_of(bp.current_request), path_id(id)))

    @bp.route("/api/envios/{id}/status", methods=["PATCH"])
    def change_status(id: str) -> Response:
        request = bp.current_request
        caller = caller_of(request)
        access.may_change_status(caller)
        status = query_param(request, "status")
        return ok(service.change_status(shipments, caller, path_id(id), status, utcnow(), parts))

    _delete_route(bp, shipments, parts)
    _tracking_routes(bp, shipments, carrier_store, parts)
    return bp


def _delete_route(bp: ServiceBlueprint, shipments: Shipments, parts: Parts | None) -> None:
    """A shipment not yet on its way deleted (docs/api.md#shipments-of-parts)."""

    @bp.route("/api/envios/{id}", methods=["DELETE"])
    def delete_shipment(id: str) -> Response:
        caller = caller_of(bp.current_request)
        access.may_delete(caller)
        service.delete_shipment(shipments, caller, path_id(id), parts)
        return no_content()


def _tracking_routes(
    bp: ServiceBlueprint, shipments: Shipments, carrier_store: Carriers, parts: Parts | None
) -> None:
    """What happened to a shipment (its history, its tracking events), and carriers
    (docs/api.md#history, docs/api.md#tracking)."""

    @bp.route("/api/envios/{id}/historial", methods=["GET"])
    def shipment_history(id: str) -> Response:
        caller = caller_of(bp.current_request)
        return ok(service.shipment_history(shipments, caller, path_id(id)))

    @bp.route("/api/envios/{id}/eventos", methods=["POST"])
    def record_event(id: str) -> Response:
        request = bp.current_request
        caller = caller_of(request)
        access.may_record_events(caller)
        shipment_id, now = path_id(id), utcnow()
        new = tracking.parse_event(json_object(request), now)
        return _event_answer(
            service.operator_event(shipments, caller, shipment_id, new, now, parts)
        )

    @bp.route("/api/envios/{id}/eventos", methods=["GET"])
    def shipment_events(id: str) -> Response:
        caller = caller_of(bp.current_request)
        return ok(service.shipment_events(shipments, caller, path_id(id)))

    @bp.route("/api/transportistas", methods=["POST"])
    def create_carrier() -> Response:
        request = bp.current_request
        access.may_create_carriers(caller_of(request))
        new = carriers.parse_carrier(json_object(request))
        return created(service.create_carrier(carrier_store, new, utcnow()))


# The headers a carrier's signature travels in (Standard Webhooks).
_SIGNATURE_HEADERS = carriers.SIGNATURE_HEADERS


def public_blueprint(
    shipments: Shipments, carrier_store: Carriers, lookups: Lookups, parts: Parts | None = None
) -> ServiceBlueprint:
    bp = ServiceBlueprint(__name__)
    # Answers about parcels anyone may follow: never kept by a cache on the way, so a
    # parcel's state is never an old one and no shared cache holds a code's answer.
    bp.cache_control = "no-store"

    @bp.route("/api/seguimiento/{codigoSeguimiento}", methods=["GET"])
    def public_tracking(codigoSeguimiento: str) -> Response:  # noqa: N803 - the path names it
        request = bp.current_request
        return ok(
            service.public_tracking(shipments, lookups, client_address(request), codigoSeguimiento)
        )

    @bp.route("/api/transportistas/{codigo}/eventos", methods=["POST"])
    def carrier_event(codigo: str) -> Response:
        request = bp.current_request
        raw = request.raw_body or b""
        headers = {
            name: request.headers[name] for name in _SIGNATURE_HEADERS if name in request.headers
        }
        signed = Signed(raw if isinstance(raw, bytes) else raw.encode(), headers, json_object_of)
        moved = service.carrier_event(carrier_store, shipments, codigo, signed, utcnow(), parts)
        assert moved.event is not None  # an event's move always has it
        return json_response({"id": moved.event.id}, 202)

    return bp
