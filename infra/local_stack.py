"""`make run`: the whole platform on 127.0.0.1, the way the cloud wires it.

One process holds the DynamoDB emulator (tables from template.yaml), the local Lambda
invoke endpoint (order events), the gateway (app.py under Chalice's local server with
API Gateway's 401) and the notification service on its own port. Ctrl-C or SIGTERM
stops all of it.
"""

import os
import signal
import sys
import threading
from dataclasses import dataclass, field

from chalice.config import Config
from chalice.local import ChaliceRequestHandler, LocalDevServer

from infra import template
from infra.emulator import Emulator
from infra.local_gateway import ApiGatewayRequestHandler, thread_safe
from infra.local_lambda import LocalLambda

DEFAULT_GATEWAY_PORT = 8000
DEFAULT_NOTIFICATION_PORT = 8001
# Dummy credentials and a region: boto must never go looking for real AWS ones here.
LOCAL_AWS_ENV = {"AWS_ACCESS_KEY_ID": "local", "AWS_SECRET_ACCESS_KEY": "local",
                 "AWS_SESSION_TOKEN": "local", "AWS_DEFAULT_REGION": "us-east-1"}


def _port(name: str, default: int) -> int:
    raw = os.environ.get(name, "").strip() or str(default)
    if not raw.isdigit() or int(raw) > 65535:
        sys.exit(f"{name}={raw!r} is not a TCP port (0 picks a free one)")
    return int(raw)


def serve(app, port: int, handler_cls=ApiGatewayRequestHandler) -> LocalDevServer:
    """Serve a Chalice app on 127.0.0.1:port (0: any free port) from a daemon thread."""
    config = Config.create(chalice_stage="local", app_name=app.app_name)
    server = LocalDevServer(thread_safe(app), config, "127.0.0.1", port, handler_cls=handler_cls)
    threading.Thread(target=server.server.serve_forever, kwargs={"poll_interval": 0.05},
                     name=app.app_name, daemon=True).start()
    return server


def stop_server(server: LocalDevServer) -> None:
    """Stop serving and release the port."""
    server.shutdown()
    server.server.server_close()


def server_url(server: LocalDevServer) -> str:
    host, port = server.server.server_address[:2]
    return f"http://{host}:{port}"


@dataclass
class LocalStack:
    gateway_port: int = DEFAULT_GATEWAY_PORT
    notification_port: int = DEFAULT_NOTIFICATION_PORT
    _stoppers: list = field(default_factory=list)

    def start(self) -> "LocalStack":
        for key, value in LOCAL_AWS_ENV.items():
            os.environ.setdefault(key, value)
        emulator = Emulator().start()
        self._stoppers.append(emulator.stop)
        os.environ["AWS_ENDPOINT_URL_DYNAMODB"] = emulator.url

        import boto3  # after the environment is set, so the client points at the emulator
        template.create_tables(boto3.client("dynamodb"))

        # Lambda's async invoke, for PedidoAprobadoEvent: same boto3 call as on AWS.
        from common import config
        from order_events.handler import handler as order_events_handler
        invoker = LocalLambda({config.order_events_function(): order_events_handler}).start()
        self._stoppers.append(invoker.stop)
        os.environ["AWS_ENDPOINT_URL_LAMBDA"] = invoker.url

        # The notification service first: its URL is the default forwarding target.
        from notifications.lambda_app import app as notification_app
        notifications = serve(notification_app, self.notification_port, ChaliceRequestHandler)
        self._stoppers.append(lambda: stop_server(notifications))
        self.notification_url = server_url(notifications)
        os.environ.setdefault("NOTIFICATION_SERVICE_URL", self.notification_url)

        from app import app as gateway_app
        gateway = serve(gateway_app, self.gateway_port, ApiGatewayRequestHandler)
        self._stoppers.append(lambda: stop_server(gateway))
        self.gateway_url = server_url(gateway)
        # "The gateway the request came in on", fixed here rather than read from the
        # client's Host header on every order.
        os.environ.setdefault("INVENTORY_SERVICE_URL", self.gateway_url)
        return self

    def stop(self) -> None:
        while self._stoppers:
            self._stoppers.pop()()


def main() -> None:
    from infra.local_token import local_token

    stack = LocalStack(_port("GATEWAY_PORT", DEFAULT_GATEWAY_PORT),
                       _port("NOTIFICATION_PORT", DEFAULT_NOTIFICATION_PORT))
    try:
        stack.start()
    except OSError as exc:
        stack.stop()
        sys.exit(f"Could not start the local stack: {exc}")
    stopped = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stopped.set())
    token = local_token()
    print(f"Gateway:       {stack.gateway_url}  (e.g. {stack.gateway_url}/api/inventario)")
    print(f"Notifications: {stack.notification_url}/notificaciones")
    print(f"Token:         {token}")
    print(f'Try:           curl -H "Authorization: Bearer {token}" '
          f"{stack.gateway_url}/api/inventario")
    print("Ready. Ctrl-C stops everything.", flush=True)
    stopped.wait()
    stack.stop()
    print("Stopped.", flush=True)


if __name__ == "__main__":
    main()
