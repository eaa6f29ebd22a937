"""`make check-stock`: the stock's invariants checked, product by product and warehouse by
warehouse (docs/operations.md#warehouses-and-order-lines): in each warehouse, the units
reserved are the sum of the reservations held there (the stock ledger) and what is
available is what is on hand less them; a product's totals are the sums over its
warehouses. It prints what differs and exits 1 if anything does; it changes nothing.
The stock repair puts such a difference right by itself (each run checks a slice of the
catalog: the whole of it every 32 minutes on AWS), as it does what a crash leaves
(docs/api.md#stock-follows-orders).

A product whose units moved in the last STOCK_REPAIR_GRACE_SECONDS (60 by default) is
not checked: a move of it may still be on its way into the indexes this reads.

Without STAGE: the running local stack's tables. With STAGE=dev|prod: that deployed
stack's, with your AWS credentials (Scan and Query on them).
"""

import argparse
import sys
from collections import defaultdict
from datetime import timedelta

from common.platform.clock import to_iso, utcnow
from infra.stock_migration import settings_for
from inventory import rules
from inventory.ledger_repository import StockItems, line_of
from inventory.model import LedgerModel, ProductModel, product_of

GRACE_SECONDS = 60


def findings(settings, settled_before: str) -> list[dict]:
    """What differs, over the whole catalog (a scan of the products and of the ledger)."""
    StockItems(settings)  # binds the models
    held: dict[int, list] = defaultdict(list)
    for item in LedgerModel.scan(LedgerModel.retiene.exists(), consistent_read=True):
        held[int(item.producto_id)].append(line_of(item))
    found = []
    for product in ProductModel.scan(consistent_read=True):
        if (product.movido or "") > settled_before:
            continue
        available = product.stock_disponible
        stored = int(available) if available is not None else None
        units = rules.held_units(held.get(int(product.id), []))
        found.extend(rules.drift(product_of(product), units, stored))
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stage", help="a samconfig.toml environment (dev, prod)")
    args = parser.parse_args()
    settled_before = to_iso(utcnow() - timedelta(seconds=GRACE_SECONDS))
    found = findings(settings_for(args.stage), settled_before)
    for f in found:
        where = f"warehouse {f['bodegaId']}" if f["bodegaId"] is not None else "in all"
        print(
            f"product {f['productoId']} {where}: {f['campo']} is {f['visto']}, "
            f"the ledger says {f['esperado']}"
        )
    print(f"{len(found)} differences" if found else "The stock's counters agree with its ledger.")
    sys.exit(1 if found else 0)


if __name__ == "__main__":
    main()
