"""`make webhook-receiver`: a webhook endpoint on this machine that prints every delivery
it receives, with its signature checked, so a developer sees the flow end to end.

    make webhook-receiver                          # on 127.0.0.1:9000, answering 200
    make webhook-receiver SECRET=whsec_...         # and each signature checked with it
    make webhook-receiver STATUS=500               # every delivery fails: see the retries
    make webhook-receiver STATUS=410 PORT=9001     # the endpoint turns itself off

Subscribe it with the command it prints (`POST /api/webhooks`); the answer holds the
secret to give it. The check is the one docs/api.md gives integrators: HMAC-SHA256 over
"{webhook-id}.{webhook-timestamp}.{body}" keyed with the secret's bytes after `whsec_`,
against each `v1,` signature of `webhook-signature`, and a timestamp within 5 minutes.
"""

import argparse
import base64
import hashlib
import hmac
import json
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

EVENT_TYPES = "pedido.creado pedido.estado envio.creado envio.estado inventario.stock_bajo"
TOLERANCE_SECONDS = 300
MAX_BODY_BYTES = 1024 * 1024


def verify(secret: str, headers: dict[str, str], body: bytes, now: float) -> bool:
    """Standard Webhooks' check (docs/api.md#verifying-a-delivery)."""
    key = base64.b64decode(secret.removeprefix("whsec_"))
    message_id, timestamp = headers["webhook-id"], headers["webhook-timestamp"]
    if abs(now - int(timestamp)) > TOLERANCE_SECONDS:
        return False
    signed = f"{message_id}.{timestamp}.".encode() + body
    expected = base64.b64encode(hmac.new(key, signed, hashlib.sha256).digest()).decode()
    return any(
        hmac.compare_digest(expected, signature.removeprefix("v1,"))
        for signature in headers["webhook-signature"].split()
        if signature.startswith("v1,")
    )


def verdict(secret: str | None, headers: dict[str, str], body: bytes) -> str:
    if not {"webhook-id", "webhook-timestamp", "webhook-signature"} <= set(headers):
        return "NOT SIGNED (no Standard Webhooks headers)"
    if secret is None:
        return "not checked (give SECRET=whsec_... to check it)"
    try:
        valid = verify(secret, headers, body, time.time())
    except (ValueError, TypeError):
        return "INVALID (a malformed header, or not the secret's format)"
    signatures = len(headers["webhook-signature"].split())
    return f"valid ({signatures} signature{'s' if signatures > 1 else ''})" if valid else "INVALID"


def handler(secret: str | None, status: int) -> type[BaseHTTPRequestHandler]:
    class Receive(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 - http.server's name
            length = min(int(self.headers.get("Content-Length") or 0), MAX_BODY_BYTES)
            body = self.rfile.read(length)
            headers = {name.lower(): value for name, value in self.headers.items()}
            self.send_response(status)
            self.send_header("Content-Length", "0")
            self.end_headers()
            _print(headers, body, verdict(secret, headers, body), status)

        def log_message(self, *args: object) -> None:
            pass

    return Receive


def _print(headers: dict[str, str], body: bytes, checked: str, status: int) -> None:
    try:
        event = json.loads(body)
        kind, shown = event.get("type", "?"), json.dumps(event, ensure_ascii=False, indent=2)
    except ValueError:
        kind, shown = "?", body.decode("utf-8", "replace")
    print(
        f"{time.strftime('%H:%M:%S')}  {kind}  webhook-id {headers.get('webhook-id', '-')}  "
        f"signature: {checked}  -> answered {status}\n{shown}\n",
        flush=True,
    )


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(prog="make webhook-receiver", description=__doc__)
    parser.add_argument("--port", type=int, default=9000)
    parser.add_argument("--secret", help="whsec_...: check each signature with it")
    parser.add_argument("--status", type=int, default=200, help="what every delivery gets")
    args = parser.parse_args(argv)
    if args.secret is not None and not args.secret.startswith("whsec_"):
        sys.exit("SECRET must be the whsec_... secret the endpoint's create answered")
    try:
        server = ThreadingHTTPServer(("127.0.0.1", args.port), handler(args.secret, args.status))
    except OSError as exc:
        sys.exit(f"PORT={args.port}: cannot listen there ({exc.strerror}); try another PORT=")
    url = f"http://127.0.0.1:{server.server_address[1]}/"
    subscribe = json.dumps({"url": url, "eventos": EVENT_TYPES.split()})
    print(
        f"Receiving webhooks on {url}, answering {args.status}. Ctrl-C stops.\n"
        f'Subscribe it:  curl -H "Authorization: Bearer $(make -s token)" '
        f"localhost:8000/api/webhooks -d '{subscribe}'\n",
        flush=True,
    )
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


if __name__ == "__main__":
    main(sys.argv[1:])
