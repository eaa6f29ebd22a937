"""`make run`: the whole platform on 127.0.0.1, the way the cloud wires it.

One process holds the DynamoDB emulator (tables from template.yaml), the local Lambda
invoke endpoint (order events), the gateway (app.py with API Gateway's 401, plus the
API's description at /openapi.json and /docs) and the notification service on its own
port. Settings are read and checked once, at start: a
bad value stops it there. Ctrl-C or SIGTERM stops all of it.
"""

import os
import signal
import sys
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field

import boto3
from aws_lambda_powertools.logging.utils import copy_config_to_registered_loggers

from app import create_gateway
from common.logs import get_logger
from common.settings import ConfigError, Env, Settings, stop_process
from infra import template
from infra.local import LOCAL_AWS_ENV, docs
from infra.local.emulator import emulator
from infra.local.gateway import DEFAULT_IDLE_TIMEOUT_SECONDS, AppServer
from infra.local.invoke import LocalLambda
from infra.local.tokens import local_token
from notifications.wiring import app_for as notification_app
from order_events.listener import SERVICE as ORDER_EVENTS
from order_events.listener import handler_for

DEFAULT_GATEWAY_PORT = 8000
DEFAULT_NOTIFICATION_PORT = 8001


@dataclass(frozen=True)
class LocalSettings:
    """What only the local stack reads: where it listens and how long it waits."""

    gateway_port: int = DEFAULT_GATEWAY_PORT
    notification_port: int = DEFAULT_NOTIFICATION_PORT
    idle_timeout_seconds: int = DEFAULT_IDLE_TIMEOUT_SECONDS

    @classmethod
    def from_env(cls, env: Mapping[str, str] = os.environ) -> "LocalSettings":
        read = Env(env)

        def port(name: str, default: int) -> int:
            value = read.number(name, default, minimum=0, kind=int)
            if value > 65535:
                read.fail(name, "a TCP port, 0-65535 (0 picks a free one)")
            return value

        return cls(port("GATEWAY_PORT", DEFAULT_GATEWAY_PORT),
                   port("NOTIFICATION_PORT", DEFAULT_NOTIFICATION_PORT),
                   read.number("HTTP_IDLE_TIMEOUT_SECONDS", DEFAULT_IDLE_TIMEOUT_SECONDS,
                               minimum=1, kind=int))


@dataclass
class LocalStack:
    local: LocalSettings = field(default_factory=LocalSettings)
    _stoppers: list = field(default_factory=list)

    def start(self) -> "LocalStack":
        """Start the emulators, then read the settings (which now point at them), then
        the apps. Raises ConfigError, before starting anything, for an unusable setting."""
        for key, value in LOCAL_AWS_ENV.items():
            os.environ.setdefault(key, value)
        Settings.from_env()  # every value checked before anything starts
        # The HTTP server's own warnings (a full task queue, say) as JSON lines too.
        copy_config_to_registered_loggers(source_logger=get_logger("local-http"),
                                          include={"waitress"})
        dynamodb = emulator().start()
        self._stoppers.append(dynamodb.stop)
        os.environ["AWS_ENDPOINT_URL_DYNAMODB"] = dynamodb.url  # before any client exists
        template.create_tables(boto3.client("dynamodb"))

        # Both ports first: unless told otherwise, order events go to the local
        # notification service, and the stock check to the gateway's own address.
        gateway = self._bind(self.local.gateway_port)
        notifications = self._bind(self.local.notification_port)
        os.environ.setdefault("NOTIFICATION_SERVICE_URL", notifications.url)
        os.environ.setdefault("INVENTORY_SERVICE_URL", gateway.url)
        settings = Settings.from_env()

        # Lambda's async invoke, for PedidoAprobadoEvent: same boto3 call as on AWS.
        invoker = LocalLambda({settings.order_events_function:
                               handler_for(settings, get_logger(ORDER_EVENTS))},
                              get_logger("local-lambda"))
        self._stoppers.append(invoker.server.start().stop)
        os.environ["AWS_ENDPOINT_URL_LAMBDA"] = invoker.server.url

        self._serve(notifications, notification_app(settings))
        self._serve(gateway, create_gateway(settings), docs.pages(gateway.url, notifications.url))
        self.gateway_url, self.notification_url = gateway.url, notifications.url
        self.settings = settings
        return self

    def _bind(self, port: int):
        server = AppServer(port, self.local.idle_timeout_seconds)
        self._stoppers.append(server.close)
        return server

    def _serve(self, server, app, pages=None) -> None:
        self._stoppers.remove(server.close)
        self._stoppers.append(server.serve(app, pages).stop)

    def stop(self) -> None:
        while self._stoppers:
            self._stoppers.pop()()


def main() -> None:
    try:
        stack = LocalStack(LocalSettings.from_env())
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
    print(f"Docs:          {stack.gateway_url}{docs.PAGE_PATH}  "
          f"(the OpenAPI document: {stack.gateway_url}{docs.SPEC_PATH})")
    print(f"Token:         {token}")
    print(f'Try:           curl -H "Authorization: Bearer {token}" '
          f"{stack.gateway_url}/api/inventario")
    print("Ready. Ctrl-C stops everything.", flush=True)
    stopped.wait()
    stack.stop()
    print("Stopped.", flush=True)


if __name__ == "__main__":
    main()
