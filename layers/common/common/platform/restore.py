"""What each execution environment makes again after it is restored from a snapshot.

With Lambda SnapStart a function is initialised once, when its version is published, and
every execution environment is restored from that one snapshot; the local runtime does
the same by forking each environment from one initialised process
(infra/local/runtime.py). Whatever the init made that must differ between environments
is made again in an after-restore hook (AWS's snapshot-restore-py, which Lambda's Python
runtime runs; docs/operations.md#snapstart):

- a block of ids reserved at init (common.storage.id_blocks): two environments would hand out
  the same ids;
- the `random` module's state: every environment would draw the same numbers;
- open connections (our clients', common.platform.aws): on AWS they are dead after a restore,
  locally the forks would share one socket;
- what an environment read of shared state and trusts for a while (the stock check's
  breaker, common.stock.breaker).

Secrets come from `secrets`/`os.urandom`, which a restore does not repeat, and on
SnapStart botocore's credentials come from the container provider, which it refreshes.
"""

import random
import weakref
from collections.abc import Callable
from typing import Any

from snapshot_restore_py import register_after_restore

# Bound methods of live objects: an object made many times (tests build many apps in
# one process) is not kept alive by its hook.
_methods: list[weakref.WeakMethod] = []


def on_restore(method: Callable[[], Any]) -> None:
    """Call `method` (a bound method) in each restored environment, while its object
    lives."""
    _methods.append(weakref.WeakMethod(method))


def _restored() -> None:
    random.seed()  # from os.urandom: this environment's own
    alive = []
    for reference in _methods:
        method = reference()
        if method is not None:
            method()
            alive.append(reference)
    _methods[:] = alive


register_after_restore(_restored)
