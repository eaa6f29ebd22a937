"""How a list is answered (common.http.lists): pages, the body's cap, and the time a whole list
may take before it says where it goes on (docs/api.md#lists)."""

import json
from dataclasses import dataclass

from chalice.app import MultiDict

from common.http.lists import FIRST_READ, Lists
from common.platform.keys import FixedRing
from common.storage.paging import MAX_LIMIT, Page, read_token

RING = FixedRing(b"a-page-token-key-of-32-bytes-ok!")


@dataclass(frozen=True)
class Item:
    id: int


class Request:
    """What Lists.answer reads of Chalice's request."""

    def __init__(self, query: dict | None = None):
        self.query_params = MultiDict({k: [v] for k, v in (query or {}).items()}) or None
        self.context = {"resourcePath": "/api/things", "path": "/api/things"}
        self.path = "/api/things"


class Clock:
    """Each read of a page takes `per_page` seconds."""

    def __init__(self, per_page: float):
        self.now, self.per_page = 0.0, per_page

    def __call__(self) -> float:
        return self.now


def pages_of(count: int, size: int, clock: Clock | None = None):
    """A list of `count` items read `size` at a time, the clock moving at each read."""
    reads: list[tuple[int, int]] = []

    def fetch(after: int, limit: int) -> Page:
        reads.append((after, limit))
        if clock is not None:
            clock.now += clock.per_page
        ids = [i for i in range(after + 1, count + 1)][: min(limit, size)]
        more = bool(ids) and ids[-1] < count
        return Page([Item(i) for i in ids], ids[-1] if more else None)

    return fetch, reads


def answer(lists: Lists, fetch, query: dict | None = None):
    response = lists.answer(Request(query), fetch)
    return [item["id"] for item in json.loads(response.body)], response.headers


def test_a_whole_list_holds_every_item_when_it_is_read_in_time():
    clock = Clock(per_page=0.4)
    fetch, reads = pages_of(2500, 1000, clock)
    ids, headers = answer(Lists(RING, 5_000_000, clock=clock), fetch)
    assert ids == list(range(1, 2501)) and "X-Next-Token" not in headers
    # Small first, then twice as many each time, up to the most a read asks for.
    assert [limit for _, limit in reads] == [FIRST_READ, 2 * FIRST_READ, MAX_LIMIT, MAX_LIMIT]


def test_a_whole_list_that_takes_too_long_ends_where_it_got_to_with_a_token():
    clock = Clock(per_page=0.8)  # the third read would end past READ_SECONDS (2 s)
    fetch, reads = pages_of(5000, 1000, clock)
    lists = Lists(RING, 5_000_000, clock=clock)
    ids, headers = answer(lists, fetch)
    read = FIRST_READ + 2 * FIRST_READ + MAX_LIMIT
    assert ids == list(range(1, read + 1)) and len(reads) == 3
    assert read_token(RING, headers["X-Next-Token"], "/api/things", {}) == read
    # Walking on from there returns the rest, each item once.
    rest, _ = answer(lists, fetch, {"nextToken": headers["X-Next-Token"]})
    assert rest[0] == read + 1


def test_a_whole_list_on_a_slow_host_answers_after_one_small_read():
    """A host so busy that one read takes the whole budget: the answer holds that read's
    few items and a token, not a read of the most a page may hold."""
    clock = Clock(per_page=3)
    fetch, reads = pages_of(5000, 1000, clock)
    ids, headers = answer(Lists(RING, 5_000_000, clock=clock), fetch)
    assert ids == list(range(1, FIRST_READ + 1)) and len(reads) == 1
    assert read_token(RING, headers["X-Next-Token"], "/api/things", {}) == FIRST_READ


def test_a_page_with_a_limit_is_one_read_whatever_the_time():
    clock = Clock(per_page=10)
    fetch, reads = pages_of(50, 1000, clock)
    ids, headers = answer(Lists(RING, 5_000_000, clock=clock), fetch, {"limit": "20"})
    assert ids == list(range(1, 21)) and len(reads) == 1 and "X-Next-Token" in headers


def test_the_body_cap_cuts_before_the_item_that_would_pass_it():
    fetch, _ = pages_of(100, 1000)
    ids, headers = answer(Lists(RING, 40), fetch)
    assert len(json.dumps([{"id": i} for i in ids], separators=(",", ":"))) <= 40
    assert read_token(RING, headers["X-Next-Token"], "/api/things", {}) == ids[-1]
