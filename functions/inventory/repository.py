"""Products in DynamoDB; with inventory/stock_repository.py, the only inventory modules
that know PynamoDB.

Every write that touches a sku is one transaction with conditions, never
read-then-write: the server decides which of two racing requests wins. A replace keeps
the units orders hold (`stockReservado`, never a client's) and derives what is left
from them in the same write.
"""

from decimal import Decimal
from typing import Any

from pynamodb.exceptions import DoesNotExist, TransactWriteError, UpdateError
from pynamodb.transactions import TransactWrite

from common import shards, storage
from common.errors import Conflict
from common.paging import Page
from common.repository import Repository
from common.settings import Settings
from inventory.model import ALERT_SHARDS, IN_ALERT, ProductModel, SkuClaimModel, product_of
from inventory.rules import Product, duplicate_sku, product_reserved, unknown_product

COUNTER = "products"
# A write whose transaction was cancelled by a concurrent one re-reads and tries again;
# past this many rounds the client is told to retry (409).
MAX_ATTEMPTS = 5


def alert_mark(product_id: int, stock_actual: int, umbral_minimo: int) -> str | None:
    """The alert index's key while the product is in alert (inventory.rules.in_alert)."""
    below = stock_actual < umbral_minimo
    return shards.key(IN_ALERT, product_id, ALERT_SHARDS) if below else None


def item_of(product: Product) -> ProductModel:
    """The item of a product, with its shard of the whole list, and marked for the alert
    index (on its alert shard) while it is in alert: the mark is written in the same put
    as the stock and threshold it follows from."""
    item = storage.listed(storage.to_item(ProductModel, product))
    item.en_alerta = alert_mark(product.id, product.stock_actual, product.umbral_minimo)
    return item


def replaced(product: Product) -> list[Any]:
    """The update that replaces every field a client sets, keeping the units reserved
    (none on an item written before reservations) and deriving what is left of them."""
    m = ProductModel
    reserved = m.stock_reservado | 0  # PynamoDB's if_not_exists(stockReservado, 0)
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
        m.stock_actual.set(product.stock_actual),
        m.umbral_minimo.set(product.umbral_minimo),
        m.stock_reservado.set(reserved),
        m.stock_disponible.set(product.stock_actual - reserved),
        *optional,
    ]


class ProductRepository(Repository):
    def __init__(self, settings: Settings):
        super().__init__(
            settings,
            ProductModel,
            Product,
            counter=COUNTER,
            unknown=unknown_product,
            other_models=(SkuClaimModel,),
            item_of=item_of,
            entity_of=product_of,
        )
        self._connection = storage.connection(settings)

    def alerts_page(self, after: int, limit: int) -> Page:
        """Products in alert, from the sparse index's shards: reads follow the alerts,
        not the catalog."""
        return self._sharded_page(ProductModel.alerts, IN_ALERT, ALERT_SHARDS, after, limit)

    def add(self, product: Product) -> None:
        for _ in range(MAX_ATTEMPTS):
            try:
                with TransactWrite(connection=self._connection) as tx:
                    tx.save(
                        SkuClaimModel(product.sku, product_id=product.id),
                        condition=SkuClaimModel.sku.does_not_exist(),
                    )
                    tx.save(item_of(product), condition=ProductModel.id.does_not_exist())
            except TransactWriteError:
                if self._sku_taken(product.sku):
                    raise duplicate_sku(product.sku) from None
                continue  # cancelled by a conflicting transaction that did not win: retry
            return
        raise self._conflict(product.id)

    def replace(self, product: Product) -> Product:
        """Store `product`'s fields over the product with its id, moving its sku claim if
        it changed; returns the product as stored (with the units orders hold).

        Most updates keep the sku (a new stock, a new price): then the claim is already
        right, and one update on the condition that the product is there with that sku is
        the whole write. Only when that condition fails (the sku changes, or there is no
        such product) is the product read and the claim moved in a transaction.
        """
        item = ProductModel(self.known(product.id))
        try:
            item.update(actions=replaced(product), condition=ProductModel.sku == product.sku)
            return product_of(item)
        except UpdateError as exc:
            if not storage.condition_failed(exc):
                raise
        for _ in range(MAX_ATTEMPTS):
            current = self.get(product.id)
            try:
                self._replace_with_claim(product, current)
            except TransactWriteError:
                if product.sku != current.sku and self._sku_taken(
                    product.sku, except_by=product.id
                ):
                    raise duplicate_sku(product.sku) from None
                continue
            return self.get(product.id)
        raise self._conflict(product.id)

    def _replace_with_claim(self, product: Product, current: Product) -> None:
        """The replace and the sku claim's move, in one transaction; the product must still
        carry the sku read, so the claims stay in step."""
        with TransactWrite(connection=self._connection) as tx:
            if product.sku != current.sku:
                tx.save(
                    SkuClaimModel(product.sku, product_id=product.id),
                    condition=SkuClaimModel.sku.does_not_exist(),
                )
                tx.delete(
                    SkuClaimModel(current.sku), condition=SkuClaimModel.product_id == product.id
                )
            tx.update(
                ProductModel(product.id),
                actions=replaced(product),
                condition=ProductModel.sku == current.sku,
            )

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
