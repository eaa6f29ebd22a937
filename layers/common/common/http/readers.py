"""Reading a request at the HTTP edge: its body, its path id and query, who sent it, and
what a call to another service needs to be made for it."""

import ipaddress
import re
from collections.abc import Mapping

from chalice.app import Request

from common.http.bearer import bearer_token
from common.http.service_calls import OnBehalf
from common.identity.callers import Caller
from common.platform import jsonio
from common.platform.errors import Invalid

_NUMERIC_ID = re.compile(r"-?[0-9]+")


def json_object(request: Request) -> dict:
    """The request body as a JSON object, or a 400 that says what is wrong with it."""
    return json_object_of(request.raw_body)


def json_object_of(raw: bytes | str) -> dict:
    """A body's bytes as a JSON object, or a 400 that says what is wrong with them."""
    try:
        body = jsonio.loads(raw)
    except jsonio.InvalidJson as exc:
        raise Invalid("INVALID_JSON", str(exc).capitalize()) from None
    if not isinstance(body, dict):
        raise Invalid("INVALID_JSON", "The body must be a JSON object")
    return body


def caller_of(request: Request) -> Caller:
    """Who sent the request, as the gateway's authorizer told the function."""
    return Caller.from_context(request.context.get("authorizer"))


def client_address(request: Request) -> str:
    """The client whose tries are counted (sign-ins, registrations, password checks): the
    address the request came from, as API Gateway saw the connection (never a header the
    client chose: X-Forwarded-For is anyone's to write); "unknown" where no gateway said
    (an init rehearsal). An IPv6 address counts as its /64: one subscriber is given a
    whole /64, and could otherwise count as 2**64 clients."""
    identity = request.context.get("identity") or {}
    address = identity.get("sourceIp")
    if not isinstance(address, str) or not address:
        return "unknown"
    return counted_address(address)


def counted_address(address: str) -> str:
    """An IPv4 address as it is (an IPv4-mapped IPv6 one too); an IPv6 one as its /64."""
    try:
        parsed = ipaddress.ip_address(address)
    except ValueError:
        return address
    if isinstance(parsed, ipaddress.IPv6Address):
        if parsed.ipv4_mapped is not None:
            return str(parsed.ipv4_mapped)
        return str(ipaddress.ip_network(f"{parsed}/64", strict=False))
    return str(parsed)


def path_id(raw: str) -> int:
    """A numeric path id. Non-numeric text is the client's mistake (400); a number no
    entity can have (0, negative, 45 digits) is simply not found by the repository."""
    if not _NUMERIC_ID.fullmatch(raw):
        raise Invalid("INVALID_ID", f"Id must be a number, got {raw!r}")
    # Python refuses int() past 4300 digits; no id comes near, so such a one is unknown
    # (its first 4000 digits make a number that cannot be an id, and begins as it does).
    return int(raw[:4000])


def query_param(request: Request, name: str) -> str | None:
    query: Mapping[str, str] = request.query_params or {}
    return query.get(name)


def gateway_base_url(request: Request) -> str:
    """The base URL of the gateway a request came in on, stage prefix included.

    It is read from what API Gateway itself puts in the event, never from headers the
    client chose (a forged Host would send a call carrying the caller's token to a
    server of the client's choosing). The local gateway names its own address there, with
    its port (no API Gateway domain has one): plain HTTP. The Host header is only the last
    resort of a bare `chalice local`.
    """
    event = request.to_original_event()
    context = event.get("requestContext") or {}
    domain = context.get("domainName")
    if not domain:
        return f"http://{request.headers.get('host', '127.0.0.1')}"
    full_path, own_path = context.get("path", ""), event.get("path")
    prefix = full_path[: -len(own_path)] if own_path and full_path.endswith(own_path) else ""
    return f"{'http' if ':' in domain else 'https'}://{domain}{prefix}"


def on_behalf_of(request: Request) -> OnBehalf:
    """What a call to another service needs to make it for this request's caller."""
    return OnBehalf(
        caller=caller_of(request),
        token=bearer_token(request.headers.get("authorization")),
        gateway_url=gateway_base_url(request),
        request_id=request.context.get("requestId"),
    )
