"""What a function's init does around its own work, to keep cold starts short."""

import gc
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from common.platform.ids import MAX_ID

# Marks what a function does as a warm-up (a rehearsed request's log line, its keys):
# never a client's.
REHEARSAL = "init-rehearsal"
# The id a warm-up reads: a possible id (common.platform.ids.MAX_ID) no counter will ever reach, so
# the read is one GetItem that finds nothing, through the same code as a client's.
REHEARSAL_ID = str(MAX_ID)


@contextmanager
def collector_paused() -> Iterator[None]:
    """Run a function's init with Python's cyclic garbage collector paused, then freeze
    what init built.

    Init allocates hundreds of thousands of long-lived objects (modules, classes, service
    models) and almost no garbage, yet the collector runs every few hundred allocations
    and rescans them: about a tenth of the import time. Frozen afterwards, they are
    never scanned again, which also keeps the collections during requests short.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if was_enabled:
            gc.enable()


def start(wiring: Any) -> Callable:
    """A function's init, the same in every function: the slices of the settings its
    `wiring.create` and `wiring.rehearse` take (their annotations say which:
    common.platform.settings) read and checked, and the log level, nothing else; its
    handler built by `wiring.create(**slices)` as `wiring.FUNCTION` (the function's
    logical id in the template, whose role its AWS calls are made under), then warmed up
    by `wiring.rehearse(handler, **slices)` if it has one. Returns the handler Lambda
    calls.

    Only a function a client waits on has a warm-up (the APIs, the authorizer): a warm-up
    moves the first request's extra work (a connection, botocore's first call) into
    init, which pays when a client waits for the first request. A function run by an
    asynchronous invoke, a schedule, a stream or a queue (the order events, the event
    sweep, the stock repair, the webhooks' events and deliveries) keeps init short
    instead: its first run pays those 10-20 ms, and nobody waits on it (bench/README.md,
    Cold start)."""
    from common.platform import aws
    from common.platform.env import ConfigError, stop_process
    from common.platform.settings import SLICES, Logs, arguments, load, taken_by

    rehearse = getattr(wiring, "rehearse", None)
    wanted = {**taken_by(wiring.create), **(taken_by(rehearse) if rehearse else {})}.values()
    # In one order (a first bad value is always the same one's): the log level, then theirs.
    slices: dict[type, Any] = {
        kind: load(kind) for kind in SLICES if kind is Logs or kind in wanted
    }
    aws.HOME = wiring.FUNCTION  # this process runs this function only
    try:
        handler = wiring.create(**arguments(wiring.create, slices.__getitem__))
    except ConfigError as exc:  # what this function needs is missing (the authorizer's key)
        stop_process(exc)
    if rehearse is not None:
        given = arguments(rehearse, slices.__getitem__)
        warm_up(lambda: rehearse(handler, **given), handler.logger)
    return handler


def warm_up(rehearsal: Callable[[], object], logger: Any) -> None:
    """Run, during init, work that changes nothing but that the first request would
    otherwise pay for: opening connections (TCP and TLS on AWS), botocore's first-call
    code, and the first run of the request path (Python specialises code as it runs
    it). Untraced, as Lambda's init is. If it fails, init goes on: the first request
    will try again."""
    # Imported here: this module is the first a function loads, before the tracer.
    from common.platform.tracing import untraced

    try:
        with untraced():
            rehearsal()
    except Exception as exc:
        logger.warning("warming up at init failed", extra={"error": repr(exc)})
