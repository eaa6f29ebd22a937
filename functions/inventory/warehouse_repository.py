"""Warehouses in DynamoDB (docs/api.md#warehouses); with the product and stock
repositories, the only inventory modules that know PynamoDB.

A warehouse and its code's claim are written in one transaction with conditions, so a
duplicate code fails on the server even under concurrency (as a product's sku does).
PRINCIPAL (id 1) is every stack's from its start: `make run` and `make migrate-stock`
write it, and any read that finds it missing (a stack deployed and never migrated, a
test's emptied tables) writes it first, once, with conditions: ids handed out to new
warehouses never include 1.
"""

from collections.abc import Iterable
from typing import Any

from pynamodb.exceptions import DoesNotExist, TransactWriteError, UpdateError
from pynamodb.transactions import TransactWrite

from common.platform.clock import to_iso, utcnow
from common.platform.errors import Conflict
from common.platform.settings import Cloud
from common.stock.records import PRINCIPAL_CODE, PRINCIPAL_ID, Warehouse, principal
from common.storage import tables as storage
from common.storage.paging import Page
from common.storage.repository import Repository
from inventory.model import WarehouseCodeModel, WarehouseModel, warehouse_of
from inventory.rules import duplicate_code, unknown_warehouse

COUNTER = "warehouses"


def item_of(warehouse: Warehouse) -> WarehouseModel:
    return storage.listed(storage.to_item(WarehouseModel, warehouse))


class WarehouseRepository(Repository):
    def __init__(self, cloud: Cloud):
        super().__init__(
            cloud,
            WarehouseModel,
            Warehouse,
            counter=COUNTER,
            unknown=unknown_warehouse,
            other_models=(WarehouseCodeModel,),
            item_of=item_of,
            entity_of=warehouse_of,
        )
        self._connection = storage.connection(cloud)

    def next_id(self) -> int:
        """The next id from the counter; never PRINCIPAL's."""
        ident = super().next_id()
        return super().next_id() if ident == PRINCIPAL_ID else ident

    def ensure_principal(self) -> None:
        """PRINCIPAL written, unless it is there already (a no-op then)."""
        item = item_of(principal(to_iso(utcnow())))
        try:
            with TransactWrite(connection=self._connection) as tx:
                tx.save(item, condition=WarehouseModel.id.does_not_exist())
                tx.save(
                    WarehouseCodeModel(PRINCIPAL_CODE, bodega_id=PRINCIPAL_ID),
                    condition=WarehouseCodeModel.codigo.does_not_exist(),
                )
        except TransactWriteError:
            pass  # there already (or being written by another request at this moment)

    def get(self, ident: int) -> Warehouse:
        item = storage.get_item(WarehouseModel, self.known(ident))
        if item is None and ident == PRINCIPAL_ID:
            self.ensure_principal()
            item = storage.get_item(WarehouseModel, ident)
        if item is None:
            raise unknown_warehouse(ident)
        return warehouse_of(item)

    def several(self, idents: Iterable[int]) -> dict[int, Warehouse]:
        found = super().several(idents)
        if PRINCIPAL_ID in set(idents) and PRINCIPAL_ID not in found:
            found[PRINCIPAL_ID] = self.get(PRINCIPAL_ID)
        return found

    def page(self, after: int, limit: int) -> Page:
        page = super().page(after, limit)
        first = [w.id for w in page.items[:1]]
        if after < PRINCIPAL_ID and first != [PRINCIPAL_ID]:
            self.ensure_principal()  # a list from the start always holds PRINCIPAL
            page = super().page(after, limit)
        return page

    def add(self, warehouse: Warehouse) -> None:
        if warehouse.codigo == PRINCIPAL_CODE:
            raise duplicate_code(warehouse.codigo)
        try:
            with TransactWrite(connection=self._connection) as tx:
                tx.save(
                    WarehouseCodeModel(warehouse.codigo, bodega_id=warehouse.id),
                    condition=WarehouseCodeModel.codigo.does_not_exist(),
                )
                tx.save(item_of(warehouse), condition=WarehouseModel.id.does_not_exist())
        except TransactWriteError:
            raise duplicate_code(warehouse.codigo) from None

    def replace(self, warehouse: Warehouse) -> Warehouse:
        """Its name, region and priority; its code and creation stay."""
        m = WarehouseModel
        item = m(self.known(warehouse.id))
        actions: list[Any] = [
            m.nombre.set(warehouse.nombre),
            m.region.set(warehouse.region) if warehouse.region is not None else m.region.remove(),
            m.prioridad.set(warehouse.prioridad),
        ]
        try:
            item.update(actions=actions, condition=m.id.exists())
        except UpdateError as exc:
            if storage.condition_failed(exc):
                raise unknown_warehouse(warehouse.id) from None
            raise
        return warehouse_of(item)

    # -- a delete: closed first, so that nothing is put there while it is checked ---------

    def close(self, ident: int, now: str) -> None:
        """Marked closing (`now`): from here no unit may be put there
        (inventory.stock_repository checks the mark). NotFound when there is none."""
        m = WarehouseModel
        try:
            m(self.known(ident)).update(actions=[m.cerrando.set(now)], condition=m.id.exists())
        except UpdateError as exc:
            if storage.condition_failed(exc):
                raise unknown_warehouse(ident) from None
            raise

    def reopen(self, ident: int, closed_at: str) -> None:
        m = WarehouseModel
        try:
            m(ident).update(actions=[m.cerrando.remove()], condition=m.cerrando == closed_at)
        except UpdateError as exc:
            if not storage.condition_failed(exc):
                raise

    def remove(self, ident: int, closed_at: str) -> None:
        """The warehouse and its code's claim deleted, if still closed as this delete
        closed it."""
        try:
            current = WarehouseModel.get(ident, consistent_read=True)
        except DoesNotExist:
            return
        try:
            with TransactWrite(connection=self._connection) as tx:
                tx.delete(WarehouseModel(ident), condition=WarehouseModel.cerrando == closed_at)
                tx.delete(
                    WarehouseCodeModel(current.codigo),
                    condition=WarehouseCodeModel.bodega_id == ident,
                )
        except TransactWriteError:
            raise Conflict(
                "CONCURRENT_UPDATE", f"Warehouse {ident} was being deleted twice at once; retry"
            ) from None
