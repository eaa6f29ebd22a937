"""Write-sharded index keys and the merge that reads them back in id order
(common.storage.shards): the same pages as one partition would give, whatever the shards."""

import random
from dataclasses import dataclass

import pytest

from common.storage import shards
from common.storage.paging import Page


@dataclass(frozen=True)
class Item:
    id: int


class Index:
    """Partitions of an index whose sort key is the id, read as DynamoDB's Query reads
    them: ascending, after an id, at most a limit, and whether more may follow."""

    def __init__(self, ids, count: int):
        self.partitions = {key: [] for key in shards.keys("V", count)}
        for ident in sorted(ids):
            self.partitions[shards.key("V", ident, count)].append(Item(ident))
        self.reads = 0
        self.items_read = 0

    def page(self, after: int, limit: int) -> Page:
        merge = shards.Merge(self.partitions, after)
        while reads := merge.reads(limit):
            for partition, (start, count) in reads.items():
                following = [i for i in self.partitions[partition] if i.id > start]
                self.reads += 1
                self.items_read += min(count, len(following))
                merge.add(partition, following[:count], len(following) >= count)
        return merge.page(limit)


def walk(index: Index, limit: int) -> list[Page]:
    pages, after = [], 0
    while after is not None:
        pages.append(index.page(after, limit))
        after = pages[-1].resume_after
    return pages


def test_a_value_and_an_id_always_have_the_same_shard_and_every_shard_is_a_key():
    assert shards.key("APROBADO", 35, 16) == "APROBADO#3" == shards.key("APROBADO", 3, 16)
    assert shards.keys("APROBADO", 3) == ["APROBADO#0", "APROBADO#1", "APROBADO#2"]


@pytest.mark.parametrize("count", [1, 4, 16, 32])
@pytest.mark.parametrize("limit", [1, 3, 50, 1000])
def test_walking_returns_every_item_once_in_ascending_id(count, limit):
    ids = random.Random(count * limit).sample(range(1, 5000), 700)
    pages = walk(Index(ids, count), limit)
    walked = [item.id for page in pages for item in page.items]
    assert walked == sorted(ids)
    assert all(len(page.items) <= limit for page in pages)


@pytest.mark.parametrize("count", [4, 16, 32])
def test_no_page_is_empty_before_the_end_even_across_gaps(count):
    # Blocks of ids with long unused tails, as environments leave them after a burst.
    ids = [ident for start in range(1, 20_000, 1000) for ident in range(start, start + 7)]
    pages = walk(Index(ids, count), 5)
    assert all(page.items for page in pages[:-1])
    assert pages[-1].resume_after is None


def test_dense_ids_fill_a_page_in_one_round_reading_about_the_page():
    index = Index(range(1, 10_001), 16)
    page = index.page(0, 50)
    assert [item.id for item in page.items] == list(range(1, 51))
    assert page.resume_after == 50
    assert index.reads == 16 and index.items_read <= 50 + 2 * 16


def test_a_rare_value_unevenly_spread_fills_its_page_in_a_few_rounds():
    # Every item of the value on the same two shards: a round's even share runs short.
    ids = [ident for ident in range(1, 4000) if ident % 16 in (3, 9)]
    index = Index(ids, 16)
    page = index.page(0, 50)
    assert [item.id for item in page.items] == sorted(ids)[:50]
    assert index.reads <= 16 * shards.MAX_ROUNDS


def test_the_last_page_says_the_list_ends_and_an_empty_value_has_one_empty_page():
    assert walk(Index([5, 6, 7], 4), 10) == [Page([Item(5), Item(6), Item(7)], None)]
    assert walk(Index([], 4), 10) == [Page([], None)]


def test_a_page_starts_after_the_token_id_whichever_shard_it_was_on():
    index = Index(range(1, 101), 8)
    assert [item.id for item in index.page(37, 4).items] == [38, 39, 40, 41]
