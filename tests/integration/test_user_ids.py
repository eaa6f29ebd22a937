"""Who is who (docs/identity.md#userids): a new account's userId has never been used by an
order, a shipment or another account, whoever wrote them, however many ask at once.
Against the emulator's tables and user pool, through the gateway app in-process."""

import itertools
import threading
import uuid
from concurrent.futures import ThreadPoolExecutor

import boto3
import pytest

from common.identity.user_ids import TABLE, UserIds
from common.platform.errors import Conflict
from tests.support.api import body
from tests.support.endpoints import point

PASSWORD = "A-long-Passphrase-2026"
ORDER = {
    "userEmail": "someone@example.com",
    "clienteNombre": "Someone",
    "total": 3,
    "tipoPedido": "NACIONAL",
    "destino": "Lima",
    "cantidad": 1,
}


@pytest.fixture
def platform(orders_gateway, pool, monkeypatch):
    """The gateway with its sign-in routes (the emulator's pool) and its orders (stock
    checked over HTTP): an operator's token by default."""
    point(monkeypatch, "COGNITO_IDENTITY_PROVIDER", pool.url)
    return orders_gateway(**pool.environment())


def new_email() -> str:
    return f"who-{uuid.uuid4().hex[:12]}@example.com"


def a_product(api) -> int:
    made = api.post(
        "/api/inventario",
        {
            "sku": uuid.uuid4().hex,
            "nombre": "Caja",
            "precioUnitario": 3,
            "stockActual": 100,
            "umbralMinimo": 0,
        },
    )
    assert made.status_code == 201, made.body
    return body(made)["id"]


def register(api, email: str):
    return api.post("/api/auth/register", {"email": email, "password": PASSWORD}, token=None)


def token_of(api, email: str) -> str:
    answer = api.post("/api/auth/login", {"email": email, "password": PASSWORD}, token=None)
    assert answer.status_code == 200, answer.body
    return answer.body.decode()


def test_a_new_account_never_gets_a_userid_an_order_carries_and_owns_nothing(platform):
    """The tables are new: the users counter would give 1, then 2. An operator's orders
    for those numbers (customers without accounts, typed in) come first."""
    product = a_product(platform)
    for user_id in (1, 2):
        placed = platform.post("/api/pedidos", {**ORDER, "userId": user_id, "productoId": product})
        assert placed.status_code == 201, placed.body
    email = new_email()
    made = register(platform, email)
    assert made.status_code == 201, made.body
    assert body(made)["userId"] not in (1, 2)
    assert body(platform.get("/api/pedidos", token=token_of(platform, email))) == []


def test_an_order_for_an_accounts_userid_is_that_accounts(platform):
    """Once the account exists, an operator places orders for it as for anyone."""
    email = new_email()
    account = body(register(platform, email))
    placed = platform.post(
        "/api/pedidos",
        {
            **ORDER,
            "userId": account["userId"],
            "userEmail": email.upper(),  # compared as emails are: normalised
            "productoId": a_product(platform),
        },
    )
    assert placed.status_code == 201, placed.body
    mine = body(platform.get("/api/pedidos", token=token_of(platform, email)))
    assert [order["id"] for order in mine] == [body(placed)["id"]]


def test_an_order_for_an_accounts_userid_with_another_email_is_refused(platform):
    """The original front end's form always sent userId 1: every order typed in for
    anyone became the account's that had 1. An order for an account's userId carries
    that account's email, or is 409 USER_EMAIL_MISMATCH, nothing saved, whoever places it."""
    email = new_email()
    account = body(register(platform, email))
    product = a_product(platform)
    sent = {**ORDER, "userId": account["userId"], "productoId": product}
    refused = platform.post("/api/pedidos", {**sent, "userEmail": "ana@example.com"})
    assert refused.status_code == 409, refused.body
    answer = body(refused)
    assert answer["error"] == "USER_EMAIL_MISMATCH"
    assert {d["field"] for d in answer["details"]} == {"userId", "userEmail"}
    assert body(platform.get("/api/pedidos", token=token_of(platform, email))) == []
    # An id without an account takes any email, as before.
    free = platform.post(
        "/api/pedidos",
        {**sent, "userId": 990_000 + account["userId"] % 9999, "userEmail": "ana@example.com"},
    )
    assert free.status_code == 201, free.body


def _counter():
    numbers, lock = itertools.count(1), threading.Lock()

    def next_id() -> int:
        with lock:
            return next(numbers)

    return next_id


def test_a_registration_and_an_order_for_the_same_new_id_never_both_win(tables):
    """Accounts being made (their claims pending) and orders for the very ids the counter
    is about to give, all at once: each id is an account's or orders', never both."""
    client = boto3.client("dynamodb")
    ids = UserIds(lambda: client, TABLE)
    next_id = _counter()

    def order(user_id: int) -> int | None:
        try:
            ids.for_order(user_id)
            return user_id
        except Conflict as refused:
            assert refused.code == "USER_ID_REGISTERING"
            return None

    with ThreadPoolExecutor(16) as pool:
        accounts = [pool.submit(ids.new_account, next_id) for _ in range(30)]
        ordered = [pool.submit(order, user_id) for user_id in range(1, 61)]
        accounts_ids = [done.result() for done in accounts]
        ordered_ids = {done.result() for done in ordered} - {None}
    assert len(set(accounts_ids)) == 30  # each its own
    assert set(accounts_ids).isdisjoint(ordered_ids)
    # Once an account exists, orders for it go through; its id is never given again.
    ids.account_created(accounts_ids[0])
    ids.for_order(accounts_ids[0])
    assert ids.new_account(next_id) not in accounts_ids


def test_the_userids_of_data_written_before_claims_are_claimed_by_the_backfill(
    tables, platform, pool
):
    """An order and a shipment of an earlier version (written without claims) and an
    account made then: once backfilled, no registration gets their ids; a second run
    claims them again, changing nothing."""
    from infra.user_id_backfill import TABLES, backfill

    order = {"id": {"N": "50"}, "userId": {"N": "1"}, "status": {"S": "PENDIENTE"}}
    shipment = {"id": {"N": "60"}, "pedidoId": {"N": "49"}, "userId": {"N": "2"}}
    tables.put_item(TableName="OrdersTable", Item=order)
    tables.put_item(TableName="ShipmentsTable", Item=shipment)
    cognito = boto3.client("cognito-idp", endpoint_url=pool.url)
    cognito.admin_create_user(
        UserPoolId=pool.id,
        Username=new_email(),
        UserAttributes=[{"Name": "custom:userId", "Value": "3"}],
        MessageAction="SUPPRESS",
    )
    # One no other test's account of the session's pool has: named by its claim.
    unique = 900_000 + uuid.uuid4().int % 99_999
    earlier = cognito.admin_create_user(
        UserPoolId=pool.id,
        Username=new_email(),
        UserAttributes=[{"Name": "custom:userId", "Value": str(unique)}],
        MessageAction="SUPPRESS",
    )["User"]
    names = {name: name for name in (*TABLES, TABLE)}
    claimed = backfill(tables, names, cognito, pool.id)
    assert (claimed["OrdersTable"], claimed["ShipmentsTable"]) == (1, 1)
    assert claimed["accounts"] >= 1  # the pool's users of other tests are there too
    assert backfill(tables, names, cognito, pool.id) == claimed
    made = [body(register(platform, new_email()))["userId"] for _ in range(3)]
    assert not set(made) & {1, 2, 3}, made
    # The account's id is an account's: `make user USER_ID=3` would be refused.
    from common.identity.user_ids import UserIdTaken

    with pytest.raises(UserIdTaken):
        UserIds(lambda: tables, TABLE).for_account(3)
    # ... and its claim names it: the account of userId 3 is found.
    assert UserIds(lambda: tables, TABLE).account_of(unique) == earlier["Username"]


def test_a_new_accounts_claim_names_the_account_in_the_pool(tables, platform, pool):
    """What leads from a userId to its account (an operator's request about a person,
    docs/personal-data.md): the pool's own name for it, which holds nothing of them."""
    email = new_email()
    user_id = body(register(platform, email))["userId"]
    cognito = boto3.client("cognito-idp", endpoint_url=pool.url)
    username = cognito.admin_get_user(UserPoolId=pool.id, Username=email)["Username"]
    assert email not in username
    assert UserIds(lambda: tables, TABLE).account_of(user_id) == username
