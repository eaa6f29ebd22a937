"""The operator console (console/, docs/console.md), served by the local gateway at
`/console` without a token: the page is static; every API call it makes carries the
signed-in user's bearer token, and is answered by the gateway as any other.

Like /docs (infra/api_docs.py), these are pages of the local server, not Chalice
routes. On AWS the same files are served by CloudFront from S3 (infra/template.yaml,
the Console* resources).
"""

import json
from pathlib import Path

from infra.api_docs import Page

ROOT = Path(__file__).resolve().parents[2]
FILES = ROOT / "console"
PAGE_PATH = "/console"
CONFIG = "config.json"
CONTENT_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".json": "application/json",
    ".txt": "text/plain; charset=utf-8",  # a vendored library's license
}
# Nothing but this stack: its own scripts and styles, its own API (the same origin).
# No inline script or style, so an injected one would not run.
POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
    "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)
HEADERS = {
    "Content-Security-Policy": POLICY,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-cache",
}
# Locally the API is the page's own origin and a token is pasted: no user pool.
LOCAL_CONFIG = {"apiBaseUrl": "", "cognito": None}


def files() -> dict[str, Path]:
    """The console's files by their path under /console/ (what is deployed, too)."""
    return {
        path.relative_to(FILES).as_posix(): path
        for path in sorted(FILES.rglob("*"))
        if path.is_file() and path.suffix in CONTENT_TYPES
    }


def pages() -> dict[str, Page]:
    """Every path of the console, for the local gateway (ApiGateway's `pages`)."""
    served = {
        f"{PAGE_PATH}/{name}": Page(CONTENT_TYPES[path.suffix], path.read_bytes(), HEADERS)
        for name, path in files().items()
    }
    index = served[f"{PAGE_PATH}/index.html"]
    # The page at /console, and at /console/ for whoever types the slash; its files are
    # named from the root (/console/js/...), so either works.
    served[PAGE_PATH] = served[f"{PAGE_PATH}/"] = index
    served[f"{PAGE_PATH}/{CONFIG}"] = Page(
        CONTENT_TYPES[".json"], json.dumps(LOCAL_CONFIG).encode("utf-8"), HEADERS
    )
    return served
