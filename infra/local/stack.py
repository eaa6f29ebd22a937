"""The local stack: the template (infra/template.yaml) run on 127.0.0.1 the way AWS runs
it. `make run` and `make emulators` run it through infra/dev, which adds the product's
glue (the migrations of restored data, the banner, the code watcher).

- AWS's services: moto's DynamoDB, SQS and Cognito (tables, queues and the user pool from
  the template, kept in LOCAL_DATA_DIR), in a process of their own
  (infra/local/aws_process.py). The authorizer takes the pool's tokens (by its keys) and
  the tokens `make token` signs.
- Lambda: every function of the template in execution environments of its own (worker
  processes, one invocation at a time each; infra/local/lambdas.py), invoked through
  Lambda's Invoke API on LAMBDA_PORT, which the functions' own clients call (the stock
  check, a shipment's order lookup, the order event).
- API Gateway: each API of the template on its port (GatewayApi on GATEWAY_PORT,
  NotificationApi on NOTIFICATION_PORT), routing each request to its function and
  running the TOKEN authorizer as API Gateway does (infra/local/api_gateway.py).
- The schedules of the template's functions (the event sweep, the stock repair), locally
  every minute (LOCAL_SCHEDULE_SECONDS).

`make emulators` (`--emulators`) is the same without the gateway's HTTP server, for
`chalice local --stage local`, which serves the gateway app itself.

Settings are read and checked once, at start: a bad value stops it there, before anything
starts. Tokens are signed with JWT_SECRET, or a random key kept in LOCAL_DATA_DIR (one of
this start's alone, with the data in memory): infra/local/signing_key.py. The banner prints a
token, never the key. A code change replaces the environments of the functions whose code
changed (the data and the ports stay).
"""

import json
import os
import socket
import sys
import tempfile
import threading
from pathlib import Path

from common.platform.logs import get_logger
from common.platform.settings import AllSettings
from infra import api_docs, template
from infra.local import LOCAL_AWS_ENV, aws_client, event_sources
from infra.local.api_gateway import ApiGateway, api
from infra.local.aws_process import NO_HOOKS, Hooks
from infra.local.aws_watch import WAIT_SECONDS, WatchedAws
from infra.local.functions import FunctionSpec, functions
from infra.local.http_server import AppServer
from infra.local.lambdas import LambdaService, endpoint
from infra.local.persistence import DataDir
from infra.local.settings import (
    ROOT,
    LocalSettings,
    Throttle,
)
from infra.local.sign_in import CLIENT_NAME, POOL_NAME
from infra.local.signing_key import local_jwt_secret, new_key
from infra.local.throttle import TokenBucket

LOG_LOCK = threading.Lock()


METRICS_FILE = "metrics.jsonl"


class FunctionLogs:
    """Where the functions' output goes. Their log lines: this process's output, JSON as
    the function wrote it, anything else (a traceback of a failed init) wrapped into JSON.
    Their metric lines (CloudWatch's embedded metric format, common/platform/metrics.py), which on
    AWS CloudWatch reads from the same log: METRICS_FILE in the data directory (none kept
    with the data in memory), so the console keeps one line per request."""

    def __init__(self, data_dir: Path | None):
        self.metrics = data_dir / METRICS_FILE if data_dir is not None else None

    def __call__(self, function: str, line: str) -> None:
        if line.startswith('{"_aws":'):
            if self.metrics is not None:
                with LOG_LOCK, open(self.metrics, "a", encoding="utf-8") as file:
                    file.write(line + "\n")
            return
        if not line.startswith("{"):
            line = json.dumps({"level": "WARNING", "function": function, "message": line})
        with LOG_LOCK:
            sys.stdout.write(line + "\n")
            sys.stdout.flush()


class LocalStack:
    def __init__(
        self,
        local: LocalSettings,
        with_gateway: bool = True,
        hooks: Hooks = NO_HOOKS,
    ):
        """`hooks`: the product's code the emulator runs (infra/dev/__main__.py)."""
        self.local = local
        self.with_gateway = with_gateway
        self.hooks = hooks
        self.data: DataDir | None = None
        self.restored: dict[str, int] = {}
        self.migrated: dict[str, int] = {}
        self.lambdas: LambdaService  # by start()
        self.aws: WatchedAws  # by start()
        # Why the stack must stop, when something it runs is gone for good (its emulator).
        self.failure: str | None = None
        self._stoppers: list = []
        self._sockets: list[socket.socket] = []

    def start(self) -> "LocalStack":
        """Raises ConfigError before starting anything for an unusable setting, DataError
        for data that cannot be used, OSError for a port in use."""
        self._start_aws()
        lambda_socket = self._listen("LAMBDA_PORT", self.local.lambda_port)
        notification_socket = self._listen("NOTIFICATION_PORT", self.local.notification_port)
        gateway_socket = (
            self._listen("GATEWAY_PORT", self.local.gateway_port) if self.with_gateway else None
        )
        self.lambda_url = _url(lambda_socket)
        self.notification_url = _url(notification_socket)
        self.gateway_url = _url(gateway_socket) if gateway_socket else None
        os.environ["AWS_ENDPOINT_URL_LAMBDA"] = self.lambda_url
        specs = self._start_lambdas(lambda_socket)
        self._serve_apis(notification_socket, gateway_socket)
        for name, spec in specs.items():
            for seconds in spec.schedules_seconds:
                self._schedule(name, min(seconds, self.local.schedule_seconds))
        self.lambdas.warm(_first_called(specs), _called_by_functions(specs))
        self._poll_event_sources(specs)
        return self

    def _poll_event_sources(self, specs: dict[str, FunctionSpec]) -> None:
        """The template's event source mappings (the webhooks' streams and queue), polled
        as Lambda polls them, each batch an invocation of its function."""

        def invoke(function: str, event: str) -> tuple[bool, str | None]:
            outcome = self.lambdas.invoke(function, event)
            return outcome.failed, outcome.result

        self._stoppers.append(
            event_sources.start(
                specs,
                invoke,
                self._to_queue,
                self.dynamodb_url,
                self.settings.cloud.region,
                lambda: self.aws.wait_until_up(WAIT_SECONDS),
            )
        )

    def _start_aws(self) -> None:
        """The settings, checked, then the emulator (its data restored), which every
        client of this process and of the functions is pointed at."""
        for key, value in LOCAL_AWS_ENV.items():
            os.environ.setdefault(key, value)
        # The functions' too: each one's environment gets JWT_SECRET from this.
        self.environ = {
            **os.environ,
            "JWT_SECRET": local_jwt_secret(self.local.data_dir) or new_key(),
        }
        self.settings = AllSettings.from_env(self.environ)  # checked before anything starts
        region, data_dir = self.settings.cloud.region, self.local.data_dir
        aws = WatchedAws(
            self.local.dynamodb_port, region, data_dir, self._emulator_gone, self.hooks
        )
        self.aws = aws.watch()
        self._stoppers.append(aws.stop)
        if self.local.data_dir is not None:
            self.data = DataDir(self.local.data_dir)
        self.restored = {table: count for table, count in aws.restored.items() if count}
        self.migrated = aws.migrated
        self.dynamodb_url = aws.url
        for service in ("DYNAMODB", "SQS", "COGNITO_IDENTITY_PROVIDER", "KMS"):
            os.environ[f"AWS_ENDPOINT_URL_{service}"] = aws.url
        self.user_pool = aws.user_pool

    def _start_lambdas(self, lambda_socket: socket.socket) -> dict[str, FunctionSpec]:
        """The template's functions, each told where the APIs are, and Lambda's Invoke API
        on `lambda_socket`; returns the functions."""
        region = self.settings.cloud.region
        urls = {"NotificationApi": self.notification_url}
        if self.gateway_url:
            urls["GatewayApi"] = self.gateway_url
        specs = functions(
            urls,
            region,
            self._base_env(region),
            self.environ,
            max_environments=self.local.max_environments,
            refs={POOL_NAME: self.user_pool.id, CLIENT_NAME: self.user_pool.client_id},
        )
        self.lambdas = LambdaService(
            specs,
            self._task_roots(specs),
            FunctionLogs(self.local.data_dir),
            self._to_queue,
            lambda: self.aws.wait_until_up(WAIT_SECONDS),
        )
        self._stoppers.append(self.lambdas.stop)
        self._stoppers.append(endpoint(self.lambdas, lambda_socket).start().stop)
        return specs

    def _serve_apis(
        self, notification_socket: socket.socket, gateway_socket: socket.socket | None
    ) -> None:
        """The notification API, and the gateway's when this stack serves it."""
        # The notification service uses no AWS service; every route of the gateway's
        # functions reads or writes a table, so the gateway waits for a restarting emulator.
        self._serve("NotificationApi", notification_socket, self.local.notification_throttle)
        if gateway_socket is not None:
            self._serve(
                "GatewayApi",
                gateway_socket,
                self.local.gateway_throttle,
                self.hooks.pages(_url(gateway_socket), self.notification_url),
                self.aws,
            )

    def _emulator_gone(self, why: str) -> None:
        """The emulator died and cannot be brought back: main() stops the stack."""
        self.failure = why

    def _base_env(self, region: str) -> dict[str, str]:
        """What every function's environment holds besides its own variables: where
        AWS's services are, dummy credentials, its region; where the docs are (the
        gateway's /docs page, when this stack serves the gateway: the APIs' roots name
        it); and Powertools told it runs outside Lambda (no X-Ray daemon to send traces
        to)."""
        kept = {
            key: os.environ[key] for key in ("PATH", "HOME", "LANG", "TMPDIR") if key in os.environ
        }
        docs_url = {"DOCS_URL": self.gateway_url + api_docs.PAGE_PATH} if self.gateway_url else {}
        return {
            **kept,
            **LOCAL_AWS_ENV,
            "AWS_REGION": region,
            "AWS_DEFAULT_REGION": region,
            "AWS_ENDPOINT_URL_DYNAMODB": self.dynamodb_url,
            "AWS_ENDPOINT_URL_SQS": self.dynamodb_url,
            "AWS_ENDPOINT_URL_KMS": self.dynamodb_url,
            "AWS_ENDPOINT_URL_LAMBDA": self.lambda_url,
            # The pool's keys, where the authorizer finds them (on AWS: by its issuer's
            # discovery document), and the pool itself, for signing in.
            "JWT_JWKS_URL": self.user_pool.jwks_url,
            "AWS_ENDPOINT_URL_COGNITO_IDENTITY_PROVIDER": self.user_pool.url,
            "AWS_SAM_LOCAL": "true",
            # A developer's webhook endpoint is on this machine, over http.
            "WEBHOOK_LOCAL_TARGETS": "true",
            **docs_url,
        }

    def _task_roots(self, specs: dict[str, FunctionSpec]) -> dict[str, Path]:
        """For each function, a folder holding its package alone, as its artifact does
        (a link to the package, so a change to the code is the function's at once)."""
        scratch = Path(tempfile.mkdtemp(prefix="logistics-functions-"))
        self._stoppers.append(lambda: _remove_links(scratch))
        roots = {}
        for name, spec in specs.items():
            root = scratch / name
            root.mkdir()
            for package in spec.packages:
                (root / package).symlink_to(spec.code_dir / package)
            roots[name] = root
        return roots

    def _to_queue(self, queue: str, record: dict) -> None:
        """A failed asynchronous invocation, sent to its on-failure destination. Raises
        when the queue cannot be reached (the emulator died): the Lambda service keeps
        the record and calls again later. A session of its own: the delivery threads
        call at once (aws_client builds one at a time)."""
        sqs = aws_client("sqs", self.dynamodb_url, self.settings.cloud.region)
        url = sqs.get_queue_url(QueueName=queue)["QueueUrl"]
        sqs.send_message(QueueUrl=url, MessageBody=json.dumps(record))
        get_logger("local-lambda").error(
            "asynchronous invocation sent to its dead-letter queue",
            extra={"queue": queue, "condition": record["requestContext"]["condition"]},
        )

    def _serve(
        self,
        name: str,
        sock: socket.socket,
        throttle: Throttle,
        pages=None,
        aws: WatchedAws | None = None,
    ) -> None:
        gateway = ApiGateway(
            api(name, self.settings.http.cors_allow_origin),
            self.lambdas,
            self.settings.cloud.region,
            pages,
            TokenBucket(throttle.rate, throttle.burst),
            aws,
        )
        server = AppServer(idle_timeout=self.local.idle_timeout_seconds, sock=sock)
        self._stoppers.append(server.serve(gateway).stop)

    def _schedule(self, function: str, every_seconds: float) -> None:
        stopped = threading.Event()

        def run():
            while not stopped.wait(every_seconds):
                self.lambdas.submit(
                    function,
                    json.dumps(
                        {"source": "aws.events", "detail-type": "Scheduled Event", "detail": {}}
                    ),
                )

        threading.Thread(target=run, name=f"schedule-{function}", daemon=True).start()
        self._stoppers.append(stopped.set)

    @staticmethod
    def _bound(variable: str, port: int, bind):
        try:
            return bind()
        except OSError as exc:
            raise OSError(
                f"{variable}={port}: cannot listen there ({exc.strerror}); "
                "is another make run or make emulators using it?"
            ) from None

    def _listen(self, variable: str, port: int) -> socket.socket:
        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._sockets.append(sock)  # closed by stop() whatever happens next
        self._bound(variable, port, lambda: sock.bind(("127.0.0.1", port)))
        sock.listen(1024)
        return sock

    def reload(self, changed: list[str]) -> list[str]:
        """Replace the environments of the functions whose code is among `changed`
        (paths from the checkout's top); returns their names."""
        affected = [
            name
            for name, spec in self.lambdas.specs.items()
            if any(_is_code_of(spec, ROOT / path) for path in changed)
        ]
        self.lambdas.recycle(affected)
        return affected

    def stop(self) -> None:
        """The servers and functions first, so that nothing writes any more; then the
        emulator, whose last snapshot then holds every write that was answered."""
        while self._stoppers:
            self._stoppers.pop()()
        for sock in self._sockets:
            sock.close()


def _url(sock: socket.socket) -> str:
    return f"http://127.0.0.1:{sock.getsockname()[1]}"


def _remove_links(scratch: Path) -> None:
    for root in scratch.iterdir():
        for link in root.iterdir():
            link.unlink()
        root.rmdir()
    scratch.rmdir()


def _is_code_of(spec: FunctionSpec, path: Path) -> bool:
    return (
        any(path.is_relative_to(spec.code_dir / package) for package in spec.packages)
        or any(path.is_relative_to(layer) for layer in spec.layer_dirs)
        or path == Path(__file__).with_name("runtime.py")
    )


# The variables naming a function another one calls and waits for (common.http.service_calls:
# the stock check, a shipment's owner lookup); ORDER_EVENTS_FUNCTION is invoked async.
CALLED_AND_AWAITED = ("INVENTORY_FUNCTION", "ORDERS_FUNCTION")


def _called_by_functions(specs: dict[str, FunctionSpec]) -> list[str]:
    """The functions another one calls and waits for: their environments for calls
    (LambdaService.call_pools) are warmed at start, as their API's are."""
    named = {
        spec.environment[variable].partition(":")[0]  # a name, or name:alias
        for spec in specs.values()
        for variable in CALLED_AND_AWAITED
        if variable in spec.environment
    }
    return sorted(name for name in specs if name in named)


def _first_called(specs: dict[str, FunctionSpec]) -> list[str]:
    """The functions a request reaches at once, warmed at start so that the first one
    does not pay their cold start: those behind an API or an authorizer, and those
    another function is told to invoke."""
    named = {
        value.partition(":")[0] for spec in specs.values() for value in spec.environment.values()
    }
    behind_apis = {
        function
        for api_name in ("GatewayApi", "NotificationApi")
        for function in template.api_routes(api_name).values()
    }
    behind_apis.add("AuthorizerFunction")
    return sorted(name for name in specs if name in named | behind_apis)
