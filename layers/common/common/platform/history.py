"""What happened to an order or a shipment, and when (docs/api.md#history): its creation,
then one entry per status change that succeeded, each with its time and the role of the
caller who made it.

An item keeps its changes beside its status, each appended in the same conditional write
that changes the status (so a change and its entry exist together or not at all); the
creation entry is never stored, but read off the item (its creadoEn, its initial status,
who created it), so that an item written before history was kept answers with it alone.
"""

from dataclasses import dataclass

# The role of a change the platform made by itself, not a caller's (a carrier's tracking
# event moving a shipment: docs/api.md#tracking).
SYSTEM = "system"
# An item shows its first entry and its MAX_ENTRIES - 1 newest; it keeps as many changes.
MAX_ENTRIES = 100
KEPT_CHANGES = MAX_ENTRIES - 1


@dataclass(frozen=True)
class Entry:
    """One line of an order's or a shipment's history: a status, when, and by whom."""

    status: str
    fecha: str  # common.platform.clock's format
    rol: str | None  # operator, customer or system; None where it was not recorded


def shown(creation: Entry, changes: list[Entry]) -> list[Entry]:
    """The history as the API shows it: the creation, then the kept changes, oldest first."""
    return [creation, *newest(changes)]


def newest(changes: list[Entry]) -> list[Entry]:
    """The changes an item keeps: the newest KEPT_CHANGES."""
    return changes[-KEPT_CHANGES:]
