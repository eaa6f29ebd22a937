"""An accepted erasure, carried out (docs/personal-data.md): every copy of the person's
data stripped by key, a step at a time, and their account deleted last.

A saga, as the stock moves are: its progress is on its request's item (a step, and the
last id done in it), each step's every write is idempotent (removing what is already
gone changes nothing), so a run that dies anywhere, or a message that comes twice, only
does again what was not recorded as done. A run that nears its time limit stops between
pages and says so; its function carries on in a new message. Once every step is done,
the item becomes COMPLETADA, which its stream tells the integrators (usuario.eliminado).
"""

import functools
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Protocol

from common.personal_data.erasures import COMPLETED, Erasure
from common.storage.paging import Page

# The steps, in order: the account's sessions first (its tokens stop working within
# 30 s whatever the erasure's size), the account itself last, so the person has it,
# disabled, until nothing else of theirs is left.
SESSIONS, ORDERS, SHIPMENTS, RETURNS, DELIVERIES, DASHBOARD, ACCOUNT = (
    "SESIONES",
    "PEDIDOS",
    "ENVIOS",
    "DEVOLUCIONES",
    "ENTREGAS",
    "PANEL",
    "CUENTA",
)
# An erasure recorded before DASHBOARD was a step and past it, at ACCOUNT, goes on from
# there: the dashboard shows the newest few, which the stream has stripped since. One
# recorded before RETURNS was a step and past it goes on from where it is too: an erasure
# waits for open returns, and a person erased before returns had none.
STEPS = (SESSIONS, ORDERS, SHIPMENTS, RETURNS, DELIVERIES, DASHBOARD, ACCOUNT)
# Items stripped per page of a step: the progress is recorded after each.
PAGE = 500


class Kind(Protocol):
    """A person's orders or shipments (common.personal_data.repository.Kind)."""

    def page(self, user_id: int, after: int, limit: int, only: Any = None) -> Page: ...
    def holding_data(self) -> Any: ...
    def strip(self, ident: int) -> None: ...


class Deliveries(Protocol):
    def of(self, user_id: int) -> Iterator[tuple[int, str]]:
        """The (webhookId, eventId) of each delivery of an event about the person."""

    def strip(self, webhook_id: int, event_id: str) -> None: ...


class Dashboard(Protocol):
    def strip(self, user_id: int) -> None:
        """The person's data out of the dashboard's newest orders and shipments."""


class Accounts(Protocol):
    def revoke(self, username: str) -> None: ...
    def delete(self, username: str) -> None: ...


class Claims(Protocol):
    def account_of(self, user_id: int) -> str | None: ...
    def holds_account(self, user_id: int) -> bool: ...
    def account_gone(self, user_id: int) -> None: ...


class Progress(Protocol):
    def erasure(self, request_id: int) -> Erasure | None: ...
    def progressed(self, request_id: int, paso: str, desde: int) -> None: ...
    def erased(self, request_id: int, now: str) -> None: ...


@dataclass(frozen=True)
class Copies:
    """Where the person's data is, and what erases it."""

    orders: Kind
    shipments: Kind
    returns: Kind
    deliveries: Deliveries
    dashboard: Dashboard
    accounts: Accounts
    claims: Claims
    progress: Progress
    # Runs each call of a page, side by side (their writes wait on the network).
    in_parallel: Callable[[list[Callable[[], None]]], None]


class NotRecorded(Exception):
    """No accepted erasure is recorded under this request (yet): try again later."""


class AccountUnknown(Exception):
    """The userId's claim says an account holds it, and names none: the erasure cannot
    end it, so it is not done (it retries, then waits as a dead letter, with its alarm,
    until the backfill names the account: docs/personal-data.md)."""


def _account_of(copies: "Copies", erasure: Erasure) -> str | None:
    """The account the erasure ends: its request's, else the one the claim names now."""
    return erasure.cuenta or copies.claims.account_of(erasure.user_id)


def run(copies: Copies, request_id: int, out_of_time: Callable[[], bool], now: str) -> bool:
    """Carry the erasure on from where it is; True once it is done, False when it stopped
    for time (what it did is recorded: the next run goes on from there)."""
    erasure = copies.progress.erasure(request_id)
    if erasure is None:
        raise NotRecorded(request_id)
    if erasure.estado == COMPLETED:
        return True
    first = STEPS.index(erasure.paso) if erasure.paso in STEPS else 0
    for index in range(first, len(STEPS)):
        step = STEPS[index]
        after = erasure.desde if step == erasure.paso else 0
        if index != first or erasure.paso is None:
            copies.progress.progressed(request_id, step, 0)
        if not _STEPS[step](copies, erasure, after, out_of_time):
            return False
    copies.progress.erased(request_id, now)
    return True


def _sessions(copies: Copies, erasure: Erasure, after: int, out_of_time: Any) -> bool:
    cuenta = _account_of(copies, erasure)
    if cuenta is not None:
        copies.accounts.revoke(cuenta)
    return True


def _strip(
    kind: Kind,
    step: str,
    copies: Copies,
    erasure: Erasure,
    after: int,
    out_of_time: Callable[[], bool],
) -> bool:
    """Strip every item of `kind` still holding the person's data, a page at a time, the
    progress recorded after each."""
    resume: int | None = after
    while resume is not None:
        if out_of_time():
            return False
        page = kind.page(erasure.user_id, resume, PAGE, kind.holding_data())
        copies.in_parallel([functools.partial(kind.strip, kept.value.id) for kept in page.items])
        resume = page.resume_after
        if resume is not None:
            copies.progress.progressed(erasure.request_id, step, resume)
    return True


def _orders(copies: Copies, erasure: Erasure, after: int, out_of_time: Any) -> bool:
    return _strip(copies.orders, ORDERS, copies, erasure, after, out_of_time)


def _shipments(copies: Copies, erasure: Erasure, after: int, out_of_time: Any) -> bool:
    return _strip(copies.shipments, SHIPMENTS, copies, erasure, after, out_of_time)


def _returns(copies: Copies, erasure: Erasure, after: int, out_of_time: Any) -> bool:
    return _strip(copies.returns, RETURNS, copies, erasure, after, out_of_time)


def _deliveries(copies: Copies, erasure: Erasure, after: int, out_of_time: Any) -> bool:
    # Few: the events of the last 30 days about one person, each to a few endpoints.
    copies.in_parallel(
        [
            functools.partial(copies.deliveries.strip, *key)
            for key in copies.deliveries.of(erasure.user_id)
        ]
    )
    return True


def _dashboard(copies: Copies, erasure: Erasure, after: int, out_of_time: Any) -> bool:
    copies.dashboard.strip(erasure.user_id)
    return True


def _account(copies: Copies, erasure: Erasure, after: int, out_of_time: Any) -> bool:
    # Never done while an account the id held is left: it could still sign in, and
    # integrators would be told the person is gone.
    cuenta = _account_of(copies, erasure)
    if cuenta is not None:
        copies.accounts.delete(cuenta)
    elif copies.claims.holds_account(erasure.user_id):
        raise AccountUnknown(erasure.user_id)
    copies.claims.account_gone(erasure.user_id)
    return True


_STEPS: dict[str, Callable[[Copies, Erasure, int, Callable[[], bool]], bool]] = {
    SESSIONS: _sessions,
    ORDERS: _orders,
    SHIPMENTS: _shipments,
    RETURNS: _returns,
    DELIVERIES: _deliveries,
    DASHBOARD: _dashboard,
    ACCOUNT: _account,
}
