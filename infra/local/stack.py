"""`make run`: the whole platform on 127.0.0.1, the way the cloud wires it.

One process holds the DynamoDB emulator (tables from template.yaml), the local Lambda
invoke endpoint (order events), the gateway (app.py with API Gateway's 401) and the
notification service on its own port. Settings are read and checked once, at start: a
bad value stops it there. Ctrl-C or SIGTERM stops all of it.
"""

import os
import signal
import sys
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field

from common.settings import ConfigError, Env, Settings, stop_process

DEFAULT_GATEWAY_PORT = 8000
DEFAULT_NOTIFICATION_PORT = 8001
# Dummy credentials and a region: boto must never go looking for real AWS ones here.
LOCAL_AWS_ENV = {"AWS_ACCESS_KEY_ID": "local", "AWS_SECRET_ACCESS_KEY": "local",
                 "AWS_SESSION_TOKEN": "local", "AWS_DEFAULT_REGION": "us-east-1"}


@dataclass(frozen=True)
class Ports:
    gateway: int = DEFAULT_GATEWAY_PORT
    notifications: int = DEFAULT_NOTIFICATION_PORT

    @classmethod
    def from_env(cls, env: Mapping[str, str] = os.environ) -> "Ports":
        read = Env(env)

        def port(name: str, default: int) -> int:
            value = read.number(name, default, minimum=0, kind=int)
            if value > 65535:
                read.fail(name, "a TCP port, 0-65535 (0 picks a free one)")
            return value

        return cls(port("GATEWAY_PORT", DEFAULT_GATEWAY_PORT),
                   port("NOTIFICATION_PORT", DEFAULT_NOTIFICATION_PORT))


@dataclass
class LocalStack:
    ports: Ports = field(default_factory=Ports)
    _stoppers: list = field(default_factory=list)

    def start(self) -> "LocalStack":
        """Start the emulators, then read the settings (which now point at them), then
        the apps. Raises ConfigError, before starting anything, for an unusable setting."""
        for key, value in LOCAL_AWS_ENV.items():
            os.environ.setdefault(key, value)
        Settings.from_env()  # every value checked before anything starts
        from infra import template
        from infra.local.emulator import emulator

        dynamodb = emulator().start()
        self._stoppers.append(dynamodb.stop)
        os.environ["AWS_ENDPOINT_URL_DYNAMODB"] = dynamodb.url
        import boto3  # after the environment is set, so the client points at the emulator

        template.create_tables(boto3.client("dynamodb"))

        # Both ports first: unless told otherwise, order events go to the local
        # notification service, and the stock check to the gateway's own address.
        gateway = self._bind(self.ports.gateway)
        notifications = self._bind(self.ports.notifications)
        os.environ.setdefault("NOTIFICATION_SERVICE_URL", notifications.url)
        os.environ.setdefault("INVENTORY_SERVICE_URL", gateway.url)
        settings = Settings.from_env()

        # Lambda's async invoke, for PedidoAprobadoEvent: same boto3 call as on AWS.
        from common.logs import get_logger
        from infra.local.invoke import LocalLambda
        from order_events.listener import SERVICE as ORDER_EVENTS
        from order_events.listener import handler_for

        invoker = LocalLambda({settings.order_events_function:
                               handler_for(settings, get_logger(ORDER_EVENTS))},
                              get_logger("local-lambda"))
        self._stoppers.append(invoker.server.start().stop)
        os.environ["AWS_ENDPOINT_URL_LAMBDA"] = invoker.server.url

        from app import create_gateway
        from notifications.wiring import app_for as notification_app

        self._serve(notifications, notification_app(settings))
        self._serve(gateway, create_gateway(settings))
        self.gateway_url, self.notification_url = gateway.url, notifications.url
        self.settings = settings
        return self

    def _bind(self, port: int):
        from infra.local.gateway import AppServer

        server = AppServer(port)
        self._stoppers.append(server.close)
        return server

    def _serve(self, server, app) -> None:
        self._stoppers.remove(server.close)
        self._stoppers.append(server.serve(app).stop)

    def stop(self) -> None:
        while self._stoppers:
            self._stoppers.pop()()


def main() -> None:
    from infra.local.tokens import local_token

    try:
        stack = LocalStack(Ports.from_env())
        stack.start()
    except ConfigError as exc:
        stop_process(exc)
    except OSError as exc:
        stack.stop()
        sys.exit(f"Could not start the local stack: {exc}")
    stopped = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stopped.set())
    token = local_token(stack.settings)
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
