"""The reading of the template's roles (tests/support/iam.py) that the integration tests
check every AWS call of the functions against: it must refuse what AWS would refuse."""

import pytest

from tests.support.iam import Access, accesses, allows

SKU_CLAIM = {
    "TransactItems": [
        {"Put": {"TableName": "ProductsTable", "Item": {"id": {"N": "7"}}}},
        {"Put": {"TableName": "ProductSkusTable", "Item": {"sku": {"S": "A-1"}}}},
    ]
}


def test_a_call_is_seen_as_iam_sees_it():
    assert accesses("dynamodb", "TransactWriteItems", SKU_CLAIM) == [
        Access("dynamodb:PutItem", "ProductsTable", frozenset({"7"})),
        Access("dynamodb:PutItem", "ProductSkusTable", frozenset({"A-1"})),
    ]
    assert accesses(
        "dynamodb", "Query", {"TableName": "OrdersTable", "IndexName": "pendingEvents"}
    ) == [Access("dynamodb:Query", "OrdersTable/index/pendingEvents")]
    assert accesses(
        "dynamodb",
        "BatchGetItem",
        {"RequestItems": {"ShipmentsTable": {"Keys": [{"id": {"N": "1"}}, {"id": {"N": "2"}}]}}},
    ) == [Access("dynamodb:BatchGetItem", "ShipmentsTable", frozenset({"1", "2"}))]
    assert accesses("lambda", "Invoke", {"FunctionName": "OrderEventsFunction"}) == [
        Access("lambda:InvokeFunction", "OrderEventsFunction")
    ]


@pytest.mark.parametrize(
    "function, access, allowed",
    [
        # each service its own tables only
        ("InventoryFunction", Access("dynamodb:GetItem", "ProductsTable", frozenset({"1"})), True),
        ("OrdersFunction", Access("dynamodb:GetItem", "ProductsTable", frozenset({"1"})), False),
        # an index by name, and only the one granted
        ("EventSweeperFunction", Access("dynamodb:Query", "OrdersTable/index/pendingEvents"), True),
        ("OrdersFunction", Access("dynamodb:Query", "OrdersTable/index/pendingEvents"), False),
        ("OrdersFunction", Access("dynamodb:Query", "OrdersTable/index/byStatusShard"), True),
        # its own counter key (StringEquals), its own part of the idempotency table (StringLike)
        (
            "InventoryFunction",
            Access("dynamodb:UpdateItem", "CountersTable", frozenset({"products"})),
            True,
        ),
        (
            "InventoryFunction",
            Access("dynamodb:UpdateItem", "CountersTable", frozenset({"orders"})),
            False,
        ),
        (
            "InventoryFunction",
            Access("dynamodb:UpdateItem", "CountersTable", frozenset({"products", "orders"})),
            False,
        ),
        (
            "OrderEventsFunction",
            Access("dynamodb:PutItem", "IdempotencyTable", frozenset({"order-events#abc"})),
            True,
        ),
        (
            "OrderEventsFunction",
            Access("dynamodb:PutItem", "IdempotencyTable", frozenset({"POST /api/pedidos#abc"})),
            False,
        ),
        # a conditioned grant is taken not to cover a Query (its key is not read)
        ("OrderEventsFunction", Access("dynamodb:Query", "IdempotencyTable"), False),
        # an action not listed
        (
            "EventSweeperFunction",
            Access("dynamodb:PutItem", "OrdersTable", frozenset({"1"})),
            False,
        ),
        # SAM's policy templates: the secret by its name in any stack, the function by its own
        (
            "AuthorizerFunction",
            Access(
                "secretsmanager:GetSecretValue",
                "arn:aws:secretsmanager:us-east-1:1:secret:prod/jwt-signing-key-AbCdEf",
            ),
            True,
        ),
        (
            "AuthorizerFunction",
            Access("secretsmanager:GetSecretValue", "prod/page-token-key"),
            False,
        ),
        (
            "OrdersFunction",
            Access("lambda:InvokeFunction", "logistics-prod-OrderEventsFunction-1A2B3C4D5E6F"),
            True,
        ),
        (
            "OrdersFunction",
            Access("lambda:InvokeFunction", "logistics-prod-OrderEventsFunctionOld-1A2B3C4D5E6F"),
            False,
        ),
        (
            "AuthorizerFunction",
            Access(
                "secretsmanager:GetSecretValue",
                "arn:aws:secretsmanager:us-east-1:1:secret:prod/jwt-signing-key-old-AbCdEf",
            ),
            False,
        ),
        ("EventSweeperFunction", Access("lambda:InvokeFunction", "InventoryFunction"), False),
        ("NotificationFunction", Access("lambda:InvokeFunction", "OrderEventsFunction"), False),
    ],
)
def test_a_role_allows_what_it_grants_and_nothing_else(function, access, allowed):
    assert allows(function, access) is allowed


def test_every_part_of_the_tables_the_code_writes_is_in_its_role():
    """The idempotency scopes and the listener's part, as the code names them: the
    integration tests do not write every one of them."""
    from inventory.wiring import CREATE_SCOPE as INVENTORY
    from order_events.listener import SERVICE as LISTENER
    from orders.wiring import CREATE_SCOPE as ORDERS
    from shipping.wiring import CREATE_SCOPE as SHIPPING

    for function, scope in (
        ("InventoryFunction", INVENTORY),
        ("OrdersFunction", ORDERS),
        ("ShippingFunction", SHIPPING),
        ("OrderEventsFunction", LISTENER),
    ):
        for action in ("GetItem", "PutItem", "UpdateItem", "DeleteItem"):
            assert allows(
                function,
                Access(f"dynamodb:{action}", "IdempotencyTable", frozenset({f"{scope}#key"})),
            ), (function, action)


def test_every_function_a_function_is_told_to_invoke_it_may_invoke():
    from infra import template

    functions = template.resources("AWS::Serverless::Function")
    for name, function in functions.items():
        for value in function["Properties"].get("Environment", {}).get("Variables", {}).values():
            if isinstance(value, dict) and value.get("Ref") in functions:
                assert allows(name, Access("lambda:InvokeFunction", value["Ref"])), (name, value)
