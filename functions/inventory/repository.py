"""Product storage behind plain functions; the routes never see DynamoDB.

Every write that touches a sku is one transaction with conditions, never
read-then-write: the server decides which of two racing requests wins.
"""

from functools import cache

from pynamodb.connection import Connection
from pynamodb.exceptions import DoesNotExist, TransactWriteError
from pynamodb.transactions import TransactWrite

from common import config
from common.errors import ApiError
from common.ids import next_id
from common.storage import all_by_id, get_or_404
from inventory.model import ProductModel, SkuClaimModel
from inventory.rules import ProductFields

COUNTER = "products"
# A write whose transaction was cancelled by a concurrent one re-reads and tries again;
# past this many rounds the client is told to retry (409).
MAX_ATTEMPTS = 5


@cache
def _connection() -> Connection:
    # Building a Connection builds a botocore client (~80 ms): once per process.
    return Connection(region=config.aws_region())


def _transaction() -> TransactWrite:
    return TransactWrite(connection=_connection())


def _duplicate_sku(sku: str) -> ApiError:
    return ApiError(400, "DUPLICATE_SKU", f"A product with sku {sku!r} already exists")


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


def get(product_id: int | None) -> ProductModel:
    return get_or_404(ProductModel, product_id, "PRODUCT_NOT_FOUND", "Product")


def list_all() -> list[ProductModel]:
    return all_by_id(ProductModel)


def create(fields: ProductFields) -> ProductModel:
    product = ProductModel(next_id(COUNTER), **fields.as_attributes())
    for _ in range(MAX_ATTEMPTS):
        try:
            with _transaction() as tx:
                tx.save(SkuClaimModel(fields.sku, product_id=product.id),
                        condition=SkuClaimModel.sku.does_not_exist())
                tx.save(product, condition=ProductModel.id.does_not_exist())
        except TransactWriteError:
            if _sku_taken(fields.sku):
                raise _duplicate_sku(fields.sku) from None
            continue  # cancelled by a conflicting transaction that did not win: retry
        return product
    raise _conflict(product.id)


def replace(product_id: int | None, fields: ProductFields) -> ProductModel:
    for _ in range(MAX_ATTEMPTS):
        current = get(product_id)
        updated = ProductModel(current.id, **fields.as_attributes())
        # The product must still carry the sku we read, so the claims stay in step.
        unchanged = ProductModel.sku == current.sku
        try:
            with _transaction() as tx:
                if fields.sku != current.sku:
                    tx.save(SkuClaimModel(fields.sku, product_id=current.id),
                            condition=SkuClaimModel.sku.does_not_exist())
                    tx.delete(SkuClaimModel(current.sku),
                              condition=SkuClaimModel.product_id == current.id)
                tx.save(updated, condition=unchanged)
        except TransactWriteError:
            if fields.sku != current.sku and _sku_taken(fields.sku, except_by=current.id):
                raise _duplicate_sku(fields.sku) from None
            continue
        return updated
    raise _conflict(product_id)


def delete(product_id: int | None) -> None:
    for _ in range(MAX_ATTEMPTS):
        current = get(product_id)
        try:
            with _transaction() as tx:
                tx.delete(current, condition=ProductModel.sku == current.sku)
                tx.delete(SkuClaimModel(current.sku),
                          condition=SkuClaimModel.product_id == current.id)
        except TransactWriteError:
            continue
        return
    raise _conflict(product_id)


def _conflict(product_id) -> ApiError:
    return ApiError(409, "CONCURRENT_UPDATE",
                    f"Product {product_id} kept changing while being written; retry")
