"""`make user` (infra/users.py) against the emulator's pool and tables: an operator makes
accounts, and never one that takes over someone else's email or userId
(docs/identity.md#making-users)."""

import uuid

import boto3
import pytest

from infra import users
from tests.integration.test_user_ids import a_product, register, token_of
from tests.support.api import body
from tests.support.endpoints import point

PASSWORD = "A-long-Passphrase-2026"


@pytest.fixture
def tool_pool(tables, pool) -> users.Pool:
    """The pool and tables as `make user` reaches them (its own clients)."""
    return users.Pool(
        boto3.client("cognito-idp", endpoint_url=pool.url),
        pool.id,
        boto3.client("dynamodb"),
        "CountersTable",
        "UserIdsTable",
        "the local user pool",
    )


@pytest.fixture
def platform(orders_gateway, pool, monkeypatch):
    point(monkeypatch, "COGNITO_IDENTITY_PROVIDER", pool.url)
    return orders_gateway(**pool.environment())


def new_email() -> str:
    return f"tool-{uuid.uuid4().hex[:12]}@example.com"


def attributes(tool_pool: users.Pool, email: str) -> dict:
    user = tool_pool.cognito.admin_get_user(UserPoolId=tool_pool.pool_id, Username=email)
    return {a["Name"]: a["Value"] for a in user["UserAttributes"]}


def test_an_email_someone_registered_is_refused_and_stays_a_customer(tool_pool, platform):
    email = new_email()
    assert register(platform, email).status_code == 201
    with pytest.raises(users.Refused, match="already has an account"):
        users.make_user(tool_pool, email.upper(), "operator", PASSWORD)
    # Still a customer: an operator's route is refused with its own token.
    assert platform.post("/api/inventario", {}, token=token_of(platform, email)).status_code == 403


def test_registering_does_not_mark_the_email_verified(tool_pool, platform):
    email = new_email()
    assert register(platform, email).status_code == 201
    assert attributes(tool_pool, email).get("email_verified", "false") == "false"


def test_a_userid_an_account_has_is_refused_and_changes_nothing(tool_pool):
    first, second = new_email(), new_email()
    users.make_user(tool_pool, first, "customer", PASSWORD, user_id=4242)
    with pytest.raises(users.Refused, match="userId 4242"):
        users.make_user(tool_pool, second, "customer", PASSWORD, user_id=4242)
    with pytest.raises(tool_pool.cognito.exceptions.UserNotFoundException):
        tool_pool.cognito.admin_get_user(UserPoolId=tool_pool.pool_id, Username=second)


def test_a_userid_a_registration_was_given_is_refused(tool_pool, platform):
    taken = body(register(platform, new_email()))["userId"]
    with pytest.raises(users.Refused, match=f"userId {taken}"):
        users.make_user(tool_pool, new_email(), "customer", PASSWORD, user_id=taken)


def test_a_userid_only_orders_carry_is_given_to_their_customers_account(tool_pool, platform):
    """The customer of orders an operator placed before they had an account."""
    placed = platform.post(
        "/api/pedidos",
        {
            "userId": 777,
            "userEmail": "later@example.com",
            "clienteNombre": "Later",
            "total": 3,
            "tipoPedido": "NACIONAL",
            "destino": "Lima",
            "productoId": a_product(platform),
            "cantidad": 1,
        },
    )
    assert placed.status_code == 201
    email = new_email()
    made = users.make_user(tool_pool, email, "customer", PASSWORD, user_id=777)
    assert (made.user_id, made.created) == (777, True)


def test_a_new_customer_from_make_user_never_gets_an_orders_userid(tool_pool, platform):
    product = a_product(platform)
    for user_id in (1, 2):  # the counter's next ones: the tables are new
        order = {
            "userId": user_id,
            "userEmail": "x@example.com",
            "clienteNombre": "X",
            "total": 3,
            "tipoPedido": "NACIONAL",
            "destino": "Lima",
            "productoId": product,
            "cantidad": 1,
        }
        assert platform.post("/api/pedidos", order).status_code == 201
    made = users.make_user(tool_pool, new_email(), "customer", PASSWORD)
    assert made.user_id not in (1, 2)
