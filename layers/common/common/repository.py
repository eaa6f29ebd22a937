"""The verbs every repository shares: ids from its counter, get, list by id, add.

A service's repository is one of these for its table and domain type, plus the verbs
only it has (a sku claim, a status change). All of it speaks domain objects.
"""

from collections.abc import Callable

from pynamodb.models import Model

from common import storage
from common.counters import CounterModel, next_id
from common.errors import NotFound
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

    def list_all(self) -> list:
        return [storage.to_domain(item, self._entity)
                for item in storage.all_by_id(self._model)]

    def add(self, entity) -> None:
        storage.insert(storage.to_item(self._model, entity))
