"""The gateway app under Chalice's own local server: `chalice local --stage local` (and
chalice.test in the tests), answering as API Gateway does.

- `chalice local --stage local` is a way to develop: it serves the gateway app in one
  process against `make emulators`. Its gateway class is swapped for the one below, which
  corrects what clients can tell from API Gateway: a bad token is 401 (Chalice's local
  server drops the connection), the identity validation expression refuses junk headers
  before the authorizer runs, a path no route has is 403 "Missing Authentication Token",
  and `;` in an id is part of it. Its server sends each answer in one write: head and
  body written apart cost a kept-alive client 40 ms an answer.
- Where the emulators are follows the same variables as `make emulators`
  (DYNAMODB_PORT, LAMBDA_PORT), and the calls one service makes to another go to the
  port `chalice local` serves on (`--port`): no tracked file names a port. Its tokens are
  verified with the emulators' key (JWT_SECRET, or the one kept in LOCAL_DATA_DIR:
  infra/local/signing_key.py). The `local` stage of .chalice/config.json adds dummy
  credentials, so nothing reaches real AWS.
- Chalice's reloader restarts the server when any file of the checkout changes, the
  emulators' data (.local-data/) and the .pyc files Python writes included: here it
  restarts on a change to the apps' code alone, as `make run` does.
- `chalice local` with another stage, and every other command that loads the app
  (`chalice deploy`, `chalice package`, ...), stop with a message and a non-zero exit
  before they build or deploy anything: Chalice packages app.py, chalicelib/, vendor/ and
  requirements.txt, not functions/ or layers/common/, and one function holding every
  service is not the release's shape either (infra/template.yaml is).

Chalice sets AWS_CHALICE_CLI_MODE for its commands (its documented way for an app to
tell); which command runs is click's current context, or, in the worker process of
`chalice local`'s reloader (which serves from a thread, without that context), the
CHALICE_WORKER variable the reloader sets for `chalice local` alone.
"""

import logging
import os
import re
import signal
import sys
import threading
import time
import uuid
from pathlib import Path

import click
from chalice.config import Config
from chalice.local import (
    ForbiddenError,
    InvalidAuthorizerError,
    LambdaEventConverter,
    LocalGateway,
    LocalGatewayAuthorizer,
    LocalGatewayException,
    NotAuthorizedError,
    RouteMatcher,
)

from authorizer.policy import Unauthorized
from common.http.service_app import log_request
from common.platform.env import ConfigError
from infra import template

LOCAL_STAGE = "local"
RELEASE = (
    "this project is not deployed with `chalice deploy` or `chalice package`: "
    "Chalice would package app.py without functions/ and layers/common/, and the "
    "deployment would fail on import. Release with SAM instead: `make build`, then "
    "`.venv-sam/bin/sam deploy --config-env dev` (docs/operations.md). To develop: "
    "`make run`, or `make emulators` and `.venv/bin/chalice local --stage local`."
)
NOT_LOCAL_STAGE = (
    "`chalice local` needs the `local` stage, which points the gateway at "
    "`make emulators`: run `make emulators`, then the command it prints "
    "(`.venv/bin/chalice local --stage local` on the default ports)."
)
UNAUTHORIZED_BODY = b'{"message":"Unauthorized"}'
NO_ROUTE_BODY = b'{"message":"Missing Authentication Token"}'

if os.environ.get("AWS_CHALICE_CLI_MODE") == "true":
    # `chalice local` sends the root logger's INFO lines to stdout; the libraries' lines
    # there are noise beside the platform's one line per request (PynamoDB says at import
    # that it found no settings file: this module is imported first by app.py for that).
    # Chalice's own stay ("Restarting local dev server.").
    logging.getLogger().setLevel(logging.WARNING)
    logging.getLogger("chalice").setLevel(logging.INFO)


def _command() -> str | None:
    if os.environ.get("CHALICE_WORKER"):
        return "local"
    context = click.get_current_context(silent=True)
    return context.command.name if context is not None else None


def _local_options() -> dict:
    """The options `chalice local` was started with: click's, where it parsed them; in the
    reloader's worker, which serves from a thread without click's context, the same
    command line read again by the same command."""
    context = click.get_current_context(silent=True)
    if context is not None:
        return context.params
    from chalice.cli import local

    args = sys.argv[sys.argv.index("local") + 1 :]
    return local.make_context("local", args).params


def _stop(message: str) -> None:
    if threading.current_thread() is threading.main_thread():
        raise click.ClickException(message)
    # The reloader's worker serves from a thread: an exception would end the thread and
    # leave the process waiting for a file change, so end the process; and its parent,
    # the reloader, which would otherwise exit 0 when its worker ends.
    click.echo(f"Error: {message}", err=True)
    if os.environ.get("CHALICE_WORKER"):
        os.kill(os.getppid(), signal.SIGTERM)
    os._exit(2)


def check_command() -> None:
    """Nothing outside the Chalice command line; under it, see the module's text."""
    if os.environ.get("AWS_CHALICE_CLI_MODE") != "true":
        return
    if _command() != "local":
        _stop(RELEASE)
    options = _local_options()
    if options.get("stage") != LOCAL_STAGE:
        _stop(NOT_LOCAL_STAGE)
    try:
        os.environ.update(local_environment(os.environ, options["port"]))
    except ConfigError as exc:
        _stop(f"Configuration error: {exc}")
    if os.environ.get("CHALICE_WORKER"):
        _reload_on_code_changes_only()
    import chalice.local

    # Replacing Chalice's class is the point (see the module's text).
    chalice.local.LocalGateway = ApiGatewayLocalGateway  # type: ignore[misc]
    # Its server writes an answer's head and body apart: on a kept-alive connection (the
    # stock check's pool, a browser) the body then waited for the client's delayed ACK
    # of the head, 40 ms on Linux. One buffered write, and Nagle's algorithm off.
    chalice.local.ChaliceRequestHandler.wbufsize = -1
    chalice.local.ChaliceRequestHandler.disable_nagle_algorithm = True


def local_environment(env, served_port: int) -> dict[str, str]:
    """Where the gateway served on `served_port` finds the emulators (the ports `make
    emulators` was given, in `env`) and itself: the stock check and a shipment's order
    lookup call the gateway the request came in on. And the key `make emulators` signs
    tokens with: JWT_SECRET, or the one kept with its data (infra/local/signing_key.py)."""
    from infra.local.settings import LocalSettings
    from infra.local.signing_key import NO_KEY_IN_MEMORY, local_jwt_secret

    local = LocalSettings.from_env(env)
    key = local_jwt_secret(local.data_dir, env)
    if key is None:
        raise ConfigError(NO_KEY_IN_MEMORY)
    url = "http://127.0.0.1:{}".format
    return {
        "JWT_SECRET": key,
        "AWS_ENDPOINT_URL_DYNAMODB": url(local.dynamodb_port),
        # The emulator's queues too (a webhook's re-send), and its KMS key (the webhooks'
        # secrets), on the same port.
        "AWS_ENDPOINT_URL_SQS": url(local.dynamodb_port),
        "AWS_ENDPOINT_URL_KMS": url(local.dynamodb_port),
        "AWS_ENDPOINT_URL_LAMBDA": url(local.lambda_port),
        # A developer's webhook receiver is on this machine, over http (as `make run`).
        "WEBHOOK_LOCAL_TARGETS": "true",
        "INVENTORY_SERVICE_URL": url(served_port),
        "ORDERS_SERVICE_URL": url(served_port),
        **_user_pool(url(local.dynamodb_port), env),
    }


def _user_pool(emulator: str, env) -> dict[str, str]:
    """The emulator's user pool, as `make run` gives it to its functions: signing in, and
    its tokens taken (docs/identity.md). None there (an emulator of another version):
    the sign-in routes answer 503 and the gateway takes `make token`'s tokens only."""
    from infra.local import LOCAL_AWS_ENV
    from infra.local.sign_in import find_pool

    try:
        pool = find_pool(
            emulator, env.get("AWS_DEFAULT_REGION") or LOCAL_AWS_ENV["AWS_DEFAULT_REGION"]
        )
    except Exception:  # noqa: BLE001 - no pool, or no emulator yet: said by the routes' 503
        return {}
    return pool.environment()


def _reload_on_code_changes_only() -> None:
    """Chalice's reloader (its stat() watcher: watchdog is not installed) looks at every
    file of the checkout; from now on it looks at what `make run`'s does
    (infra/dev/reload.py). It may have looked once already: its first look here
    starts afresh."""
    from chalice.cli.filewatch.stat import StatFileWatcher

    from infra.dev.reload import CodeWatcher

    def seed(watcher, root_dir):
        watcher.code = CodeWatcher(Path(root_dir))

    def poll(watcher, root_dir, callback):
        if not hasattr(watcher, "code"):
            seed(watcher, root_dir)
        elif watcher.code.changed():
            callback()

    # Replacing the watcher's two methods is the point (see above).
    StatFileWatcher._seed_mtime_cache = seed  # type: ignore[method-assign]
    StatFileWatcher._single_pass_poll = poll  # type: ignore[method-assign]


def _allowed_origin(app) -> str | None:
    return getattr(app.api.cors, "allow_origin", None)


class ApiGatewayAuthorizer(LocalGatewayAuthorizer):
    def __init__(self, app_object):
        super().__init__(app_object)
        self._app = app_object
        expression = template.identity_validation()
        self._identity = re.compile(expression) if expression else None

    def authorize(self, raw_path, lambda_event, lambda_context):
        started = time.perf_counter()
        request_id = {"x-amzn-RequestId": lambda_context.aws_request_id}
        header = (lambda_event.get("headers") or {}).get("authorization")
        try:
            if header is not None and self._identity and not self._identity.search(header):
                # API Gateway's identity validation: refused before the authorizer runs.
                raise Unauthorized("the Authorization header is not a Bearer token")
            return super().authorize(raw_path, lambda_event, lambda_context)
        except NotAuthorizedError:  # Chalice's own, for a missing header
            reason = "no Authorization header"
        except LocalGatewayException:
            raise
        except Unauthorized as exc:
            reason = exc.reason
        except Exception as exc:
            # Any other authorizer failure is a 500 on API Gateway, never a pass.
            raise InvalidAuthorizerError(
                {**request_id, "x-amzn-ErrorType": "AuthorizerConfigurationException"},
                b'{"message":null}',
            ) from exc
        self._log_refusal(lambda_event, reason, started)
        headers = {**request_id, "x-amzn-ErrorType": "UnauthorizedException"}
        origin = _allowed_origin(self._app)
        if origin:  # the template's GatewayResponses add it on AWS
            headers["Access-Control-Allow-Origin"] = origin
        raise NotAuthorizedError(headers, UNAUTHORIZED_BODY) from None

    def _log_refusal(self, event, reason: str, started: float) -> None:
        """The one log line of a request the authorizer turned away."""
        context = event["requestContext"]
        log_request(
            self._app.logger,
            started,
            method=context["httpMethod"],
            route=context["resourcePath"],
            path=context["path"],
            status=401,
            reason=reason,
            correlation_id=context.get("requestId"),
        )


class _WholeSegments(RouteMatcher):
    def match_route(self, url):
        matched = super().match_route(url.replace(";", "%3B"))
        return matched._replace(
            captured={name: value.replace("%3B", ";") for name, value in matched.captured.items()}
        )


class ApiGatewayLocalGateway(LocalGateway):
    def __init__(self, app_object, config):
        super().__init__(app_object, config)
        self.event_converter = LambdaEventConverter(
            _WholeSegments(list(app_object.routes)), app_object.api.binary_types
        )
        self._authorizer = ApiGatewayAuthorizer(app_object)

    def _generate_lambda_event(self, method, path, headers, body):
        try:
            event = super()._generate_lambda_event(method, path, headers, body)
        except ValueError:  # no route has this path
            raise ForbiddenError(
                {"x-amzn-ErrorType": "MissingAuthenticationTokenException"}, NO_ROUTE_BODY
            ) from None
        event["requestContext"]["requestId"] = str(uuid.uuid4())
        return event


def chalice_config(app) -> Config:
    return Config.create(chalice_stage=LOCAL_STAGE, app_name=app.app_name)
