"""The verbs every repository shares: ids in blocks from its counter, get, a page by id,
add.

A service's repository is one of these for its table and domain type, plus the verbs
only it has (a sku claim, a status change, a filtered page). All of it speaks domain
objects.

No create writes a key that every create writes (docs/capacity.md). Ids come in blocks
(common.storage.id_blocks), so the counter item is written once per block, not per id. A page
of the whole list is read from the byShard index (storage.ListIndex): each id is there
under its shard, and a page merges the shards in id order (common.storage.shards), then reads
those items by key, consistently (BatchGetItem). So a page follows the ids that exist:
the unused tail of a block, or an id whose create failed, costs nothing and never makes
an empty page. Lists filtered on a value with few possible values (a status, the alert
mark) merge that value's shards the same way.
"""

import contextvars
import functools
import threading
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from pynamodb.models import Model

from common.platform.errors import NotFound
from common.platform.ids import possible_id
from common.platform.settings import Cloud
from common.storage import counters, shards
from common.storage import tables as storage
from common.storage.counters import CounterModel
from common.storage.id_blocks import IdBlocks
from common.storage.paging import Page

# A page reads its shards at once: their queries wait on the network side by side.
_PARALLEL_READS = 32
_readers: ThreadPoolExecutor | None = None
_readers_lock = threading.Lock()


def _in_parallel(calls: list[Callable[[], object]]) -> list:
    """Each call's result, in order; the calls run in threads, each in a copy of the
    caller's context (the acting function, common.platform.aws).

    The first time (in a process), the first call runs alone before the others: PynamoDB
    builds a model's client on its first call, unlocked, so threads that all found none
    built one each (the event sweep's first run, with no warm-up: 32 clients and 0.59 s,
    against 0.06 s for the next)."""
    global _readers
    if len(calls) == 1:
        return [calls[0]()]
    with _readers_lock:
        first = _readers is None
        if first:
            _readers = ThreadPoolExecutor(_PARALLEL_READS, thread_name_prefix="shard-read")
    assert _readers is not None
    alone = [calls[0]()] if first else []
    futures = [
        _readers.submit(contextvars.copy_context().run, call) for call in calls[len(alone) :]
    ]
    return alone + [future.result() for future in futures]


def merged_page(
    index: Any,
    sort_key: Any,
    partitions: Iterable,
    after: int,
    limit: int,
    id_of: Callable[[Any], int] = lambda item: item.id,
) -> Page:
    """The first `limit` items after `after` of several partitions of an index whose sort
    key (`sort_key`, an attribute) is a number, merged in its order (common.storage.shards.Merge);
    the partitions of a round are read side by side."""
    merge = shards.Merge(partitions, after, id_of)
    while reads := merge.reads(limit):
        answers = _in_parallel(
            [
                functools.partial(_read, index, sort_key, partition, *read)
                for partition, read in reads.items()
            ]
        )
        for partition, (items, more) in zip(reads, answers, strict=True):
            merge.add(partition, items, more)
    return merge.page(limit)


def _read(
    index: Any, sort_key: Any, partition: object, after: int, limit: int
) -> tuple[list, bool]:
    results = index.query(partition, sort_key > after, limit=limit, page_size=limit)
    items = list(results)
    return items, results.last_evaluated_key is not None


class Repository:
    def __init__(
        self,
        cloud: Cloud,
        model: type[Model],
        entity: type,
        *,
        counter: str,
        unknown: Callable[[int], NotFound],
        other_models: tuple = (),
        item_of: Callable[[Any], Model] | None = None,
        entity_of: Callable[[Any], Any] | None = None,
    ):
        """`item_of(entity)`: the item a put stores for it, with every attribute an index
        derives from it; by default its fields and its place in the byShard index.
        `entity_of(item)`: the entity of a stored item; by default its fields."""
        storage.bind(cloud, model, CounterModel, *other_models)
        # Typed as any model: each one declares its own id and byShard index.
        self._model: Any = model
        self._entity = entity
        self._unknown = unknown
        self._item_of = item_of or (lambda entity: storage.listed(storage.to_item(model, entity)))
        self._entity_of = entity_of or (lambda item: storage.to_domain(item, entity))
        self._ids = IdBlocks(functools.partial(counters.reserve, counter))

    def next_id(self) -> int:
        return self._ids.next_id()

    def known(self, ident: int) -> int:
        """`ident`, if some item could have it: every verb that names an item by its id
        asks this first, so a number no id can be (0, 45 digits) is not found alike by
        each, and never reaches DynamoDB as a key it would refuse."""
        if not possible_id(ident):
            raise self._unknown(ident)
        return ident

    def get(self, ident: int) -> Any:
        found = self.found(ident)
        if found is None:
            raise self._unknown(ident)
        return found

    def found(self, ident: int) -> Any | None:
        """The item of `ident` as stored now; None when there is none."""
        item = storage.get_item(self._model, self.known(ident))
        return None if item is None else self._entity_of(item)

    def several(self, idents: Iterable[int]) -> dict[int, Any]:
        """The items of these ids that exist, read consistently, by id."""
        wanted = sorted({ident for ident in idents if possible_id(ident)})
        found = self._model.batch_get(wanted, consistent_read=True) if wanted else []
        return {entity.id: entity for entity in map(self._entity_of, found)}

    def page(self, after: int, limit: int) -> Page:
        """The ids from the byShard index, then their items read consistently: an item
        deleted in between only makes the page shorter."""
        ids = self._merged(self._model.by_shard, range(storage.LIST_SHARDS), after, limit)
        return self._read_page(ids)

    def _read_page(self, ids: Page) -> Page:
        """The items of a page of keys, read consistently by key, in ascending id."""
        if not ids.items:
            return Page([], ids.resume_after)
        found = self._model.batch_get([key.id for key in ids.items], consistent_read=True)
        items: list[Any] = sorted(
            (self._entity_of(item) for item in found), key=lambda entity: entity.id
        )
        return Page(items, ids.resume_after)

    def _sharded_read_page(
        self, index: Any, value: str, count: int, after: int, limit: int
    ) -> Page:
        """As _sharded_page, but the items read by key: for an index that does not
        project every attribute the entity has."""
        return self._read_page(self._merged(index, shards.keys(value, count), after, limit))

    def _sharded_page(self, index: Any, value: str, count: int, after: int, limit: int) -> Page:
        """A page of the items under `value` in an index written over `count` shards
        (common.storage.shards), in ascending id."""
        page = self._merged(index, shards.keys(value, count), after, limit)
        return Page([self._entity_of(item) for item in page.items], page.resume_after)

    def _merged(self, index: Any, partitions: Iterable, after: int, limit: int) -> Page:
        return merged_page(index, self._model.id, partitions, after, limit)

    def _index_page(
        self,
        index: Any,
        hash_value: object,
        after: int,
        limit: int,
        filter_condition: Any = None,
    ) -> Page:
        """A page of an index whose sort key is the id: the items after `after`,
        ascending, at most `limit` read (a filter may keep fewer), and where the next
        page starts. Reads follow the items returned, not the table."""
        results = index.query(
            hash_value,
            self._model.get_attributes()["id"] > after,
            limit=limit,
            page_size=limit,
            filter_condition=filter_condition,
        )
        items: list[Any] = [self._entity_of(item) for item in results]
        resume = results.last_evaluated_key
        return Page(items, int(resume["id"]["N"]) if resume else None)

    def add(self, entity: Any) -> None:
        storage.insert(self._item_of(entity))
