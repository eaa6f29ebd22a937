"""A person's rights over their data (docs/api.md#personal-data), one function each: see
and take it (access, portability), correct it (rectification), erase it (the request;
the erasure function does the rest: erasure.saga). Storage, the user pool, the userIds'
claims and the erasure queue are passed in, each behind a Protocol."""

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Protocol

from common.callers import Caller, require_operator
from common.erasures import COMPLETED, Erasure
from common.errors import Unauthenticated
from common.logs import Logger
from common.paging import Page
from common.records import Order, Shipment
from users import rules
from users.rules import Account


class Kind(Protocol):
    """A person's orders or their shipments (common.erasure_repository.Kind)."""

    def every(self, user_id: int, only: Any = None) -> Iterator[Any]: ...


class Persons(Protocol):
    """A person's orders and shipments (users.repository.PersonsData)."""

    @property
    def orders(self) -> Kind: ...
    @property
    def shipments(self) -> Kind: ...

    def orders_in_flight(self, user_id: int) -> list[Order]: ...
    def shipments_in_flight(self, user_id: int) -> list[Shipment]: ...
    def follow_email(self, order_id: int, email: str) -> None: ...


class Accounts(Protocol):
    """The user pool's accounts (users.pool.Accounts)."""

    def get(self, username: str, user_id: int) -> Account | None: ...
    def rename(self, username: str, nombre: str) -> None: ...
    def change_email(self, username: str, email: str) -> None: ...
    def revoke(self, username: str) -> None: ...


class Passwords(Protocol):
    def check(self, email: str, password: str, address: str) -> bool:
        """Whether it is the account's password; every try counted against the email from
        the client's address, as signing in counts them (429 past the limit)."""


class Claims(Protocol):
    """The userIds' claims (common.user_ids.UserIds)."""

    def account_of(self, user_id: int) -> str | None: ...
    def erasing(self, user_id: int, request_id: int) -> int: ...


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

    def account(self, user_id: int) -> tuple[str, Account] | None:
        """The username and account of `user_id`, if they have one."""
        username = self.claims.account_of(user_id)
        found = self.accounts.get(username, user_id) if username is not None else None
        return (username, found) if username is not None and found is not None else None

    def proven(self, user_id: int, password: str, address: str) -> tuple[str, Account]:
        """The account, once `password` is its own; 401 INVALID_CREDENTIALS otherwise (no
        account at all included: no password can be right for it)."""
        held = self.account(user_id)
        if held is None or not self.passwords.check(held[1].email, password, address):
            raise Unauthenticated("INVALID_CREDENTIALS", "The password is wrong", details=[])
        return held


@dataclass(frozen=True)
class Data:
    """A person's data: their account (None: they have none), and every order and every
    shipment of theirs, oldest first, each with its kept history."""

    cuenta: Account | None
    pedidos: list = field(default_factory=list)  # common.erasure_repository.Kept
    envios: list = field(default_factory=list)


def data_of(persons: Persons, identity: Identity, user_id: int) -> Data:
    """Everything the platform holds of `user_id`'s person (docs/api.md#personal-data):
    read by the customer indexes, a page at a time."""
    held = identity.account(user_id)
    return Data(
        held[1] if held is not None else None,
        list(persons.orders.every(user_id)),
        list(persons.shipments.every(user_id)),
    )


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
    for order in persons.orders_in_flight(user_id):
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
        persons.orders_in_flight(user_id), persons.shipments_in_flight(user_id)
    )
    if details:
        raise rules.open_orders(details)


def erase(eraser: Eraser, user_id: int, request_id: int) -> None:
    """Erase `user_id`'s person, for request `request_id` (checked: nothing in flight):
    their userId is marked erased at once (what is on its way out leaves their data out
    from now on), their account's sessions end, and the erasure function does the rest
    (erasure.saga). A repeat, or a request after an erasure that failed half-way, finds
    the first one's and sends it on again: nothing is done twice."""
    claims = eraser.identity.claims
    username = claims.account_of(user_id)
    erasing = claims.erasing(user_id, request_id)
    erasure = eraser.erasures.erasure(erasing)
    if erasure is None:
        eraser.erasures.start_erasure(erasing, user_id, username)
    elif erasure.estado == COMPLETED:
        return
    if username is not None:
        # At once, so its tokens stop working within 30 s whatever the erasure's size;
        # should the pool fail now, the erasure's first step does it.
        with contextlib.suppress(Exception):
            eraser.identity.accounts.revoke(username)
    eraser.queue.send(erasing)


def requests_page(erasures: Erasures, caller: Caller, after: int, limit: int) -> Page:
    require_operator(caller, "read the record of rights requests")
    return erasures.page(after, limit)
