"""`make run` and `make emulators` (`python -m infra.dev [--emulators]`): the local stack
(infra/local/stack.py, the template run as AWS runs it) with the product's glue around
it: the migrations of data an earlier version saved (infra/dev/migrations.py, run on
what the emulator restores), the banner (infra/dev/banner.py), the running stack's
record for the tools beside it, and the code watcher that replaces the functions whose
code changed. Ctrl-C or SIGTERM stops all of it, the data saved."""

import signal
import sys
import threading

from common.platform.env import ConfigError, stop_process
from common.platform.logs import get_logger
from infra import api_docs
from infra.api_docs import Page
from infra.dev import console, migrations
from infra.dev.banner import banner, running
from infra.dev.reload import POLL_SECONDS, CodeWatcher
from infra.local.aws_process import Hooks
from infra.local.persistence import DataError
from infra.local.running import announce, withdraw
from infra.local.settings import ROOT, LocalSettings
from infra.local.stack import LocalStack


def pages(gateway: str, notifications: str) -> dict[str, Page]:
    """The local gateway's pages beside its routes: /docs and /console."""
    return {**api_docs.pages(gateway, notifications), **console.pages()}


# The template's pool runs this function's code on every access token (its
# PreTokenGenerationConfig: TokenClaimsFunction); the emulated pool runs the same code.
TOKEN_TRIGGER = "token_claims.claims:with_user_id"


def main(argv: list[str]) -> None:
    try:
        local = LocalSettings.from_env()
        hooks = Hooks(migrations.run, TOKEN_TRIGGER, pages)
        stack = LocalStack(local, with_gateway=argv != ["--emulators"], hooks=hooks)
        stack.start()
    except ConfigError as exc:
        stop_process(exc)
    except (DataError, OSError) as exc:
        stack.stop()
        sys.exit(
            f"Could not start the local stack: {exc}"
            if not isinstance(exc, DataError)
            else str(exc)
        )
    stopped = threading.Event()

    def stop_requested(*_) -> None:
        stack.aws.unwatch()  # the emulator may get the signal too: not a death
        stopped.set()

    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, stop_requested)
    if stack.data is not None:
        announce(stack.data.path, running(stack))
    print("\n".join(banner(stack)))
    print("Ready. Ctrl-C stops everything.", flush=True)
    log = get_logger("local-stack")
    watcher = CodeWatcher(ROOT) if local.reload else None
    while not stopped.wait(POLL_SECONDS) and stack.failure is None:
        changed = watcher.changed() if watcher else []
        if changed:
            replaced = stack.reload(changed)
            log.info(
                "code changed: the functions' environments replaced",
                extra={"changed": changed, "functions": replaced},
            )
    if stack.data is not None:
        withdraw(stack.data.path)
    stack.stop()
    if stack.failure is not None:
        sys.exit(f"Stopped: {stack.failure}.")
    kept = f" The data is in {stack.data.path}." if stack.data is not None else ""
    print(f"Stopped.{kept}", flush=True)
    sys.exit(0)


if __name__ == "__main__":
    main(sys.argv[1:])
