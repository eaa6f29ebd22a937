"""Products in DynamoDB; the only inventory module that knows PynamoDB.

Every write that touches a sku is one transaction with conditions, never
read-then-write: the server decides which of two racing requests wins.
"""

from pynamodb.exceptions import DoesNotExist, PutError, TransactWriteError
from pynamodb.transactions import TransactWrite

from common import shards, storage
from common.errors import Conflict
from common.paging import Page
from common.repository import Repository
from common.settings import Settings
from inventory.model import ALERT_SHARDS, IN_ALERT, ProductModel, SkuClaimModel
from inventory.rules import Product, duplicate_sku, in_alert, unknown_product

COUNTER = "products"
# A write whose transaction was cancelled by a concurrent one re-reads and tries again;
# past this many rounds the client is told to retry (409).
MAX_ATTEMPTS = 5


def item_of(product: Product) -> ProductModel:
    """The item of a product, with its shard of the whole list, and marked for the alert
    index (on its alert shard) while it is in alert: the mark is written in the same put
    as the stock and threshold it follows from."""
    item = storage.listed(storage.to_item(ProductModel, product))
    item.en_alerta = shards.key(IN_ALERT, product.id, ALERT_SHARDS) if in_alert(product) else None
    return item


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

    def replace(self, product: Product) -> None:
        """Store `product` over the one with its id, moving its sku claim if it changed.

        Most updates keep the sku (a new stock, a new price): then the claim is already
        right, and one put on the condition that the product is there with that sku is
        the whole write. Only when that condition fails (the sku changes, or there is no
        such product) is the product read and the claim moved in a transaction.
        """
        self.known(product.id)
        try:
            item_of(product).save(condition=ProductModel.sku == product.sku)
            return
        except PutError as exc:
            if not storage.condition_failed(exc):
                raise
        for _ in range(MAX_ATTEMPTS):
            current = self.get(product.id)
            # The product must still carry the sku we read, so the claims stay in step.
            unchanged = ProductModel.sku == current.sku
            try:
                with TransactWrite(connection=self._connection) as tx:
                    if product.sku != current.sku:
                        tx.save(
                            SkuClaimModel(product.sku, product_id=product.id),
                            condition=SkuClaimModel.sku.does_not_exist(),
                        )
                        tx.delete(
                            SkuClaimModel(current.sku),
                            condition=SkuClaimModel.product_id == product.id,
                        )
                    tx.save(item_of(product), condition=unchanged)
            except TransactWriteError:
                if product.sku != current.sku and self._sku_taken(
                    product.sku, except_by=product.id
                ):
                    raise duplicate_sku(product.sku) from None
                continue
            return
        raise self._conflict(product.id)

    def remove(self, product_id: int) -> None:
        for _ in range(MAX_ATTEMPTS):
            current = self.get(product_id)
            try:
                with TransactWrite(connection=self._connection) as tx:
                    tx.delete(ProductModel(current.id), condition=ProductModel.sku == current.sku)
                    tx.delete(
                        SkuClaimModel(current.sku), condition=SkuClaimModel.product_id == current.id
                    )
            except TransactWriteError:
                continue
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
