"""The event API Gateway (REST, proxy integration) hands a function for one request.

Built here for what plays API Gateway's part: a call one service makes to another by
invoking its function (common.service_calls), a function's warm-up at init, and the local
stack. Nothing here knows Chalice.
"""


def rest_event(method: str, route: str, *, request_id: str,
               path_parameters: dict[str, str] | None = None,
               query: dict[str, str] | None = None, headers: dict[str, str] | None = None,
               body: str | None = None, authorizer: dict | None = None,
               request_context: dict | None = None) -> dict:
    """One request to `route` (e.g. /api/pedidos/{id}); `authorizer`: the authorizer's
    context; `request_context`: more of API Gateway's context (a stage, a domain)."""
    path = route.format(**(path_parameters or {}))
    return {"resource": route, "path": path, "httpMethod": method, "headers": headers or {},
            "multiValueHeaders": {}, "queryStringParameters": query,
            "multiValueQueryStringParameters":
                {name: [value] for name, value in query.items()} if query else None,
            "pathParameters": path_parameters or None, "stageVariables": None,
            "body": body, "isBase64Encoded": False,
            "requestContext": {"resourcePath": route, "httpMethod": method, "path": path,
                               "requestId": request_id, "authorizer": authorizer or {},
                               **(request_context or {})}}
