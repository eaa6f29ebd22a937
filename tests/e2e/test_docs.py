"""The API described by the local gateway: `/openapi.json` and the `/docs` page, without a
token, and a page that works offline: everything it loads comes from the stack itself."""

import re
from html.parser import HTMLParser
from urllib.parse import urljoin, urlsplit

import pytest
import requests
import yaml

from infra.api_docs import DOCUMENT


class References(HTMLParser):
    """Every URL a page makes a browser load: scripts, stylesheets, icons, images."""

    def __init__(self):
        super().__init__()
        self.urls: list[str] = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag in ("script", "img", "iframe") and attrs.get("src"):
            self.urls.append(attrs["src"])
        if tag == "link" and attrs.get("href"):
            self.urls.append(attrs["href"])


def get(url: str) -> requests.Response:
    # No Authorization header: the docs are open.
    response = requests.get(url, timeout=30)
    assert response.status_code == 200, (url, response.status_code, response.text[:200])
    return response


def local(stack, url: str) -> bool:
    parts, gateway = urlsplit(url), urlsplit(stack.gateway)
    return (parts.scheme, parts.hostname, parts.port) == ("http", "127.0.0.1", gateway.port)


def test_make_run_prints_the_docs_url(stack):
    assert stack.docs == f"{stack.gateway}/docs"


def test_the_document_is_served_as_json_with_this_stacks_servers(stack):
    response = get(f"{stack.gateway}/openapi.json")
    assert response.headers["Content-Type"].startswith("application/json")
    served = response.json()
    expected = yaml.safe_load(DOCUMENT.read_text(encoding="utf-8"))
    # The local servers are this stack's addresses (free ports here); nothing else moves.
    assert served["servers"][0]["url"] == stack.gateway
    assert served["servers"][1:] == expected["servers"][1:]
    for path in ("/notificaciones", "/notificaciones/health"):
        assert served["paths"][path]["servers"][0]["url"] == stack.notifications
        assert served["paths"][path]["servers"][1:] == expected["paths"][path]["servers"][1:]
        served["paths"][path].pop("servers")
        expected["paths"][path].pop("servers")
    # The root is on both APIs: both local servers are this stack's.
    root = [server["url"] for server in served["paths"]["/"].pop("servers")]
    assert root[:2] == [stack.gateway, stack.notifications]
    assert root[2:] == [server["url"] for server in expected["paths"]["/"].pop("servers")][2:]
    served.pop("servers")
    expected.pop("servers")
    assert served == expected


def test_the_docs_page_loads_everything_from_the_local_server_alone(stack):
    page = get(stack.docs)
    assert page.headers["Content-Type"].startswith("text/html")
    # The browser itself is told to load nothing from anywhere else.
    policy = page.headers["Content-Security-Policy"]
    assert "default-src 'none'" in policy and "script-src 'self';" in policy
    parser = References()
    parser.feed(page.text)
    scripts = [url for url in parser.urls if url.endswith(".js")]
    styles = [url for url in parser.urls if url.endswith(".css")]
    assert scripts and styles
    loaded = {}
    for reference in parser.urls:
        if reference.startswith("data:"):  # inline (the empty icon): nothing is fetched
            continue
        url = urljoin(stack.docs, reference)
        assert local(stack, url), f"{reference} leaves 127.0.0.1"
        loaded[reference] = get(url)
    # Swagger UI itself (Powertools' copy), which defines what the page's script calls.
    (bundle,) = [ref for ref in scripts if "swagger-ui" in ref]
    assert "SwaggerUIBundle" in loaded[bundle].text
    # The page's own script names the document it renders, on this server too.
    initializers = [ref for ref in scripts if "swagger-ui" not in ref]
    (spec,) = re.findall(r'url:\s*"([^"]+)"', loaded[initializers[0]].text)
    spec_url = urljoin(stack.docs, spec)
    assert local(stack, spec_url)
    assert get(spec_url).json()["openapi"].startswith("3.1.")
    # Swagger UI would otherwise send the document to an online validator.
    assert "validatorUrl: null" in loaded[initializers[0]].text
    for style in styles:
        assert not re.search(r"url\(\s*['\"]?(https?:)?//", loaded[style].text), style


def test_a_docs_request_is_logged_like_any_other(stack):
    get(f"{stack.gateway}/openapi.json?from=test")
    stack.wait_for_line(lambda line: '"path":"/openapi.json"' in line and '"status":200' in line)


@pytest.mark.parametrize("method", ["POST", "PUT", "DELETE"])
def test_the_docs_only_answer_get_and_head(stack, method):
    response = requests.request(method, f"{stack.gateway}/docs", timeout=30)
    assert response.status_code == 405
    assert response.json()["error"] == "METHOD_NOT_ALLOWED"
    assert response.headers["Allow"] == "GET, HEAD"


def test_the_docs_are_not_on_the_notification_service(stack):
    response = requests.get(f"{stack.notifications}/docs", timeout=30)
    assert response.status_code == 403
