"""What the gateway app does when Chalice's command line loads it (app.py asks, once).

- `chalice local --stage local` is a way to develop: it serves the gateway against `make
  emulators` (the stage's environment in .chalice/config.json points at them), and
  answers a bad token as API Gateway does, 401, where Chalice's own local server drops
  the connection: its gateway class is swapped for the local stack's
  (infra/local/gateway.py), which corrects that and the rest of what clients can tell.
- Every other command that loads the app (`chalice deploy`, `chalice package`, ...) stops
  before it builds or deploys anything: Chalice packages app.py, chalicelib/, vendor/
  and requirements.txt, not functions/ or layers/common/, and one function holding every
  service is not the release's shape either (infra/template.yaml is). The release is SAM.

Chalice sets AWS_CHALICE_CLI_MODE for its commands, so that an app can tell (its own
documented way); which command is running is click's current context, or, in the
worker process of `chalice local`'s reloader (which serves from a thread, without that
context), the CHALICE_WORKER variable the reloader sets for `chalice local` alone.
"""

import os
import threading

import click

LOCAL_STAGE = "local"
RELEASE = ("this project is not deployed with `chalice deploy` or `chalice package`: "
           "Chalice would package app.py without functions/ and layers/common/, and the "
           "deployment would fail on import. Release with SAM instead: `make build`, then "
           "`.venv-sam/bin/sam deploy --config-env dev` (docs/operations.md). To develop: "
           "`make run`, or `make emulators` and `.venv/bin/chalice local --stage local`.")
NOT_LOCAL_STAGE = ("`chalice local` needs the `local` stage, which points the gateway at "
                   "`make emulators`: run `make emulators`, then "
                   "`.venv/bin/chalice local --stage local`.")


def _command() -> str | None:
    if os.environ.get("CHALICE_WORKER"):
        return "local"
    context = click.get_current_context(silent=True)
    return context.command.name if context is not None else None


def _stop(message: str) -> None:
    if threading.current_thread() is threading.main_thread():
        raise click.ClickException(message)
    # The reloader's worker serves from a thread: an exception would end the thread and
    # leave the process waiting for a file change, so end the process.
    click.echo(f"Error: {message}", err=True)
    os._exit(2)


def check_command() -> None:
    """Nothing outside the Chalice command line; under it, see the module's text."""
    if os.environ.get("AWS_CHALICE_CLI_MODE") != "true":
        return
    if _command() != "local":
        _stop(RELEASE)
    # The local stage's environment is applied before the app is loaded: without its
    # endpoints, every request would go to real AWS, or fail for want of credentials.
    if not os.environ.get("AWS_ENDPOINT_URL_DYNAMODB"):
        _stop(NOT_LOCAL_STAGE)
    import chalice.local

    from infra.local.gateway import ApiGatewayLocalGateway

    chalice.local.LocalGateway = ApiGatewayLocalGateway
