"""The event API Gateway (REST, proxy integration) hands a function for one request.

Built here for what plays API Gateway's part: a call one service makes to another by
invoking its function (common.http.service_calls), a function's warm-up at init, and the local
stack's gateway (infra/local/api_gateway.py). Nothing here knows Chalice.
"""

import base64


def rest_event(
    method: str,
    route: str,
    *,
    request_id: str,
    path_parameters: dict[str, str] | None = None,
    query: dict[str, list[str]] | dict[str, str] | None = None,
    headers: dict[str, str] | None = None,
    body: bytes | str | None = None,
    authorizer: dict | None = None,
    request_context: dict | None = None,
    path: str | None = None,
) -> dict:
    """One request to `route` (e.g. /api/pedidos/{id}); `query`: each parameter's value,
    or its values; `path`: the path as sent (else the route with its parameters);
    `authorizer`: the authorizer's context; `request_context`: more of API Gateway's
    context (a stage, a domain, the caller's address). A body that is not UTF-8 travels
    base64-encoded, as API Gateway sends binary."""
    path = path if path is not None else route.format(**(path_parameters or {}))
    multi = (
        {name: value if isinstance(value, list) else [value] for name, value in query.items()}
        if query
        else None
    )
    encoded = False
    if isinstance(body, bytes):
        raw = body
        try:
            body = raw.decode("utf-8")
        except UnicodeDecodeError:
            body, encoded = base64.b64encode(raw).decode("ascii"), True
    headers = headers or {}
    return {
        "resource": route,
        "path": path,
        "httpMethod": method,
        "headers": headers,
        "multiValueHeaders": {name: [value] for name, value in headers.items()},
        "queryStringParameters": {n: v[-1] for n, v in multi.items()} if multi else None,
        "multiValueQueryStringParameters": multi,
        "pathParameters": path_parameters or None,
        "stageVariables": None,
        "body": body,
        "isBase64Encoded": encoded,
        "requestContext": {
            "resourcePath": route,
            "httpMethod": method,
            "path": path,
            "requestId": request_id,
            "authorizer": authorizer or {},
            **(request_context or {}),
        },
    }
