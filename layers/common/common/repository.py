"""The verbs every repository shares: ids from its counter, get, a page by id, add.

A service's repository is one of these for its table and domain type, plus the verbs
only it has (a sku claim, a status change, a filtered page). All of it speaks domain
objects.

A page of the whole list is read by key, not by scanning: ids are dense (a counter hands
them out), so the page after id A of at most N items is the keys A+1 .. A+N, one
BatchGetItem per 100, stopping at the counter's value. It costs one counter read and N
keys whatever the table's size, and needs no index, so it adds no write ceiling. An id
whose item is gone (a deleted product, a create that failed) makes that page shorter;
the next page goes on from the end of the window.
"""

from collections.abc import Callable

from pynamodb.models import Model

from common import storage
from common.counters import CounterModel, current, next_id
from common.errors import NotFound
from common.paging import Page
from common.settings import Settings


class Repository:
    def __init__(self, settings: Settings, model: type[Model], entity: type, *, counter: str,
                 unknown: Callable[[int], NotFound], other_models: tuple = ()):
        storage.bind(settings, model, CounterModel, *other_models)
        self._model, self._entity = model, entity
        self._counter, self._unknown = counter, unknown

    def next_id(self) -> int:
        return next_id(self._counter)

    def get(self, ident: int):
        item = storage.get_item(self._model, ident)
        if item is None:
            raise self._unknown(ident)
        return storage.to_domain(item, self._entity)

    def page(self, after: int, limit: int) -> Page:
        last = current(self._counter)
        end = min(after + limit, last)
        if end <= after:
            return Page([], None)
        found = self._model.batch_get(range(after + 1, end + 1), consistent_read=True)
        items = sorted((storage.to_domain(item, self._entity) for item in found),
                       key=lambda entity: entity.id)
        return Page(items, end if end < last else None)

    def _index_page(self, index, hash_value, after: int, limit: int,
                    filter_condition=None) -> Page:
        """A page of an index whose sort key is the id: the items after `after`,
        ascending, at most `limit` read (a filter may keep fewer), and where the next
        page starts. Reads follow the items returned, not the table."""
        results = index.query(hash_value, self._model.get_attributes()["id"] > after, limit=limit,
                              page_size=limit, filter_condition=filter_condition)
        items = [storage.to_domain(item, self._entity) for item in results]
        resume = results.last_evaluated_key
        return Page(items, int(resume["id"]["N"]) if resume else None)

    def add(self, entity) -> None:
        storage.insert(storage.to_item(self._model, entity))
