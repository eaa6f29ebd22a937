"""Write-sharded index keys, and lists read back from them in id order
(docs/api.md#lists, docs/capacity.md).

An index partition key with few values (a status, the alert mark) puts every item of a
value in one partition, and one partition takes about 1,000 writes a second. So such a
key is written as `<value>#<shard>`, the shard the id modulo a fixed number of shards:
consecutive ids land on different shards, and a value's writes spread over all of them.

A list of one value is then a merge of its shards, each read in id order. `Merge` reads
a little more than its share from each shard and returns the items that are certain to
come first: those up to the lowest id at which some shard that has more stopped. Every
page it returns holds at least one item while more remain, and the next page starts
after its last id, so pages keep the same tokens as a single partition's.
"""

import math
from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass, field
from typing import Any

from common.storage.paging import Page

# Rounds of reads a page may take to fill up when its items are unevenly spread over
# the shards (a rare status); past them the page is shorter, which lists allow.
MAX_ROUNDS = 3


def shard_of(ident: int, shards: int) -> int:
    return ident % shards


def key(value: str, ident: int, shards: int) -> str:
    """The index key of an item of this id under `value`."""
    return f"{value}#{shard_of(ident, shards)}"


def keys(value: str, shards: int) -> list[str]:
    """Every index key of `value`: the partitions a list of it merges."""
    return [f"{value}#{shard}" for shard in range(shards)]


@dataclass
class _Shard:
    """One partition's progress through a merged list."""

    items: list = field(default_factory=list)  # read, in ascending id
    last: int = 0  # the id the next read starts after
    more: bool = True  # the shard may hold more after `last`


class Merge:
    """One page of the items after id `after`, from several partitions each in id order.

    Drive it as: `while (reads := merge.reads(limit)): merge.add(...)` for each read,
    then `merge.page(limit)`.
    """

    def __init__(
        self,
        partitions: Iterable[Hashable],
        after: int,
        id_of: Callable[[Any], int] = lambda item: item.id,
    ):
        self._shards = {partition: _Shard(last=after) for partition in partitions}
        self._id_of = id_of
        self._rounds = 0

    def reads(self, limit: int) -> dict[Hashable, tuple[int, int]]:
        """{partition: (after id, how many)} to read next; empty when the page is known."""
        if self._rounds >= MAX_ROUNDS or len(self._certain()) >= limit:
            return {}
        # A partition that has already read past where the page would end cannot add
        # to it: only those that stopped below that are read again.
        read = sorted(self._id_of(item) for shard in self._shards.values() for item in shard.items)
        end = read[limit - 1] if len(read) >= limit else None
        open_ = [
            p
            for p, shard in self._shards.items()
            if shard.more and (end is None or shard.last < end)
        ]
        if not open_:
            return {}
        missing = limit - len(self._certain())
        # One more than an even share: with ids spread evenly over the shards (ids are
        # consecutive), one round fills the page.
        each = math.ceil(missing / len(open_)) + 1
        self._rounds += 1
        return {p: (self._shards[p].last, each) for p in open_}

    def add(self, partition: Hashable, items: list, more: bool) -> None:
        """What one read of `partition` returned, in ascending id, and whether the
        partition may hold more after it."""
        shard = self._shards[partition]
        shard.items.extend(items)
        if items:
            shard.last = self._id_of(items[-1])
        # A read that stopped without an item cannot tell where it stopped: treat the
        # partition as done rather than read it forever (only a filtered read can).
        shard.more = more and bool(items)

    def page(self, limit: int) -> Page:
        certain = self._certain()
        taken = certain[:limit]
        more = len(certain) > limit or any(shard.more for shard in self._shards.values())
        if not more:
            return Page(taken, None)
        # A partition with more has an item at or below the bound, so `taken` is never
        # empty here: a page is empty only at the end of the list.
        return Page(taken, self._id_of(taken[-1]))

    def _bound(self) -> int | None:
        """The lowest id at which a partition that has more stopped: every item up to it
        has been read. None: every partition is read to its end."""
        stops = [shard.last for shard in self._shards.values() if shard.more]
        return min(stops) if stops else None

    def _certain(self) -> list:
        bound = self._bound()
        return sorted(
            (
                item
                for shard in self._shards.values()
                for item in shard.items
                if bound is None or self._id_of(item) <= bound
            ),
            key=self._id_of,
        )
