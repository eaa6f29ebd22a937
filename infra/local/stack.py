"""`make run` and `make emulators`: the platform on 127.0.0.1, the way the cloud wires it.

This process holds what must outlive a code change: the DynamoDB emulator (tables from
template.yaml, kept in LOCAL_DATA_DIR) and the listening socket of every server. The
apps (infra/local/apps.py: the gateway with the API's description at /openapi.json and
/docs, the notification service, the Lambda invoke stand-in that runs the order-events
listener) run in a child process, started again on the same sockets when their code
changes (RELOAD=1); the data is never reloaded.

`make emulators` (`--emulators`) is the same without the gateway, for `chalice local
--stage local`, whose stage in .chalice/config.json points at these fixed ports.

Settings are read and checked once, at start: a bad value stops it there, before
anything starts. Ctrl-C or SIGTERM stops all of it, the data saved.
"""

import os
import select
import signal
import socket
import subprocess
import sys
import threading
import time

import boto3

from common.logs import get_logger
from common.settings import ConfigError, Settings, stop_process
from infra import template
from infra.local import APPS_READY, LOCAL_AWS_ENV, console, docs
from infra.local.emulator import emulator
from infra.local.persistence import DataDir, DataError
from infra.local.reload import POLL_SECONDS, WATCHED, CodeWatcher
from infra.local.settings import ROOT, LocalSettings
from infra.local.tokens import local_token

# Saved before each id is answered (infra/local/persistence.py): the counters' table.
WRITE_THROUGH = {"CountersTable"}
APPS_START_SECONDS = 60
APPS_STOP_SECONDS = 15


class AppsFailed(RuntimeError):
    """The apps' process ended before it was serving."""


class LocalStack:
    def __init__(self, local: LocalSettings, with_gateway: bool = True):
        self.local = local
        self.with_gateway = with_gateway
        self.data: DataDir | None = None
        self.restored = 0
        self.apps: subprocess.Popen | None = None
        self._sockets: dict[str, socket.socket] = {}
        self._stoppers: list = []

    def start(self) -> "LocalStack":
        """Raises ConfigError before starting anything for an unusable setting, DataError
        for data that cannot be used, OSError for a port in use, AppsFailed."""
        for key, value in LOCAL_AWS_ENV.items():
            os.environ.setdefault(key, value)
        region = Settings.from_env().region  # every value checked before anything starts
        if self.local.data_dir is not None:
            self.data = DataDir(self.local.data_dir).hold()
            self._stoppers.append(self.data.release)
        port = self.local.dynamodb_port
        dynamodb = self._bound("DYNAMODB_PORT", port, lambda: emulator(port)).start()
        self._stoppers.append(dynamodb.stop)
        os.environ["AWS_ENDPOINT_URL_DYNAMODB"] = dynamodb.url  # before any client exists
        template.create_tables(boto3.client("dynamodb"))
        if self.data is not None:
            self.restored = dynamodb.keep_in(self.data, region, WRITE_THROUGH)

        self.dynamodb_url = dynamodb.url
        self.lambda_url = self._listen("lambda", "LAMBDA_PORT", self.local.lambda_port)
        self.notification_url = self._listen("notifications", "NOTIFICATION_PORT",
                                             self.local.notification_port)
        # Unless told otherwise, order events go to the local notification service, and
        # the stock check to the gateway's own address.
        os.environ["AWS_ENDPOINT_URL_LAMBDA"] = self.lambda_url
        os.environ.setdefault("NOTIFICATION_SERVICE_URL", self.notification_url)
        if self.with_gateway:
            self.gateway_url = self._listen("gateway", "GATEWAY_PORT", self.local.gateway_port)
            os.environ.setdefault("INVENTORY_SERVICE_URL", self.gateway_url)
        self.settings = Settings.from_env()
        self.apps = self._start_apps()
        return self

    @staticmethod
    def _bound(variable: str, port: int, bind):
        try:
            return bind()
        except OSError as exc:
            raise OSError(f"{variable}={port}: cannot listen there ({exc.strerror}); "
                          "is another make run or make emulators using it?") from None

    def _listen(self, name: str, variable: str, port: int) -> str:
        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._sockets[name] = sock  # closed by stop() whatever happens next
        self._bound(variable, port, lambda: sock.bind(("127.0.0.1", port)))
        sock.listen(1024)
        return f"http://127.0.0.1:{sock.getsockname()[1]}"

    # -- the apps' process ---------------------------------------------------------------

    def _start_apps(self) -> subprocess.Popen:
        ready, ready_there = os.pipe()
        command = [sys.executable, "-m", "infra.local.apps", "--ready-fd", str(ready_there),
                   "--idle-timeout", str(self.local.idle_timeout_seconds)]
        for name, sock in self._sockets.items():
            command += [f"--{name}-fd", str(sock.fileno())]
        # The code the watcher looks at is the code the apps import, whatever else the
        # interpreter's path holds.
        path = [str(ROOT), str(ROOT / "functions"), str(ROOT / "layers" / "common")]
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(
            path + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p])}
        handed = (ready_there, *(sock.fileno() for sock in self._sockets.values()))
        apps = subprocess.Popen(command, cwd=ROOT, env=env, stdin=subprocess.PIPE,
                                pass_fds=handed)
        os.close(ready_there)
        try:
            answered = b""
            deadline = time.monotonic() + APPS_START_SECONDS
            while APPS_READY not in answered and time.monotonic() < deadline:
                if select.select([ready], [], [], max(0.0, deadline - time.monotonic()))[0]:
                    chunk = os.read(ready, 64)
                    if not chunk:
                        break
                    answered += chunk
        finally:
            os.close(ready)
        if APPS_READY not in answered:
            self._stop_process(apps)
            raise AppsFailed(f"the apps did not start (exit status {apps.returncode})")
        return apps

    @staticmethod
    def _stop_process(apps: subprocess.Popen) -> None:
        if apps.poll() is None:
            apps.terminate()
            try:
                apps.wait(timeout=APPS_STOP_SECONDS)
            except subprocess.TimeoutExpired:
                apps.kill()
                apps.wait()
        if apps.stdin is not None:
            apps.stdin.close()

    def restart_apps(self) -> None:
        """The apps again, with the code as it is now; the data and the ports stay."""
        if self.apps is not None:
            self._stop_process(self.apps)
        self.apps = None
        self.apps = self._start_apps()

    def stop(self) -> None:
        """The apps first, so that nothing writes any more; then the emulator, whose last
        snapshot then holds every write that was answered."""
        if self.apps is not None:
            self._stop_process(self.apps)
            self.apps = None
        while self._sockets:
            self._sockets.popitem()[1].close()
        while self._stoppers:
            self._stoppers.pop()()


def _banner(stack: LocalStack) -> list[str]:
    lines = []
    if stack.with_gateway:
        url = stack.gateway_url
        lines += [f"Gateway:       {url}  (e.g. {url}/api/inventario)",
                  f"Notifications: {stack.notification_url}/notificaciones",
                  f"Docs:          {url}{docs.PAGE_PATH}  (the OpenAPI document: "
                  f"{url}{docs.SPEC_PATH})",
                  f"Console:       {url}{console.PAGE_PATH}  (sign in with the token below)"]
    else:
        lines += [f"Notifications: {stack.notification_url}/notificaciones",
                  "Gateway:       not served here: in another terminal run "
                  "`.venv/bin/chalice local --stage local`"]
    lines += [f"DynamoDB:      {stack.dynamodb_url}",
              f"Lambda:        {stack.lambda_url}  (runs the order-events listener)"]
    token = local_token(stack.settings)
    lines.append(f"Token:         {token}")
    if stack.with_gateway:
        lines.append(f'Try:           curl -H "Authorization: Bearer {token}" '
                     f"{stack.gateway_url}/api/inventario")
    if stack.data is None:
        lines.append("Data:          in memory only (LOCAL_DATA_DIR is empty): gone when "
                     "this stops")
    else:
        lines.append(f"Data:          {stack.data.path}  ({stack.restored} items restored; "
                     "kept across restarts, `make reset` empties it)")
    watched = ", ".join(f"{name}/" if "." not in name else name for name in WATCHED)
    lines.append(f"Reload:        on: a change under {watched} restarts the apps, not the "
                 "data (RELOAD=0 turns it off)" if stack.local.reload else "Reload:        off")
    return lines


def main(argv: list[str]) -> None:
    try:
        local = LocalSettings.from_env()
        stack = LocalStack(local, with_gateway=argv != ["--emulators"])
        stack.start()
    except ConfigError as exc:
        stop_process(exc)
    except (DataError, AppsFailed, OSError) as exc:
        stack.stop()
        sys.exit(f"Could not start the local stack: {exc}" if not isinstance(exc, DataError)
                 else str(exc))
    stopped = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stopped.set())
    print("\n".join(_banner(stack)))
    print("Ready. Ctrl-C stops everything.", flush=True)
    log = get_logger("local-stack")
    watcher = CodeWatcher(ROOT) if local.reload else None
    status = 0
    while not stopped.wait(POLL_SECONDS):
        changed = watcher.changed() if watcher else []
        if changed:
            log.info("code changed: restarting the apps", extra={"changed": changed})
            try:
                stack.restart_apps()
                log.info("apps restarted")
            except AppsFailed as exc:
                log.error(f"{exc}: fix the code, the next change tries again")
        elif stack.apps is not None and stack.apps.poll() is not None:
            log.error("the apps stopped", extra={"exit_status": stack.apps.returncode})
            stack.apps = None
            if watcher is None:
                status = 1
                break
    stack.stop()
    kept = f" The data is in {stack.data.path}." if stack.data is not None else ""
    print(f"Stopped.{kept}", flush=True)
    sys.exit(status)


if __name__ == "__main__":
    main(sys.argv[1:])
