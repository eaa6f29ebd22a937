"""Personal data's routes (docs/api.md#personal-data): read the request, call one use case,
answer; and every request about a person's data recorded, with the status it was
answered (the record of requests: docs/personal-data.md)."""

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from chalice import Response

from common.http.lists import Lists
from common.http.readers import caller_of, client_address, json_object, path_id
from common.http.responses import api_json, json_document, ok, status_of, takes_gzip
from common.http.service_app import ServiceBlueprint
from common.identity.callers import Caller, require_operator
from common.orders import records
from common.orders.return_records import return_history
from common.platform.clock import to_iso, utcnow
from common.platform.errors import DomainError
from common.platform.lambda_init import REHEARSAL
from users import rules, service
from users.repository import Requests
from users.rules import ERASURE, DataRequest

# The path's `me` and `{userId}` forms of one route.
_ME, _ANYONE = "/api/usuarios/me", "/api/usuarios/{userId}"


@dataclass(frozen=True)
class Deps:
    """What the routes are given (users.wiring)."""

    persons: service.Persons
    identity: service.Identity
    eraser: service.Eraser
    requests: Requests
    lists: Lists
    max_bytes: int
    # Counts each caller's requests (common.identity.attempts_repository), 429 past the limit.
    count_request: Callable[[str], None] = lambda _sub: None


def _shown(data: service.Data, with_history: bool) -> dict:
    """A person's data as the API shows it; an export's with each item's history."""

    def item(kept: Any, history_of: Callable[[Any, list], list]) -> object:
        shown = api_json(kept.value)
        if with_history:
            assert isinstance(shown, dict)
            shown["historial"] = api_json(history_of(kept.value, kept.changes))
        return shown

    def shipment(kept: Any) -> object:
        shown = item(kept, records.shipment_history)
        if with_history:
            assert isinstance(shown, dict)
            shown["eventos"] = api_json(data.eventos.get(kept.value.id, []))
        return shown

    return {
        "cuenta": api_json(data.cuenta) if data.cuenta is not None else None,
        "pedidos": [item(kept, records.order_history) for kept in data.pedidos],
        "envios": [shipment(kept) for kept in data.envios],
        "devoluciones": [item(kept, return_history) for kept in data.devoluciones],
    }


class Recorder:
    """Runs a request about a person's data, and records it with the status it was
    answered (403s and malformed paths are no one's request: not recorded)."""

    def __init__(self, bp: ServiceBlueprint, deps: Deps):
        self.bp, self.deps = bp, deps

    def __call__(self, tipo: str, raw: str | None, answer: Callable[..., Response]) -> Response:
        """`answer(caller, user_id, request_id)` for the person the path names (`raw`: a
        userId; None: `me`)."""
        caller = caller_of(self.bp.current_request)
        user_id = rules.target_of(caller, path_id(raw) if raw is not None else None)
        if caller.sub == REHEARSAL:  # the platform's own warm-up at init: no one's
            return answer(caller, user_id, 0)
        self.deps.count_request(caller.sub)  # before anything is recorded or asked
        request_id = self.deps.requests.next_id()
        fecha = to_iso(utcnow())

        def record(status: int) -> None:
            self.deps.requests.record(
                DataRequest(
                    id=request_id,
                    user_id=user_id,
                    tipo=tipo,
                    origen=caller.role,
                    fecha=fecha,
                    resultado=status,
                )
            )

        try:
            response = answer(caller, user_id, request_id)
        except DomainError as err:
            record(status_of(err))
            raise
        record(response.status_code)
        return response


def blueprint(deps: Deps) -> ServiceBlueprint:
    bp = ServiceBlueprint(__name__)
    # A person's data: no cache on the way keeps any answer of these routes.
    bp.cache_control = "no-store"
    recorded = Recorder(bp, deps)
    _access_routes(bp, deps, recorded)
    _rectification_routes(bp, deps, recorded)
    _erasure_routes(bp, deps, recorded)

    @bp.route("/api/usuarios/solicitudes", methods=["GET"])
    def rights_requests() -> Response:
        request = bp.current_request
        caller = caller_of(request)
        require_operator(caller, "read the record of rights requests")  # before the query's
        return deps.lists.answer(
            request,
            lambda after, limit: service.requests_page(deps.requests, caller, after, limit),
            position=Requests.position,
        )

    return bp


def _access_routes(bp: ServiceBlueprint, deps: Deps, recorded: Recorder) -> None:
    """Access and portability: the person's data, and the same as a file to take."""

    def data(raw: str | None, export: bool) -> Response:
        def answer(caller: Caller, user_id: int, _: int) -> Response:
            found = service.data_of(deps.persons, deps.identity, user_id, with_events=export)
            headers = (
                {"Content-Disposition": f'attachment; filename="datos-{user_id}.json"'}
                if export
                else {}
            )
            return json_document(
                _shown(found, with_history=export),
                gzip_ok=takes_gzip(
                    bp.current_request.headers.get("accept"),
                    bp.current_request.headers.get("accept-encoding"),
                ),
                max_bytes=deps.max_bytes,
                headers=headers,
            )

        return recorded(rules.PORTABILITY if export else rules.ACCESS, raw, answer)

    @bp.route(f"{_ME}/datos", methods=["GET"])
    def own_data() -> Response:
        return data(None, export=False)

    @bp.route(f"{_ANYONE}/datos", methods=["GET"])
    def persons_data(userId: str) -> Response:  # noqa: N803 - the path's name
        return data(userId, export=False)

    @bp.route(f"{_ME}/datos/exportar", methods=["GET"])
    def own_export() -> Response:
        return data(None, export=True)

    @bp.route(f"{_ANYONE}/datos/exportar", methods=["GET"])
    def persons_export(userId: str) -> Response:  # noqa: N803 - the path's name
        return data(userId, export=True)


def _rectification_routes(bp: ServiceBlueprint, deps: Deps, recorded: Recorder) -> None:
    """A customer's own name and email, corrected."""

    @bp.route(_ME, methods=["PUT"])
    def rename() -> Response:
        def answer(caller: Caller, user_id: int, _: int) -> Response:
            nombre = rules.parse_name(json_object(bp.current_request))
            return ok(service.rename(deps.identity, user_id, nombre))

        return recorded(rules.RECTIFICATION, None, answer)

    @bp.route(f"{_ME}/email", methods=["PUT"])
    def change_email() -> Response:
        def answer(caller: Caller, user_id: int, _: int) -> Response:
            request = bp.current_request
            change = rules.parse_email_change(json_object(request))
            return ok(
                service.change_email(
                    deps.persons, deps.identity, user_id, change, client_address(request)
                )
            )

        return recorded(rules.RECTIFICATION, None, answer)


def _erasure_routes(bp: ServiceBlueprint, deps: Deps, recorded: Recorder) -> None:
    """Erasure: by the person (their password and the typed confirmation), or by an
    operator acting on a request that came by mail or phone."""

    def answer(caller: Caller, user_id: int, request_id: int) -> Response:
        """The person themselves: their password and the typed confirmation; an
        operator, on their request by mail or phone: its reason."""
        request = bp.current_request
        if caller.is_operator:
            rules.parse_erasure_by_operator(json_object(request))
        else:
            password = rules.parse_own_erasure(json_object(request))
            deps.identity.proven(user_id, password, client_address(request), caller.username)
        return _erased(deps, user_id, request_id, None if caller.is_operator else caller.username)

    @bp.route(f"{_ME}/cancelacion", methods=["POST"])
    def erase_own() -> Response:
        return recorded(ERASURE, None, answer)

    @bp.route(f"{_ANYONE}/cancelacion", methods=["POST"])
    def erase(userId: str) -> Response:  # noqa: N803 - the path's name
        # A customer may name their own userId only (anyone else's is 403), as with `me`.
        return recorded(ERASURE, userId, answer)


def _erased(deps: Deps, user_id: int, request_id: int, own_account: str | None) -> Response:
    """Nothing in flight (409 OPEN_ORDERS naming it): erased, answered at once; the
    erasure function does the rest within the minute (docs/personal-data.md)."""
    service.check_nothing_in_flight(deps.persons, user_id)
    service.erase(deps.eraser, user_id, request_id, own_account)
    return ok({"userId": user_id, "estado": rules.CANCELLED})
