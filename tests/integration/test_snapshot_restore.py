"""Environments restored from one snapshot (SnapStart; locally, forks of one init) are
made unique again by the after-restore hooks the layer registers (common.platform.restore)."""

import functools
import json
import os
import random

import pytest
from snapshot_restore_py import get_after_restore

from common.platform.settings import Cloud
from common.storage import counters
from common.storage import tables as storage
from common.storage.counters import CounterModel
from common.storage.id_blocks import IdBlocks

# The emulator serves from a thread of this process; the forks use none of its locks.
pytestmark = pytest.mark.filterwarnings("ignore:This process.*multi-threaded:DeprecationWarning")
# On SnapStart every restored environment has the snapshot's pid: a block's owner by
# pid tells them apart only where a restore is a fork.
SNAPSTART_PID = 1


def restored(init_state, environments: int = 2) -> list[dict]:
    """What each of `environments` restored from the state made so far says: each is a
    fork that runs the after-restore hooks, as Lambda's runtime does, then `init_state`
    (a function) in it, whose answer comes back as JSON."""
    answers = []
    for _ in range(environments):
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:  # the restored environment
            os.close(read)
            for function, args, kwargs in get_after_restore():
                function(*args, **kwargs)
            os.write(write, json.dumps(init_state()).encode())
            os._exit(0)
        os.close(write)
        with os.fdopen(read, "rb") as said:
            answers.append(json.loads(said.read()))
        os.waitpid(pid, 0)
    return answers


def test_two_environments_restored_from_one_snapshot_hand_out_different_ids(tables):
    storage.bind(Cloud.from_env(), CounterModel)
    now = [0.0]
    blocks: list[int] = []  # the last id of each block reserved

    def reserve(size: int) -> int:
        blocks.append(counters.reserve("restore-test", size))
        return blocks[-1]

    ids = IdBlocks(reserve, clock=lambda: now[0], process=lambda: SNAPSTART_PID)
    # The init hands out ids fast enough that its block grows past the ids it used.
    handed_at_init = [ids.next_id() for _ in range(6)]
    assert blocks[-1] > max(handed_at_init)  # the snapshot holds ids no one has had yet

    answers = restored(lambda: {"id": ids.next_id(), "random": random.random()})

    first, second = answers
    assert first["id"] != second["id"]
    assert {first["id"], second["id"]}.isdisjoint(handed_at_init)
    # Neither takes the snapshot's next id, which the init's own process would hand out.
    assert ids.next_id() not in {first["id"], second["id"]}
    assert first["random"] != second["random"]


def test_without_the_hooks_they_would_hand_out_the_same_id(tables):
    """The yardstick of the test above: restored without the hooks (an environment that
    skipped them), the two give the snapshot's next id twice."""
    storage.bind(Cloud.from_env(), CounterModel)
    now = [0.0]
    ids = IdBlocks(
        functools.partial(counters.reserve, "restore-control"),
        clock=lambda: now[0],
        process=lambda: SNAPSTART_PID,
    )
    for _ in range(6):
        ids.next_id()
    answers = []
    for _ in range(2):
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(read)
            os.write(write, json.dumps(ids.next_id()).encode())
            os._exit(0)
        os.close(write)
        with os.fdopen(read, "rb") as said:
            answers.append(json.loads(said.read()))
        os.waitpid(pid, 0)
    assert answers[0] == answers[1]
