"""`make backfill-figures`: the dashboard's figures put right from the tables themselves
(docs/operations.md#the-dashboards-figures).

The figures function counts each change its streams deliver (functions/dashboard_figures);
a stream delivers the changes made since it was read, never the items written before.
This reads every product, order and shipment and counts each one the figures do not
hold as it is (never counted, or counted as it was: a change a stream never delivered),
and takes out what the figures hold of an item that is gone. It writes only those,
each on the condition that what the figures held of it is unchanged since it was read,
and reads the item after that (so it can only write what the item was at a moment the
stream had not yet told): whatever the stream delivers meanwhile, each change counts
once. Running it twice changes nothing the second time.

The local stack runs it on the data it restores at start (the emulator's streams are in
memory: what they had not delivered when the stack stopped is counted here). Without
STAGE: the running local stack's tables. With STAGE=dev|prod: that deployed stack's,
with your AWS credentials (Scan, BatchGetItem, PutItem, UpdateItem on them), once after
the dashboard is first deployed, and after a batch of the figures' dead-letter queue.
"""

import argparse
import random
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from datetime import datetime

from common.dashboard import layout
from common.dashboard.table import TABLE, plain
from common.platform.clock import utcnow
from dashboard_figures.figures import Change, Contended, Counted, Key, plan, stands_apart
from dashboard_figures.repository import READ, FiguresStore, change_of_item
from dashboard_figures.service import MAX_ATTEMPTS, RUN
from dashboard_figures.shares import PRODUCT
from infra.shard_backfill import client_and_names

TABLES = tuple(READ)  # the products', the orders' and the shipments'
KINDS = {kind: logical_id for logical_id, (kind, _, _) in READ.items()}


class Items:
    """The platform's own tables (logical id: name), read as the figures read them."""

    def __init__(self, client, names: dict[str, str]):
        self._client, self._names = client, names

    def scanned(self, logical_id: str) -> Iterator[list[Change]]:
        """Every item of the table, a page of changes at a time."""
        pages = self._client.get_paginator("scan").paginate(
            TableName=self._names[logical_id], ConsistentRead=True
        )
        for page in pages:
            yield [change_of_item(logical_id, raw, int(raw["id"]["N"])) for raw in page["Items"]]

    def now(self, keys: Iterable[Key]) -> list[Change]:
        """The items as they are now, read consistently (gone: their share nothing)."""
        by_table: dict[str, list[int]] = {}
        for kind, ident in keys:
            by_table.setdefault(KINDS[kind], []).append(ident)
        changes = []
        for logical_id, idents in by_table.items():
            name = self._names[logical_id]
            found = _by_id(self._client, name, idents)
            changes += [change_of_item(logical_id, found.get(ident), ident) for ident in idents]
        return changes


def _by_id(client, table: str, idents: list[int]) -> dict[int, dict]:
    found: dict[int, dict] = {}
    for start in range(0, len(idents), 100):
        request = {
            table: {
                "Keys": [{"id": {"N": str(ident)}} for ident in idents[start : start + 100]],
                "ConsistentRead": True,
            }
        }
        while request:
            answer = client.batch_get_item(RequestItems=request)
            for raw in answer.get("Responses", {}).get(table, []):
                found[int(raw["id"]["N"])] = raw
            request = answer.get("UnprocessedKeys") or {}
    return found


def settle(
    keys: list[Key], items: Items, store: FiguresStore, clock: Callable[[], datetime]
) -> int:
    """The figures of these items made what the items are now; how many were written.
    What the figures hold is read first, the items after: a write (conditional on what
    was read) can then only count a state the stream has yet to deliver, or a later one."""
    written = 0
    for start in range(0, len(keys), RUN):
        run = keys[start : start + RUN]
        for _ in range(MAX_ATTEMPTS):
            shard = random.randrange(layout.COUNTER_SHARDS)
            probes = [Change(kind, ident, Counted().share) for kind, ident in run]
            shares, lists, counter = store.read(probes, shard)
            moved = plan(items.now(run), shares, lists, counter, clock())
            if moved.empty():
                break
            try:
                store.write(moved, shard)
            except Contended:
                continue
            written += len(moved.shares)
            break
        else:
            raise RuntimeError(f"the figures of {run} kept changing; run the backfill again")
    return written


def held_shares(client, table: str, kind: str) -> Iterator[tuple[Key, Counted]]:
    """Every share the figures hold of an item of this kind."""
    from dashboard_figures.repository import counted_of

    pages = client.get_paginator("scan").paginate(
        TableName=table,
        ConsistentRead=True,
        FilterExpression="begins_with(#key, :share)",
        ExpressionAttributeNames={"#key": layout.KEY},
        ExpressionAttributeValues={":share": {"S": layout.share_key(kind, 0)[:-1]}},
    )
    for page in pages:
        for raw in page["Items"]:
            _, kind, ident = raw[layout.KEY]["S"].split("#")
            yield (kind, int(ident)), counted_of(plain(raw))


def backfill(client, names: dict[str, str], clock: Callable[[], datetime] = utcnow) -> Counter:
    """The figures of every item of the tables (`names`: logical id to name, the figures
    table's too) made right; returns how many items of each table were written."""
    figures = names[TABLE]
    store = FiguresStore(client, figures)
    items = Items(client, names)
    written: Counter = Counter()
    seen: set[Key] = set()
    lists = store.newest()
    for logical_id in TABLES:
        for changes in items.scanned(logical_id):
            seen.update(change.key for change in changes)
            held = store.held(change.key for change in changes)
            apart = [c.key for c in changes if stands_apart(c, held.get(c.key, Counted()), lists)]
            written[logical_id] += settle(apart, items, store, clock)
            if apart:
                lists = store.newest()
    # Only products are ever deleted (orders and shipments stay, as facts of the business).
    gone = [
        key
        for key, counted in held_shares(client, figures, PRODUCT)
        if key not in seen and counted.share.counts
    ]
    for key in gone:
        written[KINDS[key[0]]] += settle([key], items, store, clock)
    return +written  # the tables with something written


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stage", help="a samconfig.toml environment (dev, prod)")
    args = parser.parse_args()
    client, names = client_and_names(args.stage, (*TABLES, TABLE))
    written = backfill(client, names)
    for logical_id in TABLES:
        print(f"{logical_id}: {written[logical_id]} items counted anew in the dashboard")


if __name__ == "__main__":
    main()
