"""The erasure as a saga (erasure.saga), against copies in memory: a run that dies
anywhere, or that stops for time, is carried on by the next from the progress it
recorded, every copy ends stripped exactly as a run without trouble leaves it, the
account leaves last, and a run after it is done changes nothing."""

from dataclasses import dataclass, replace

import pytest

from common.personal_data.erasures import COMPLETED, IN_PROGRESS, Erasure
from common.storage.paging import Page
from erasure import saga

USER = 7


@dataclass
class Item:
    id: int
    holds_data: bool = True


class Kept:
    def __init__(self, item: Item):
        self.value = item


class Items:
    """A person's orders or shipments: `fail_after` strips, the next one dies."""

    def __init__(self, count: int, fail_after: int | None = None):
        self.items = {n: Item(n) for n in range(1, count + 1)}
        self.fail_after, self.stripped = fail_after, 0

    def holding_data(self) -> str:
        return "holding"

    def page(self, user_id: int, after: int, limit: int, only=None) -> Page:
        assert user_id == USER and only == "holding"
        ids = sorted(n for n, item in self.items.items() if n > after and item.holds_data)
        chosen = ids[:limit]
        more = len(ids) > limit
        return Page([Kept(self.items[n]) for n in chosen], chosen[-1] if more else None)

    def strip(self, ident: int) -> None:
        if self.fail_after is not None and self.stripped >= self.fail_after:
            self.fail_after = None  # dies once
            raise RuntimeError("the function died")
        self.items[ident].holds_data = False
        self.stripped += 1


class Deliveries:
    def __init__(self, keys):
        self.left = set(keys)

    def of(self, user_id):
        return sorted(self.left)

    def strip(self, webhook_id, event_id):
        self.left.discard((webhook_id, event_id))


class Dashboard:
    def __init__(self, log):
        self.log = log

    def strip(self, user_id):
        self.log.append(("dashboard", user_id))


class Accounts:
    def __init__(self, log):
        self.log = log

    def revoke(self, username):
        self.log.append(("revoke", username))

    def delete(self, username):
        self.log.append(("delete", username))


class Claims:
    def __init__(self, log, named=None, holds=False):
        self.log, self.named, self.holds = log, named, holds

    def account_of(self, user_id):
        return self.named

    def holds_account(self, user_id):
        return self.holds or self.named is not None

    def account_gone(self, user_id):
        self.log.append(("account gone", user_id))


class Progress:
    def __init__(self, erasure: Erasure, log):
        self.current, self.log, self.steps = erasure, log, []

    def erasure(self, request_id):
        return self.current

    def progressed(self, request_id, paso, desde):
        # Never back: a step's progress only goes on, the steps only forward.
        if paso == self.current.paso:
            assert desde >= self.current.desde or desde == 0 and not self.steps
        self.steps.append((paso, desde))
        self.current = replace(self.current, paso=paso, desde=desde)

    def erased(self, request_id, now):
        self.log.append(("erased", now))
        self.current = replace(self.current, estado=COMPLETED, paso=None, desde=0, cuenta=None)


def copies(
    orders: Items,
    shipments: Items,
    log: list,
    deliveries=(),
    cuenta="u-123",
    claims=None,
    returns: Items | None = None,
) -> saga.Copies:
    erasure = Erasure(request_id=1, user_id=USER, estado=IN_PROGRESS, cuenta=cuenta)
    return saga.Copies(
        orders=orders,
        shipments=shipments,
        returns=returns if returns is not None else Items(0),
        deliveries=Deliveries(deliveries),
        dashboard=Dashboard(log),
        accounts=Accounts(log),
        claims=claims or Claims(log),
        progress=Progress(erasure, log),
        in_parallel=lambda calls: [call() for call in calls],
    )


def stripped(items: Items) -> bool:
    return not any(item.holds_data for item in items.items.values())


def test_a_run_strips_every_copy_and_deletes_the_account_last():
    log: list = []
    orders, shipments, returns = Items(1200), Items(30), Items(4)
    made = copies(orders, shipments, log, deliveries=[(1, "evt_a"), (2, "evt_b")], returns=returns)
    assert saga.run(made, 1, lambda: False, "t") is True
    assert stripped(orders) and stripped(shipments) and stripped(returns)
    assert made.deliveries.left == set()
    assert log == [
        ("revoke", "u-123"),
        ("dashboard", USER),
        ("delete", "u-123"),
        ("account gone", USER),
        ("erased", "t"),
    ]
    # Its progress went through each step in order, pages of orders recorded as it went.
    steps = [step for step, _ in made.progress.steps]
    assert steps == sorted(steps, key=saga.STEPS.index)
    assert ("PEDIDOS", 500) in made.progress.steps and ("PEDIDOS", 1000) in made.progress.steps


def test_a_run_that_dies_half_way_is_carried_on_from_its_progress():
    log: list = []
    orders = Items(1200, fail_after=700)  # dies on the second page of orders
    made = copies(orders, Items(30), log)
    with pytest.raises(RuntimeError):
        saga.run(made, 1, lambda: False, "t")
    assert made.progress.current.paso == "PEDIDOS" and made.progress.current.desde == 500
    assert ("delete", "u-123") not in log  # never half a person without their account
    done_before = orders.stripped
    assert saga.run(made, 1, lambda: False, "t") is True
    assert stripped(orders) and stripped(made.shipments)
    # The page that died is read again for what still holds data: nothing done twice.
    assert orders.stripped == 1200 and done_before == 700
    assert log[-3:] == [("delete", "u-123"), ("account gone", USER), ("erased", "t")]


def test_a_run_out_of_time_stops_between_pages_and_the_next_goes_on():
    log: list = []
    orders = Items(1200)
    made = copies(orders, Items(30), log)
    pages = iter([False, False, True])  # time runs out before the third page
    assert saga.run(made, 1, lambda: next(pages, True), "t") is False
    assert orders.stripped == 1000 and ("erased", "t") not in log
    assert saga.run(made, 1, lambda: False, "t") is True
    assert stripped(orders) and log[-1] == ("erased", "t")


def test_a_run_after_the_erasure_is_done_changes_nothing():
    log: list = []
    made = copies(Items(3), Items(1), log)
    assert saga.run(made, 1, lambda: False, "t") is True
    before = list(log)
    assert saga.run(made, 1, lambda: False, "later") is True
    assert log == before


def test_an_erasure_not_recorded_is_not_run():
    made = copies(Items(1), Items(1), [])
    made.progress.current = None
    with pytest.raises(saga.NotRecorded):
        saga.run(made, 1, lambda: False, "t")


def test_an_erasure_never_completes_while_an_account_it_cannot_name_holds_the_id():
    """The claim says an account holds the id but names none (a lost write, data from
    before claims): the account could still sign in, so the erasure is not done."""
    log: list = []
    made = copies(Items(2), Items(1), log, cuenta=None, claims=Claims(log, holds=True))
    with pytest.raises(saga.AccountUnknown):
        saga.run(made, 1, lambda: False, "t")
    assert ("erased", "t") not in log and made.progress.current.estado == IN_PROGRESS
    # Once the claim names it (the backfill), the next run ends that account.
    made.claims.named = "u-found"
    assert saga.run(made, 1, lambda: False, "t") is True
    assert log[-3:] == [("delete", "u-found"), ("account gone", USER), ("erased", "t")]
