"""The one time format of the API: ISO-8601, UTC, no offset, microseconds."""

from datetime import UTC, datetime


def utcnow() -> datetime:
    return datetime.now(UTC).replace(tzinfo=None)


def to_iso(moment: datetime) -> str:
    return moment.isoformat(timespec="microseconds")
