"""A run of changes applied to what the figures table holds, as a plain function: what to
write (a Plan), from the changes and what was read (docs/architecture.md, "The
dashboard's figures").

Each item's share is kept beside the counters, with the stream record that last changed
it. A change sets the item's share to what the item is now, and the counters move by the
new share less the one held: so a record delivered twice, or a backfill of an item the
stream also delivers, counts once; and a record at or before the one held (the same
stream) is skipped, so a batch retried never puts an item back where it was. The plan's
writes are one transaction, each share and list written on the condition that it is
still as read: two writers of the same items never both count a change.
"""

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal

from common.dashboard import layout
from dashboard_figures.shares import NOTHING, ORDER, SHIPMENT, Share

# The changes whose item the dashboard lists among the newest, and in which list.
LISTED = {ORDER: layout.ORDERS, SHIPMENT: layout.SHIPMENTS}

Key = tuple[str, int]  # an item: its kind and id


class Contended(Exception):
    """What a plan was made from was written meanwhile (another writer of the same items):
    the plan is made again from a new read."""


@dataclass(frozen=True)
class Record:
    """Where a change was read: its table's stream (its ARN) and its sequence number."""

    stream: str
    sequence: int


@dataclass(frozen=True)
class Change:
    """What an item is now: its share, and the item as the API shows it (an order or a
    shipment; None for a product, or an item gone). `record`: the stream record it comes
    from; None for a backfill's read of the table."""

    kind: str
    ident: int
    share: Share
    shown: dict | None = None
    record: Record | None = None

    @property
    def key(self) -> Key:
        return (self.kind, self.ident)


@dataclass(frozen=True)
class Counted:
    """An item's share as the figures table holds it, its version (0: none held), and the
    stream record that last wrote it (None: a backfill did, or nothing)."""

    share: Share = NOTHING
    version: int = 0
    record: Record | None = None

    def applied(self, record: Record) -> bool:
        """Whether `record` is this one or an earlier of the same stream."""
        held = self.record
        return (
            held is not None and held.stream == record.stream and record.sequence <= held.sequence
        )


@dataclass(frozen=True)
class Newest:
    """A list shard's newest items, newest first, and its version (0: none held)."""

    items: tuple[dict, ...] = ()
    version: int = 0


@dataclass
class Plan:
    """What to write: the shares (as read, and as they are to be), the counters' changes,
    the entries of the hours' items set and removed, the lists (as read, and to be), and
    the counters of past days and hours to drop from the counter item written."""

    shares: dict[Key, tuple[Counted, Counted]] = field(default_factory=dict)
    counters: dict[str, Decimal] = field(default_factory=dict)
    due_set: dict[str, dict[str, str]] = field(default_factory=dict)
    due_removed: dict[str, set[str]] = field(default_factory=dict)
    lists: dict[str, tuple[Newest, Newest]] = field(default_factory=dict)
    stale: list[str] = field(default_factory=list)

    def empty(self) -> bool:
        return not (self.shares or self.lists)


def list_keys_of(changes: Sequence[Change]) -> list[str]:
    """The list shards the changes may touch."""
    return sorted({layout.list_key(LISTED[c.kind], c.ident) for c in changes if c.kind in LISTED})


def plan(
    changes: Sequence[Change],
    shares: Mapping[Key, Counted],
    lists: Mapping[str, Newest],
    counter: Mapping[str, object],
    now: datetime,
) -> Plan:
    """The writes that apply `changes`, in order, to what was read: each item's share,
    each list shard the changes touch, and the counter item the writes add to."""
    read = {change.key: shares.get(change.key, Counted()) for change in changes}
    current = dict(read)
    newest = {key: lists.get(key, Newest()) for key in list_keys_of(changes)}
    listed_before = dict(newest)
    touched: set[Key] = set()
    for change in changes:
        held = current[change.key]
        if change.record is not None and held.applied(change.record):
            continue  # delivered again (a batch retried): applied already
        relisted = _relist(newest, change)
        # An item gone that nothing counted is written all the same (its share nothing):
        # a backfill that read it before it went must then find it counted, not count it.
        gone_uncounted = change.share == NOTHING and not held.version
        if change.share == held.share and not relisted and not gone_uncounted:
            continue
        current[change.key] = Counted(change.share, held.version, change.record or held.record)
        touched.add(change.key)
    moved = Plan(
        shares={key: (read[key], current[key]) for key in sorted(touched)},
        lists={
            key: (listed_before[key], new)
            for key, new in newest.items()
            if new is not listed_before[key]
        },
        stale=sorted(name for name in counter if layout.is_past(name, now)),
    )
    _counters_and_hours(moved, now)
    return moved


def stands_apart(change: Change, held: Counted, lists: Mapping[str, Newest]) -> bool:
    """Whether what the figures hold of the item is not what it is now: its share, or its
    place among its list shard's newest (a backfill's question)."""
    key = list_keys_of([change])
    newest = {name: lists.get(name, Newest()) for name in key}
    return held.share != change.share or _relist(newest, change)


def _relist(newest: dict[str, Newest], change: Change) -> bool:
    """Put the item where it stands among its list shard's newest (or out of it, gone);
    whether that changed the list."""
    kind = LISTED.get(change.kind)
    if kind is None:
        return False
    key = layout.list_key(kind, change.ident)
    held = newest[key]
    items = [item for item in held.items if item["id"] != change.ident]
    if change.shown is not None:
        items.append(change.shown)
    items = sorted(items, key=lambda item: item["id"], reverse=True)[: layout.NEWEST[kind]]
    if items == list(held.items):
        return False
    newest[key] = Newest(tuple(items), held.version)
    return True


def _counters_and_hours(moved: Plan, now: datetime) -> None:
    """The counters' changes and the hours' entries of the shares moved (what the
    dashboard reads no more, past days and hours, left out)."""
    counters: defaultdict[str, Decimal] = defaultdict(Decimal)
    for (_, ident), (before, after) in moved.shares.items():
        old, new = before.share, after.share
        for name in old.counts.keys() | new.counts.keys():
            change = new.counts.get(name, Decimal(0)) - old.counts.get(name, Decimal(0))
            if change and not layout.is_past(name, now):
                counters[name] += change
        if old.due != new.due:
            _move_due(moved, ident, old.due, new.due, now)
    moved.counters = {name: change for name, change in counters.items() if change}


def _move_due(moved: Plan, ident: int, old: str | None, new: str | None, now: datetime) -> None:
    """A shipment out of its old hour's item and into its new one's (an hour the
    dashboard reads no more left as it is)."""
    entry = layout.due_entry(ident)
    added = new is not None and not _past_hour(new, now)
    if added:
        assert new is not None
        moved.due_set.setdefault(layout.due_key(layout.hour_of(new), ident), {})[entry] = new
    if old is not None and not _past_hour(old, now):
        key = layout.due_key(layout.hour_of(old), ident)
        if not (added and key in moved.due_set and entry in moved.due_set[key]):
            moved.due_removed.setdefault(key, set()).add(entry)


def _past_hour(estimate: str, now: datetime) -> bool:
    return layout.is_past(layout.due(layout.hour_of(estimate)), now)
