"""The API described, served by the local gateway (infra/local/api_gateway.py):
`/openapi.json` and a page at `/docs`; no emulation of AWS, so not in infra/local.

They are pages of the local server, not Chalice routes: the deployed API does not serve
them, and the template's API events stay exactly the Chalice routes. The page is
Swagger UI as Powertools bundles it (a runtime dependency already), served from here, so
it works offline; its Content-Security-Policy lets the browser load nothing from anywhere
else.
"""

import importlib.util
import json
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from infra.local.settings import DEFAULT_PORTS

ROOT = Path(__file__).resolve().parents[1]
DOCUMENT = ROOT / "docs" / "openapi.yaml"
SPEC_PATH = "/openapi.json"
PAGE_PATH = "/docs"
ASSETS_PATH = "/docs/assets/"
# The Swagger UI files the page uses, by the names Powertools gives them (its Swagger UI
# 5 renders OpenAPI 3.1).
ASSETS = {
    "swagger-ui.min.css": "text/css; charset=utf-8",
    "swagger-ui-bundle.min.js": "text/javascript; charset=utf-8",
}
# validatorUrl: Swagger UI's default would send the document to an online validator.
INITIALIZER = f"""window.ui = SwaggerUIBundle({{
  url: "{SPEC_PATH}",
  dom_id: "#swagger-ui",
  deepLinking: true,
  persistAuthorization: true,
  validatorUrl: null,
}});
"""
PAGE = f"""<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Logistics platform API</title>
  <link rel="stylesheet" href="{ASSETS_PATH}swagger-ui.min.css">
  <!-- An empty icon, inline: the browser asks the gateway for no /favicon.ico. -->
  <link rel="icon" href="data:,">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="{ASSETS_PATH}swagger-ui-bundle.min.js"></script>
  <script src="{ASSETS_PATH}init.js"></script>
</body>
</html>
"""


@dataclass(frozen=True)
class Page:
    content_type: str
    body: bytes
    headers: dict = field(default_factory=dict)


def document(gateway_url: str, notification_url: str) -> dict:
    """docs/openapi.yaml, with its local servers set to this stack's addresses (free
    ports in tests), so "Try it out" and an imported collection reach this stack."""
    described = yaml.safe_load(DOCUMENT.read_text(encoding="utf-8"))
    # The document's local servers are the default ports' (the root's path is on both).
    here = {
        f"http://127.0.0.1:{DEFAULT_PORTS['GATEWAY_PORT']}": gateway_url,
        f"http://127.0.0.1:{DEFAULT_PORTS['NOTIFICATION_PORT']}": notification_url,
    }

    def local(servers: list) -> list:  # new lists: YAML aliases share one between paths
        return [{**server, "url": here.get(server["url"], server["url"])} for server in servers]

    described["servers"] = local(described["servers"])
    for item in described["paths"].values():
        if "servers" in item:
            item["servers"] = local(item["servers"])
    return described


def _swagger_ui_assets() -> Path:
    # Located without importing Powertools' event handler, whose code this page does not use.
    spec = importlib.util.find_spec("aws_lambda_powertools")
    assert spec is not None and spec.submodule_search_locations  # a dependency, a package
    package = spec.submodule_search_locations[0]
    return Path(package) / "event_handler" / "openapi" / "swagger_ui"


def pages(gateway_url: str, notification_url: str) -> dict[str, Page]:
    """Every page the local gateway serves besides the API, by path."""
    # Only this stack: "Try it out" calls the document's local servers (the gateway by
    # its address, should the page be opened as localhost; the notification service,
    # which as deployed allows no other origin, so a browser will not let it answer).
    policy = (
        "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
        f"img-src 'self' data:; connect-src 'self' {gateway_url} {notification_url}; "
        "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    )
    html_headers = {"Content-Security-Policy": policy, "Cache-Control": "no-cache"}
    assets = _swagger_ui_assets()
    served = {
        SPEC_PATH: Page(
            "application/json",
            json.dumps(document(gateway_url, notification_url), ensure_ascii=False).encode("utf-8"),
            {"Cache-Control": "no-cache"},
        ),
        PAGE_PATH: Page("text/html; charset=utf-8", PAGE.encode("utf-8"), html_headers),
        f"{ASSETS_PATH}init.js": Page(
            "text/javascript; charset=utf-8", INITIALIZER.encode("utf-8")
        ),
    }
    for name, content_type in ASSETS.items():
        served[ASSETS_PATH + name] = Page(content_type, (assets / name).read_bytes())
    return served
