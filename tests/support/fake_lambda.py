"""Lambda's Invoke API in the test's own process, answered by callables of the test's:
for tests that run functions' code in-process and need to see what they invoke (an
order's event, say). The local stack runs the template's functions for real
(infra/local/lambdas.py).

An Event invocation is answered 202 at once and its handler runs on a background thread;
RequestResponse runs it and returns its result.
"""

import json
import socket
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import SimpleNamespace

from common.platform import jsonio
from common.stock.moves import BALANCE_ROUTE
from infra.local.lambdas import INVOKE_PATH
from infra.local.servers import BackgroundServer

# Lambda's default timeout for an async listener here (the template sets its own).
TIMEOUT_SECONDS = 10


def empty_inventory(event: dict, context) -> dict:
    """The inventory function's internal routes as they answer a stack that holds no
    reservation: what the stock repair asks at init and on each run."""
    if event["resource"] == "/internal/reservas":  # the reservations holding units
        return {"statusCode": 200, "body": json.dumps({"reservas": [], "siguiente": None})}
    if event["resource"] == BALANCE_ROUTE:  # a slice of the catalog checked: nothing in it
        return {"statusCode": 200, "body": json.dumps({"hallazgos": [], "siguiente": None})}
    return {"statusCode": 404, "body": json.dumps({"error": "RESERVATION_NOT_FOUND"})}


def lambda_context(function_name: str) -> SimpleNamespace:
    """What a handler reads of Lambda's context object, for one invocation."""
    deadline = time.monotonic() + TIMEOUT_SECONDS
    return SimpleNamespace(
        function_name=function_name,
        memory_limit_in_mb=128,
        aws_request_id=str(uuid.uuid4()),
        invoked_function_arn=f"arn:aws:lambda:local:000000000000:function:{function_name}",
        get_remaining_time_in_millis=lambda: max(0, int((deadline - time.monotonic()) * 1000)),
    )


class LocalLambda:
    def __init__(self, handlers: dict, logger, port: int = 0, sock: socket.socket | None = None):
        """Listens on 127.0.0.1:`port`, or on `sock`, a listening socket handed over."""
        self.handlers = handlers
        self._logger = logger
        self._pool = ThreadPoolExecutor(max_workers=4, thread_name_prefix="lambda-async")
        server = ThreadingHTTPServer(
            ("127.0.0.1", port), self._handler_class(), bind_and_activate=sock is None
        )
        if sock is not None:
            server.socket.close()
            server.socket, server.server_address = sock, sock.getsockname()
        server.daemon_threads = True
        self.server = BackgroundServer.of(
            server, "local-lambda", on_stop=lambda: self._pool.shutdown(wait=True)
        )

    def run(self, name: str, event) -> object:
        return self.handlers[name](event, lambda_context(name))

    def _run_in_background(self, name: str, event) -> None:
        def invoke():
            try:
                self.run(name, event)
            except Exception:
                # Lambda would retry and then hand the event to the on-failure destination.
                self._logger.exception("async invocation failed", extra={"function": name})

        self._pool.submit(invoke)

    def _handler_class(self):
        lam = self

        class InvokeHandler(BaseHTTPRequestHandler):
            def do_POST(self):
                match = INVOKE_PATH.match(self.path.split("?")[0])
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b"{}"
                name = match and match["name"]
                if name not in lam.handlers:
                    self._send(
                        404,
                        {"Type": "User", "Message": f"Function not found: {name}"},
                        {"x-amzn-ErrorType": "ResourceNotFoundException"},
                    )
                    return
                invocation_type = self.headers.get("X-Amz-Invocation-Type")
                if invocation_type == "DryRun":
                    # Lambda checks the caller may invoke and runs nothing: cold-start priming.
                    self._send(204, None)
                    return
                event = jsonio.loads(raw)
                if invocation_type == "Event":
                    lam._run_in_background(name, event)
                    self._send(202, None)
                else:
                    self._send(200, lam.run(name, event))

            def _send(self, status, body, headers=None):
                data = b"" if body is None else json.dumps(body, default=str).encode()
                self.send_response(status)
                for key, value in (headers or {}).items():
                    self.send_header(key, value)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args):
                pass

        return InvokeHandler
