"""Ids from blocks of the counter (common.storage.id_blocks): unique and positive whatever the
rate, one at a time when idle, blocks that follow the rate under load. The clock is the
test's: no test here waits."""

import threading

import pytest

from common.storage.id_blocks import GROWTH, LIFETIME_SECONDS, MAX_BLOCK, TARGET_SECONDS, IdBlocks


class Counter:
    """The counter item: an atomic ADD, and the sizes it was asked for."""

    def __init__(self):
        self.value, self.sizes = 0, []
        self._lock = threading.Lock()

    def reserve(self, size: int) -> int:
        with self._lock:
            self.value += size
            self.sizes.append(size)
            return self.value


class Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def counter():
    return Counter()


@pytest.fixture
def clock():
    return Clock()


def test_idle_ids_come_one_at_a_time_and_stay_dense(counter, clock):
    ids = IdBlocks(counter.reserve, clock)
    handed = []
    for _ in range(5):
        handed.append(ids.next_id())
        clock.now += 10  # one create every ten seconds
    assert handed == [1, 2, 3, 4, 5]
    assert counter.sizes == [1, 1, 1, 1, 1]


def test_under_load_blocks_grow_fourfold_up_to_the_rate_then_hold(counter, clock):
    ids = IdBlocks(counter.reserve, clock)
    for _ in range(1000):  # 64 creates a second (a step the clock adds exactly)
        ids.next_id()
        clock.now += 1 / 64
    rate_block = int(64 * TARGET_SECONDS)
    assert GROWTH == 4 and counter.sizes[:4] == [1, 4, 16, 64]
    assert set(counter.sizes[4:]) == {rate_block}
    # 1,000 ids for 12 counter writes (85 ids in 4, then 8 blocks of 128), not 1,000.
    assert len(counter.sizes) == 12


def test_when_the_load_stops_the_next_block_is_one_id_again(counter, clock):
    ids = IdBlocks(counter.reserve, clock)
    for _ in range(2000):  # blocks of the most ids, nearly all used
        ids.next_id()
        clock.now += 0.001
    clock.now += 60
    before = counter.value
    assert ids.next_id() == before + 1  # the old block's tail is dropped, never reused
    assert counter.sizes[-1] == 1


def test_a_block_past_its_lifetime_is_dropped_not_handed_out_late(counter, clock):
    ids = IdBlocks(counter.reserve, clock)
    for _ in range(40):
        ids.next_id()
        clock.now += 0.01
    tail_end = counter.value
    clock.now += LIFETIME_SECONDS + 0.1
    assert ids.next_id() == tail_end + 1


def test_blocks_never_pass_the_maximum(counter, clock):
    ids = IdBlocks(counter.reserve, clock)
    for _ in range(20_000):  # 100,000 creates a second
        ids.next_id()
        clock.now += 0.00001
    assert max(counter.sizes) == MAX_BLOCK


def test_environments_sharing_a_counter_never_hand_out_the_same_id(counter):
    # Eight environments (each its own IdBlocks, as each Lambda environment has), eight
    # threads each, all at once on one counter.
    environments = [IdBlocks(counter.reserve) for _ in range(8)]
    handed: list[int] = []
    lock = threading.Lock()
    start = threading.Barrier(64)

    def create(environment: IdBlocks):
        start.wait()
        mine = [environment.next_id() for _ in range(200)]
        with lock:
            handed.extend(mine)

    threads = [threading.Thread(target=create, args=(environments[n % 8],)) for n in range(64)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(handed) == len(set(handed)) == 64 * 200
    assert min(handed) >= 1 and max(handed) <= counter.value


def test_a_forked_child_does_not_hand_out_its_parents_block(counter, clock):
    process = {"pid": 1}
    ids = IdBlocks(counter.reserve, clock, lambda: process["pid"])
    for _ in range(10):
        ids.next_id()
        clock.now += 0.01
    parents_block_end = counter.value
    process["pid"] = 2  # the same object, now in a child
    assert ids.next_id() == parents_block_end + 1
    assert counter.sizes[-1] == 1


def test_a_failed_reservation_hands_out_nothing_and_the_next_one_works(counter, clock):
    failing = {"on": True}

    def reserve(size: int) -> int:
        if failing["on"]:
            raise TimeoutError("the counter did not answer")
        return counter.reserve(size)

    ids = IdBlocks(reserve, clock)
    with pytest.raises(TimeoutError):
        ids.next_id()
    failing["on"] = False
    assert ids.next_id() == 1
