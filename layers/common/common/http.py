"""Building a service's Chalice app and reading requests the same way in every service."""

import functools
import re
import time

from chalice import Blueprint, Chalice, CORSConfig, Response

from common import config, jsonio
from common.errors import ApiError, internal_error
from common.logs import get_logger

_NUMERIC_ID = re.compile(r"-?[0-9]+")
# Ids come from counters that start at 1; anything past this cannot exist, and keeping
# it out of DynamoDB keys avoids a 500 for an absurdly long number.
MAX_ID = 2**63 - 1
# Chalice answers some requests itself ({"Code", "Message"}): same errors, our format.
_CHALICE_CODES = {"MethodNotAllowedError": "METHOD_NOT_ALLOWED",
                  "UnsupportedMediaType": "UNSUPPORTED_MEDIA_TYPE",
                  "BadRequest": "BAD_REQUEST", "InternalServerError": "INTERNAL_ERROR"}
# Bodies are parsed as JSON whatever Content-Type says (curl -d sends a form type), and
# a GET may carry any Content-Type: no route answers 415.
ANY_CONTENT_TYPE = ["*/*"]


def create_app(name: str, *blueprints: Blueprint, cors: bool = True) -> Chalice:
    """A Chalice app with the platform's error format, body limit and request log."""
    app = Chalice(app_name=name)
    logger = get_logger(name)
    if cors:
        app.api.cors = CORSConfig(allow_origin=config.cors_allow_origin(),
                                  allow_headers=["Authorization", "Content-Type"],
                                  max_age=600)

    @app.middleware("http")
    def platform_http(request, get_response):
        started = time.perf_counter()
        try:
            _check_body_size(request)
            response = _in_platform_format(get_response(request))
        except ApiError as err:
            response = err.to_response()
        except Exception:
            logger.exception("unhandled error", extra={"path": request.path})
            response = internal_error().to_response()
        if cors:
            # Chalice adds CORS headers only to responses its view returned normally.
            response.headers.setdefault("Access-Control-Allow-Origin",
                                        config.cors_allow_origin())
        logger.info("request", extra={
            "method": request.method, "path": request.context.get("path", request.path),
            "status": response.status_code,
            "duration_ms": round((time.perf_counter() - started) * 1000, 2)})
        return response

    for blueprint in blueprints:
        app.register_blueprint(blueprint)
    for methods in app.routes.values():
        for route in methods.values():
            route.content_types = ANY_CONTENT_TYPE
            route.view_function = _errors_as_api_errors(route.view_function, logger)
    return app


def _errors_as_api_errors(view, logger):
    """Chalice answers a view's unexpected exception itself, before middleware sees it;
    re-raised as an ApiError it gets the platform's error body instead."""

    @functools.wraps(view)
    def guarded(**kwargs):
        try:
            return view(**kwargs)
        except ApiError:
            raise
        except Exception:
            logger.exception("unhandled error in view", extra={"view": view.__name__})
            raise internal_error() from None

    return guarded


def _in_platform_format(response: Response) -> Response:
    body = response.body
    if response.status_code >= 400 and isinstance(body, dict) and "Code" in body:
        code = _CHALICE_CODES.get(body["Code"], "ERROR")
        error = ApiError(response.status_code, code, body.get("Message") or code,
                         headers=response.headers)
        return error.to_response()
    return response


def _check_body_size(request) -> None:
    body = request.raw_body
    if body and len(body) > jsonio.MAX_BODY_BYTES:
        raise ApiError(413, "PAYLOAD_TOO_LARGE",
                       f"The body is larger than {jsonio.MAX_BODY_BYTES} bytes")


def json_object(request) -> dict:
    """The request body as a JSON object, or a 400 that says what is wrong with it."""
    try:
        body = jsonio.loads(request.raw_body)
    except jsonio.InvalidJson as exc:
        raise ApiError(400, "INVALID_JSON", str(exc).capitalize()) from None
    if not isinstance(body, dict):
        raise ApiError(400, "INVALID_JSON", "The body must be a JSON object")
    return body


def path_id(raw: str) -> int | None:
    """A numeric path id; None when it is a number that no entity can have (-> 404).

    Non-numeric text is the client's mistake and gets a 400.
    """
    if not _NUMERIC_ID.fullmatch(raw):
        raise ApiError(400, "INVALID_ID", f"Id must be a number, got {raw!r}")
    if len(raw) > len(str(MAX_ID)):
        return None
    value = int(raw)
    return value if 0 < value <= MAX_ID else None


def query_param(request, name: str) -> str | None:
    return (request.query_params or {}).get(name)


def created(body) -> Response:
    return jsonio.response(body, 201)


def ok(body) -> Response:
    return jsonio.response(body, 200)


def no_content() -> Response:
    return Response(body="", status_code=204)
