"""Products in DynamoDB; with the stock, ledger and warehouse repositories, the only
inventory modules that know PynamoDB.

Every write that touches a sku is one transaction with conditions, never
read-then-write: the server decides which of two racing requests wins. A new product's
units are its first warehouse's row. A replace keeps the units orders hold
(`stockReservado`, never a client's) and every warehouse's row as it is while
`stockActual` stays; a new `stockActual` is the count of the one warehouse holding the
product's units (docs/api.md#stock-per-warehouse), written with the totals in the same
update on the condition that the rows are as read.
"""

from decimal import Decimal
from typing import Any

from pynamodb.exceptions import DoesNotExist, TransactWriteError, UpdateError
from pynamodb.expressions.operand import Path, Value
from pynamodb.transactions import TransactWrite

from common.platform.clock import to_iso, utcnow
from common.platform.errors import Conflict
from common.platform.settings import Cloud
from common.stock.product_model import ACTUAL, AVAILABLE, RESERVED, row_map
from common.stock.records import PRINCIPAL_ID, Product, StockRow
from common.storage import tables as storage
from common.storage.paging import Page
from common.storage.repository import Repository
from inventory.ledger_repository import StockItems, alert_mark, puts_units, row_path
from inventory.model import (
    ALERT_SHARDS,
    IN_ALERT,
    LedgerModel,
    ProductModel,
    SkuClaimModel,
    WarehouseModel,
    product_of,
)
from inventory.rules import (
    duplicate_sku,
    product_reserved,
    stock_in_several_warehouses,
    unknown_product,
    unknown_warehouse,
)

COUNTER = "products"
# A write whose transaction was cancelled by a concurrent one re-reads and tries again;
# past this many rounds the client is told to retry (409).
MAX_ATTEMPTS = 5

__all__ = ["ALERT_SHARDS", "IN_ALERT", "ProductRepository", "alert_mark", "item_of"]


def item_of(product: Product) -> ProductModel:
    """The item of a product, with its shard of the whole list, and marked for the alert
    index (on its alert shard) while it is in alert: the mark is written in the same put
    as the stock and threshold it follows from."""
    item = storage.listed(storage.to_item(ProductModel, product))
    item.en_alerta = alert_mark(product.id, product.stock_actual, product.umbral_minimo)
    item.movido = to_iso(utcnow())
    return item


def replaced(product: Product) -> list[Any]:
    """The update that replaces every field a client sets but the stock, which stays."""
    m = ProductModel
    optional = [
        attribute.set(value) if value is not None else attribute.remove()
        for attribute, value in (
            (m.bodega, product.bodega),
            (m.descripcion, product.descripcion),
            (m.en_alerta, alert_mark(product.id, product.stock_actual, product.umbral_minimo)),
        )
    ]
    return [
        m.sku.set(product.sku),
        m.nombre.set(product.nombre),
        m.precio_unitario.set(Decimal(product.precio_unitario)),
        m.umbral_minimo.set(product.umbral_minimo),
        *optional,
    ]


def in_principal(product: Product) -> tuple[list[Any], Any]:
    """A replace's stock, without reading it, where every unit and reservation is in
    PRINCIPAL (a product kept in one warehouse): PRINCIPAL's count is `stockActual`, the
    totals with it; on the condition that the totals are PRINCIPAL's."""
    m, actual = ProductModel, product.stock_actual
    reserved = row_path(PRINCIPAL_ID, RESERVED)
    actions = [
        row_path(PRINCIPAL_ID, ACTUAL).set(actual),
        row_path(PRINCIPAL_ID, AVAILABLE).set(Value(actual) - reserved),
        m.stock_actual.set(actual),
        m.stock_disponible.set(Value(actual) - Path(m.stock_reservado)),
    ]
    all_there = (m.stock_actual == row_path(PRINCIPAL_ID, ACTUAL)) & (
        Path(m.stock_reservado) == reserved
    )
    return actions, all_there


def recounted(current: Product, stock_actual: int) -> tuple[list[Any], Any]:
    """A new `stockActual`: the count of the one warehouse holding the product's units
    (PRINCIPAL when none does), the totals moved by as much; on the condition that the
    totals and that row are as read. STOCK_IN_SEVERAL_WAREHOUSES when several hold them."""
    m = ProductModel
    holding = [row for row in current.existencias if row.holds_units]
    if len(holding) > 1:
        raise stock_in_several_warehouses(current.id, [row.bodega_id for row in holding])
    row = holding[0] if holding else current.row(PRINCIPAL_ID)
    change = stock_actual - current.stock_actual
    condition = (m.stock_actual == current.stock_actual) & m.existencias.exists()
    actions = [
        m.stock_actual.set(stock_actual),
        m.stock_disponible.set(current.stock_disponible + change),
        m.movido.set(to_iso(utcnow())),
    ]
    if row is None:  # no row in PRINCIPAL yet: its first
        made = StockRow(bodega_id=PRINCIPAL_ID, stock_actual=stock_actual)
        actions.append(row_path(PRINCIPAL_ID).set({"M": row_map(made)}))
        return actions, condition & row_path(PRINCIPAL_ID).does_not_exist()
    b = row.bodega_id
    actions += [
        row_path(b, ACTUAL).set(row.stock_actual + change),
        row_path(b, AVAILABLE).set(row.stock_disponible + change),
    ]
    condition &= (row_path(b, ACTUAL) == row.stock_actual) & (
        row_path(b, RESERVED) == row.stock_reservado
    )
    return actions, condition


class ProductRepository(Repository):
    def __init__(self, cloud: Cloud):
        super().__init__(
            cloud,
            ProductModel,
            Product,
            counter=COUNTER,
            unknown=unknown_product,
            other_models=(SkuClaimModel, LedgerModel, WarehouseModel),
            item_of=item_of,
            entity_of=product_of,
        )
        self._connection = storage.connection(cloud)
        self._stock = StockItems(cloud)

    def alerts_page(self, after: int, limit: int) -> Page:
        """Products in alert, from the sparse index's shards: reads follow the alerts,
        not the catalog."""
        return self._sharded_page(ProductModel.alerts, IN_ALERT, ALERT_SHARDS, after, limit)

    def add(self, product: Product, bodega_id: int = PRINCIPAL_ID) -> None:
        """A new product, its units in `bodega_id` (their first row); NotFound
        WAREHOUSE_NOT_FOUND when that warehouse is not there (or is being deleted)."""
        first = StockRow(bodega_id=bodega_id, stock_actual=product.stock_actual)
        item = item_of(Product(**{**_fields(product), "existencias": (first,)}))
        for _ in range(MAX_ATTEMPTS):
            try:
                with TransactWrite(connection=self._connection) as tx:
                    tx.save(
                        SkuClaimModel(product.sku, product_id=product.id),
                        condition=SkuClaimModel.sku.does_not_exist(),
                    )
                    tx.save(item, condition=ProductModel.id.does_not_exist())
                    puts_units(tx, product.id, bodega_id)
            except TransactWriteError:
                if self._sku_taken(product.sku):
                    raise duplicate_sku(product.sku) from None
                if not self._warehouse_open(bodega_id):
                    raise unknown_warehouse(bodega_id) from None
                continue  # cancelled by a conflicting transaction that did not win: retry
            return
        raise self._conflict(product.id)

    def _current(self, ident: int) -> Product:
        """The product as its stock writes read it (one stored before warehouses carried
        into PRINCIPAL first)."""
        found = self._stock.product(self.known(ident))
        if found is None:
            raise unknown_product(ident)
        return found

    def replace(self, product: Product) -> Product:
        """Store `product`'s fields over the product with its id, moving its sku claim if
        it changed; returns the product as stored (with the units orders hold).

        Most updates keep the sku (a new price, a recount, a product sent back as it was
        read), and most products are kept in one warehouse: then the claim is already
        right, and one update on the condition that the product is there with that sku
        and every unit in PRINCIPAL, counting `stockActual` there, is the whole write; or,
        its units elsewhere, one that keeps the stock on the condition that it is as sent.
        Only when neither holds (the sku changes, a new count for units elsewhere, no
        such product) is the product read, and the claim moved in a transaction.
        """
        m = ProductModel
        item = m(self.known(product.id))
        same_sku = (m.sku == product.sku) & m.existencias.exists()
        counted, all_there = in_principal(product)
        for actions, condition in (
            (replaced(product) + counted, same_sku & all_there),
            (replaced(product), same_sku & (m.stock_actual == product.stock_actual)),
        ):
            try:
                item.update(actions=[*actions, m.movido.set(to_iso(utcnow()))], condition=condition)
                return product_of(item)
            except UpdateError as exc:
                if not storage.condition_failed(exc):
                    raise
        for _ in range(MAX_ATTEMPTS):
            current = self._current(product.id)
            try:
                self._replace_with_claim(product, current)
            except TransactWriteError:
                if product.sku != current.sku and self._sku_taken(
                    product.sku, except_by=product.id
                ):
                    raise duplicate_sku(product.sku) from None
                continue
            return self._current(product.id)
        raise self._conflict(product.id)

    def _replace_with_claim(self, product: Product, current: Product) -> None:
        """The replace, the stock's recount if it changed, and the sku claim's move if it
        changed, in one transaction; the product must still carry the sku read, so the
        claims stay in step."""
        actions, condition = replaced(product), ProductModel.sku == current.sku
        if product.stock_actual != current.stock_actual:
            counted, as_read = recounted(current, product.stock_actual)
            actions, condition = actions + counted, condition & as_read
        with TransactWrite(connection=self._connection) as tx:
            if product.sku != current.sku:
                tx.save(
                    SkuClaimModel(product.sku, product_id=product.id),
                    condition=SkuClaimModel.sku.does_not_exist(),
                )
                tx.delete(
                    SkuClaimModel(current.sku), condition=SkuClaimModel.product_id == product.id
                )
            tx.update(ProductModel(product.id), actions=actions, condition=condition)

    def remove(self, product_id: int) -> None:
        """Delete the product and free its sku, unless orders hold some of its units."""
        unreserved = ProductModel.stock_reservado.does_not_exist() | (
            ProductModel.stock_reservado == 0
        )
        for _ in range(MAX_ATTEMPTS):
            current = self.get(product_id)
            if current.stock_reservado:
                raise product_reserved(current)
            try:
                with TransactWrite(connection=self._connection) as tx:
                    tx.delete(
                        ProductModel(current.id),
                        condition=(ProductModel.sku == current.sku) & unreserved,
                    )
                    tx.delete(
                        SkuClaimModel(current.sku), condition=SkuClaimModel.product_id == current.id
                    )
            except TransactWriteError:
                continue  # changed meanwhile (its sku, or units reserved): read it again
            return
        raise self._conflict(product_id)

    @staticmethod
    def _warehouse_open(bodega_id: int) -> bool:
        if bodega_id == PRINCIPAL_ID:
            return True
        try:
            return WarehouseModel.get(bodega_id, consistent_read=True).cerrando is None
        except DoesNotExist:
            return False

    @staticmethod
    def _sku_taken(sku: str, except_by: int | None = None) -> bool:
        """After a cancelled transaction: is the sku claimed by another product?

        The server already decided atomically; this read only tells the client why. Which
        operation failed cannot be read off the cancellation reasons reliably, because
        PynamoDB regroups a transaction's operations by kind before sending them.
        """
        try:
            claim = SkuClaimModel.get(sku, consistent_read=True)
        except DoesNotExist:
            return False
        return claim.product_id != except_by

    @staticmethod
    def _conflict(product_id: int) -> Conflict:
        return Conflict(
            "CONCURRENT_UPDATE", f"Product {product_id} kept changing while being written; retry"
        )


def _fields(product: Product) -> dict:
    """A product's fields as its constructor takes them (stockDisponible is derived)."""
    return {
        name: getattr(product, name)
        for name in Product.__dataclass_fields__
        if Product.__dataclass_fields__[name].init
    }
