"""The apps of the local stack, in a process of their own: the notification service, the
Lambda invoke stand-in (which runs the order-events listener) and, for `make run`, the
gateway.

infra/local/stack.py starts this process and starts it again when the apps' code
changes; it keeps the data (the emulator) and the listening sockets, and hands the
sockets over, so the ports never change and a request that arrives during a restart
waits in the listen backlog instead of being refused. This process ends when told
(SIGTERM) or when the stack that started it is gone (its stdin closes), whichever
comes first; Ctrl-C is the stack's to handle.
"""

import argparse
import os
import signal
import socket
import sys
import threading

from aws_lambda_powertools.logging.utils import copy_config_to_registered_loggers

from app import create_gateway
from common.logs import get_logger
from common.settings import Settings
from infra.local import APPS_READY, console, docs
from infra.local.gateway import AppServer
from infra.local.invoke import LocalLambda
from infra.local.sweep import SweepTimer
from notifications.wiring import app_for as notification_app
from order_events.listener import SERVICE as ORDER_EVENTS
from order_events.listener import handler_for
from orders.sweep import Sweep


def _listening(fd: int) -> socket.socket:
    return socket.socket(fileno=fd)


def serve(args: argparse.Namespace) -> list:
    """Start every server on its handed-over socket; returns their stoppers."""
    settings = Settings.load()
    # The HTTP server's own warnings (a full task queue, say) as JSON lines too.
    copy_config_to_registered_loggers(source_logger=get_logger("local-http"),
                                      include={"waitress"})
    idle = args.idle_timeout
    invoker = LocalLambda({settings.order_events_function:
                           handler_for(settings, get_logger(ORDER_EVENTS))},
                          get_logger("local-lambda"), sock=_listening(args.lambda_fd))
    stoppers = [invoker.server.start().stop]
    notifications = AppServer(idle_timeout=idle, sock=_listening(args.notifications_fd))
    stoppers.append(notifications.serve(notification_app(settings)).stop)
    if args.gateway_fd is not None:
        gateway = AppServer(idle_timeout=idle, sock=_listening(args.gateway_fd))
        stoppers.append(gateway.serve(create_gateway(settings),
                                      {**docs.pages(gateway.url, notifications.url),
                                       **console.pages()}).stop)
        # The orders' events left pending (their publish failed) go out, as on AWS.
        sweep_logger = get_logger("event-sweep")
        stoppers.append(SweepTimer(Sweep(settings, sweep_logger), sweep_logger).start().stop)
    return stoppers


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for name in ("lambda", "notifications", "gateway"):
        parser.add_argument(f"--{name}-fd", type=int, required=name != "gateway")
    parser.add_argument("--ready-fd", type=int, required=True)
    parser.add_argument("--idle-timeout", type=int, required=True)
    args = parser.parse_args(argv)

    stop = threading.Event()
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, lambda *_: stop.set())

    def stop_when_the_stack_is_gone():
        # Unbuffered: a buffered reader's lock would still be held at interpreter exit.
        while os.read(sys.stdin.fileno(), 4096):
            pass  # end of file: the stack closed it, or died
        stop.set()

    threading.Thread(target=stop_when_the_stack_is_gone, daemon=True).start()
    stoppers = serve(args)
    os.write(args.ready_fd, APPS_READY)
    os.close(args.ready_fd)
    stop.wait()
    for stopper in reversed(stoppers):
        stopper()


if __name__ == "__main__":
    main(sys.argv[1:])
