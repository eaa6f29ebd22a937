"""A person's rights over their data (docs/api.md#personal-data), one function each: see
and take it (access, portability), correct it (rectification), erase it (the request;
the erasure function does the rest: erasure.saga). Storage, the user pool, the userIds'
claims and the erasure queue are passed in, each behind a Protocol."""

import contextlib
import itertools
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Protocol

from common.identity.callers import Caller, require_operator
from common.orders.records import Order, Shipment
from common.personal_data.erasures import COMPLETED, Erasure
from common.platform.errors import NotAcceptable, Unauthenticated
from common.platform.logs import Logger
from common.storage.paging import Page
from users import rules
from users.rules import Account


class Kind(Protocol):
    """A person's orders or their shipments (common.personal_data.repository.Kind)."""

    def every(self, user_id: int, only: Any = None) -> Iterator[Any]: ...


class ShipmentKind(Kind, Protocol):
    """A person's shipments, and their tracking events (their `detalle` is the person's)."""

    def events(self, user_id: int) -> Iterator[Any]: ...


class Persons(Protocol):
    """A person's orders and shipments (users.repository.PersonsData)."""

    @property
    def orders(self) -> Kind: ...
    @property
    def shipments(self) -> ShipmentKind: ...

    @property
    def returns(self) -> Kind: ...

    def orders_in_flight(self, user_id: int, limit: int | None = ...) -> list[Order]: ...
    def shipments_in_flight(self, user_id: int) -> list[Shipment]: ...
    def returns_in_flight(self, user_id: int) -> list[Any]: ...
    def follow_email(self, order_id: int, email: str) -> None: ...


class Accounts(Protocol):
    """The user pool's accounts (users.pool.Accounts)."""

    def get(self, username: str, user_id: int) -> Account | None: ...
    def rename(self, username: str, nombre: str) -> None: ...
    def change_email(self, username: str, email: str) -> None: ...
    def revoke(self, username: str) -> None: ...


class Passwords(Protocol):
    def check(self, email: str, password: str, address: str, user_id: int) -> bool:
        """Whether it is the account's password; every try counted against the account
        from the client's address, right or wrong, and against the email's sign-ins from
        there (429 past either limit)."""


class Claims(Protocol):
    """The userIds' claims (common.identity.user_ids.UserIds)."""

    def account_of(self, user_id: int) -> str | None: ...
    def erasing(self, user_id: int, request_id: int) -> int: ...
    def email_changed(self, user_id: int, email: str) -> None: ...


class Erasures(Protocol):
    """Accepted erasures' progress, on their requests' items (users.repository.Requests)."""

    def erasure(self, request_id: int) -> Erasure | None: ...
    def start_erasure(self, request_id: int, user_id: int, cuenta: str | None) -> None: ...
    def page(self, after: int, limit: int) -> Page: ...


class Queue(Protocol):
    def send(self, request_id: int) -> None:
        """The erasure of this request, on its way to the erasure function."""


@dataclass(frozen=True)
class Identity:
    """What finds and checks a person's account: the claims name it, the pool has it."""

    claims: Claims
    accounts: Accounts
    passwords: Passwords

    def account(self, user_id: int, own: str | None = None) -> tuple[str, Account] | None:
        """The username and account of `user_id`, if they have one (`own`: the account of
        the caller's own token, where the claim names none)."""
        username = self.claims.account_of(user_id) or own
        found = self.accounts.get(username, user_id) if username is not None else None
        return (username, found) if username is not None and found is not None else None

    def proven(
        self, user_id: int, password: str, address: str, own: str | None = None
    ) -> tuple[str, Account]:
        """The account, once `password` is its own; 401 INVALID_CREDENTIALS otherwise (no
        account at all included: no password can be right for it). Every try counts,
        right or wrong (common.identity.attempts: 429 past the limit)."""
        held = self.account(user_id, own)
        if held is None or not self.passwords.check(held[1].email, password, address, user_id):
            raise Unauthenticated("INVALID_CREDENTIALS", "The password is wrong", details=[])
        return held


@dataclass(frozen=True)
class Data:
    """A person's data: their account (None: they have none), and every order and every
    shipment of theirs, oldest first, each with its kept history."""

    cuenta: Account | None
    pedidos: list = field(default_factory=list)  # common.personal_data.repository.Kept
    envios: list = field(default_factory=list)
    devoluciones: list = field(default_factory=list)
    # Each shipment's tracking events, by its id (an export's: with_events).
    eventos: dict = field(default_factory=dict)


# Orders (and shipments) past which a person's data cannot fit in an answer, however
# compressed (about 1.2 KB of JSON each, with its history; 5 MB as sent): read no further.
MAX_ITEMS = 40_000


def _bounded(items: Iterator[Any], what: str) -> list:
    """At most MAX_ITEMS of `items`, read a page at a time; 406 past that, unread."""
    read = list(itertools.islice(items, MAX_ITEMS + 1))
    if len(read) > MAX_ITEMS:
        raise NotAcceptable(
            "RESPONSE_TOO_LARGE",
            f"More than {MAX_ITEMS} {what}: no answer can hold them; ask an operator for "
            "an export by other means",
            details=[],
        )
    return read


def data_of(persons: Persons, identity: Identity, user_id: int, with_events: bool = False) -> Data:
    """Everything the platform holds of `user_id`'s person (docs/api.md#personal-data):
    read by the customer indexes, a page at a time, never more than an answer can hold."""
    held = identity.account(user_id)
    return Data(
        held[1] if held is not None else None,
        _bounded(persons.orders.every(user_id), "orders"),
        _bounded(persons.shipments.every(user_id), "shipments"),
        _bounded(persons.returns.every(user_id), "returns"),
        by_shipment(_bounded(persons.shipments.events(user_id), "tracking events"))
        if with_events
        else {},
    )


def by_shipment(events: list) -> dict[int, list]:
    """Tracking events by their shipment's id, each shipment's oldest first."""
    found: dict[int, list] = {}
    for event in events:
        found.setdefault(event.envio_id, []).append(event)
    for kept in found.values():
        kept.sort(key=lambda event: (event.fecha, event.registrado_en, event.id))
    return found


def account_of(identity: Identity, user_id: int) -> tuple[str, Account]:
    held = identity.account(user_id)
    if held is None:
        raise rules.unknown_account(user_id)
    return held


def rename(identity: Identity, user_id: int, nombre: str) -> Account:
    """The account's name corrected; 404 for a userId without an account."""
    username, _ = account_of(identity, user_id)
    identity.accounts.rename(username, nombre)
    return account_of(identity, user_id)[1]


def change_email(
    persons: Persons, identity: Identity, user_id: int, change: tuple[str, str], address: str
) -> Account:
    """The account signs in with the new email from now on, and the person's orders in
    flight carry it (a final order keeps the one it was placed with). 401 for a wrong
    password, 409 EMAIL_TAKEN. Sent again, it finishes what a failure left."""
    email, password = change
    username, account = identity.proven(user_id, password, address)
    if email != account.email:
        identity.accounts.change_email(username, email)
    # Orders for the id carry the new email from now on (USER_EMAIL_MISMATCH otherwise).
    identity.claims.email_changed(user_id, email)
    for order in persons.orders_in_flight(user_id, None):
        if order.user_email != email:
            persons.follow_email(order.id, email)
    return account_of(identity, user_id)[1]


@dataclass(frozen=True)
class Eraser:
    """What an erasure's request needs: the person's data, their identity, the record of
    erasures and the queue to the erasure function."""

    persons: Persons
    identity: Identity
    erasures: Erasures
    queue: Queue
    logger: Logger


def check_nothing_in_flight(persons: Persons, user_id: int) -> None:
    """409 OPEN_ORDERS, naming them, while an order or a shipment of theirs is in flight."""
    details = rules.in_flight(
        persons.orders_in_flight(user_id),
        persons.shipments_in_flight(user_id),
        persons.returns_in_flight(user_id),
    )
    if details:
        raise rules.open_orders(details)


def erase(eraser: Eraser, user_id: int, request_id: int, own_account: str | None = None) -> None:
    """Erase `user_id`'s person, for request `request_id` (checked: nothing in flight):
    their userId is marked erased at once (no order, shipment or account is written under
    it from now on, and what is on its way out leaves their data out), their account's
    sessions end, and the erasure function does the rest (erasure.saga). A repeat, or a
    request after an erasure that failed half-way, finds the first one's and sends it on
    again; a request after one that was done is an erasure of its own, which strips
    whatever a race left. `own_account`: the account of the person's own token (a
    self-erasure knows it, whatever the claim names)."""
    claims = eraser.identity.claims
    username = claims.account_of(user_id) or own_account
    erasing = claims.erasing(user_id, request_id)
    erasure = eraser.erasures.erasure(erasing)
    if erasure is not None and erasure.estado == COMPLETED:
        erasing, erasure = request_id, None
    if erasure is None:
        eraser.erasures.start_erasure(erasing, user_id, username)
    if username is not None:
        # At once, so its tokens stop working within 30 s whatever the erasure's size;
        # should the pool fail now, the erasure's first step does it.
        with contextlib.suppress(Exception):
            eraser.identity.accounts.revoke(username)
    eraser.queue.send(erasing)


def requests_page(erasures: Erasures, caller: Caller, after: int, limit: int) -> Page:
    require_operator(caller, "read the record of rights requests")
    return erasures.page(after, limit)
