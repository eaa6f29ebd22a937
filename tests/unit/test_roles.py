"""The reading of the template's roles (tests/support/iam.py) that the integration tests
check every AWS call of the functions against: it must refuse what AWS would refuse."""

import pytest

from tests.support.iam import Access, accesses, allows, functions_calling

SKU_CLAIM = {"TransactItems": [
    {"Put": {"TableName": "ProductsTable", "Item": {"id": {"N": "7"}}}},
    {"Put": {"TableName": "ProductSkusTable", "Item": {"sku": {"S": "A-1"}}}}]}


def test_a_call_is_seen_as_iam_sees_it():
    assert accesses("dynamodb", "TransactWriteItems", SKU_CLAIM) == [
        Access("dynamodb:PutItem", "ProductsTable", frozenset({"7"})),
        Access("dynamodb:PutItem", "ProductSkusTable", frozenset({"A-1"}))]
    assert accesses("dynamodb", "Query", {"TableName": "OrdersTable",
                                          "IndexName": "pendingEvents"}) == [
        Access("dynamodb:Query", "OrdersTable/index/pendingEvents")]
    assert accesses("dynamodb", "BatchGetItem", {"RequestItems": {
        "ShipmentsTable": {"Keys": [{"id": {"N": "1"}}, {"id": {"N": "2"}}]}}}) == [
        Access("dynamodb:BatchGetItem", "ShipmentsTable", frozenset({"1", "2"}))]
    assert accesses("lambda", "Invoke", {"FunctionName": "OrderEventsFunction"}) == [
        Access("lambda:InvokeFunction", "OrderEventsFunction")]


@pytest.mark.parametrize("function, access, allowed", [
    # each service its own tables only
    ("InventoryFunction", Access("dynamodb:GetItem", "ProductsTable", frozenset({"1"})), True),
    ("OrdersFunction", Access("dynamodb:GetItem", "ProductsTable", frozenset({"1"})), False),
    # an index by name, and only the one granted
    ("EventSweeperFunction", Access("dynamodb:Query", "OrdersTable/index/pendingEvents"), True),
    ("OrdersFunction", Access("dynamodb:Query", "OrdersTable/index/pendingEvents"), False),
    ("OrdersFunction", Access("dynamodb:Query", "OrdersTable/index/byStatus"), True),
    # its own counter key (StringEquals), its own part of the idempotency table (StringLike)
    ("InventoryFunction", Access("dynamodb:UpdateItem", "CountersTable", frozenset({"products"})),
     True),
    ("InventoryFunction", Access("dynamodb:UpdateItem", "CountersTable", frozenset({"orders"})),
     False),
    ("InventoryFunction", Access("dynamodb:UpdateItem", "CountersTable",
                                 frozenset({"products", "orders"})), False),
    ("OrderEventsFunction", Access("dynamodb:PutItem", "IdempotencyTable",
                                   frozenset({"order-events#abc"})), True),
    ("OrderEventsFunction", Access("dynamodb:PutItem", "IdempotencyTable",
                                   frozenset({"POST /api/pedidos#abc"})), False),
    # a conditioned grant never covers a call that names no key
    ("OrderEventsFunction", Access("dynamodb:Query", "IdempotencyTable"), False),
    # an action not listed
    ("EventSweeperFunction", Access("dynamodb:PutItem", "OrdersTable", frozenset({"1"})), False),
    # SAM's policy templates: the secret by its name in any stack, the function by its own
    ("AuthorizerFunction", Access("secretsmanager:GetSecretValue",
                                  "arn:aws:secretsmanager:us-east-1:1:secret:prod/jwt-signing-key-AbCdEf"),
     True),
    ("AuthorizerFunction", Access("secretsmanager:GetSecretValue", "prod/page-token-key"), False),
    ("OrdersFunction", Access("lambda:InvokeFunction", "logistics-prod-OrderEvents-1A2B"), True),
    ("EventSweeperFunction", Access("lambda:InvokeFunction", "InventoryFunction"), False),
    ("NotificationFunction", Access("lambda:InvokeFunction", "OrderEventsFunction"), False),
])
def test_a_role_allows_what_it_grants_and_nothing_else(function, access, allowed):
    assert allows(function, access) is allowed


def called_from(module: str):
    """functions_calling() as seen from code of `module`."""
    scope = {"__name__": module, "functions_calling": functions_calling}
    exec("def call(inner=None):\n    return inner() if inner else functions_calling()", scope)
    return scope["call"]


def test_a_call_belongs_to_the_function_whose_code_makes_it():
    assert called_from("inventory.repository")() == {"InventoryFunction"}
    assert called_from("tests.unit.something")() == frozenset()
    # the orders package hosts two handlers: a module only one loads decides
    assert called_from("orders.sweep")(called_from("orders.repository")) == {
        "EventSweeperFunction"}
    assert called_from("orders.routes")(called_from("orders.repository")) == {"OrdersFunction"}
    assert called_from("orders.repository")() == {"OrdersFunction", "EventSweeperFunction"}
    # an invoke answered in-process: the innermost function's code is the caller
    assert called_from("orders.stock_client")(called_from("inventory.repository")) == {
        "InventoryFunction"}
