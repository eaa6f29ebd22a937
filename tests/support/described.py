"""docs/openapi.yaml as schemathesis sees it, and the checks every answer is held to."""

import schemathesis
import yaml
from schemathesis.checks import (
    content_type_conformance,
    not_a_server_error,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from infra.api_docs import DOCUMENT

DESCRIBED = yaml.safe_load(DOCUMENT.read_text(encoding="utf-8"))


def load(config: dict | None = None):
    return schemathesis.openapi.from_dict(
        DESCRIBED, config=schemathesis.Config.from_dict(config or {})
    )


@schemathesis.check
def no_undocumented_server_error(ctx, response, case):
    """schemathesis's not_a_server_error, but for a 5xx the document promises for this
    operation (503 INVENTORY_UNAVAILABLE while the stock check's breaker is open)."""
    if str(response.status_code) in case.operation.responses.status_codes:
        return None
    return not_a_server_error(ctx, response, case)


# The status is one documented for the operation, and so are its Content-Type, headers
# (required ones present) and body; no 5xx but a documented one.
CHECKS = [
    no_undocumented_server_error,
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
]


def is_notification(path: str) -> bool:
    """The notification service's paths are the ones with a server of their own."""
    return "servers" in DESCRIBED["paths"][path]
