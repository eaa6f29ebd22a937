"""The reading of the template's roles (tests/support/iam.py) that the integration tests
check every AWS call of the functions against: it must refuse what AWS would refuse."""

import threading

import pytest

from tests.support.iam import Access, Callers, accesses, allows, callers

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
    # a conditioned grant is taken not to cover a Query (its key is not read)
    ("OrderEventsFunction", Access("dynamodb:Query", "IdempotencyTable"), False),
    # an action not listed
    ("EventSweeperFunction", Access("dynamodb:PutItem", "OrdersTable", frozenset({"1"})), False),
    # SAM's policy templates: the secret by its name in any stack, the function by its own
    ("AuthorizerFunction", Access("secretsmanager:GetSecretValue",
                                  "arn:aws:secretsmanager:us-east-1:1:secret:prod/jwt-signing-key-AbCdEf"),
     True),
    ("AuthorizerFunction", Access("secretsmanager:GetSecretValue", "prod/page-token-key"), False),
    ("OrdersFunction", Access("lambda:InvokeFunction",
                              "logistics-prod-OrderEventsFunction-1A2B3C4D5E6F"), True),
    ("OrdersFunction", Access("lambda:InvokeFunction",
                              "logistics-prod-OrderEventsFunctionOld-1A2B3C4D5E6F"), False),
    ("AuthorizerFunction", Access("secretsmanager:GetSecretValue",
                                  "arn:aws:secretsmanager:us-east-1:1:secret:prod/jwt-signing-key-old-AbCdEf"),
     False),
    ("EventSweeperFunction", Access("lambda:InvokeFunction", "InventoryFunction"), False),
    ("NotificationFunction", Access("lambda:InvokeFunction", "OrderEventsFunction"), False),
])
def test_a_role_allows_what_it_grants_and_nothing_else(function, access, allowed):
    assert allows(function, access) is allowed


def called_from(module: str):
    """callers() as seen from code of `module`."""
    scope = {"__name__": module, "callers": callers}
    exec("def call(inner=None, answers=None):\n"
         "    answer = inner() if inner else callers()\n"
         "    answers is None or answers.append(answer)\n"
         "    return answer", scope)
    return scope["call"]


def test_a_call_belongs_to_the_function_whose_code_makes_it():
    assert called_from("inventory.repository")() == Callers(frozenset({"InventoryFunction"}))
    assert called_from("tests.unit.something")() == Callers(frozenset())
    # the orders package hosts two handlers: a module only one loads decides
    assert called_from("orders.sweep")(called_from("orders.repository")) == Callers(
        frozenset({"EventSweeperFunction"}))
    assert called_from("orders.routes")(called_from("orders.repository")) == Callers(
        frozenset({"OrdersFunction"}))
    # an invoke answered in-process: the innermost function's code is the caller
    assert called_from("orders.stock_client")(called_from("inventory.repository")) == Callers(
        frozenset({"InventoryFunction"}))


def on_a_thread(call):
    """What `call` answers on a thread of its own: no test on its stack."""
    answers = []
    worker = threading.Thread(target=call, kwargs={"answers": answers})
    worker.start()
    worker.join()
    return answers[0]


def test_code_both_handlers_load_needs_both_roles_unless_a_test_calls_it():
    both = frozenset({"OrdersFunction", "EventSweeperFunction"})
    assert called_from("orders.repository")() == Callers(both, every=False)
    assert on_a_thread(called_from("orders.events")) == Callers(both, every=True)
    publish = Access("lambda:InvokeFunction", "OrderEventsFunction")
    stock_check = Access("lambda:InvokeFunction", "InventoryFunction")
    assert Callers(both, every=True).allow(publish)
    assert not Callers(both, every=True).allow(stock_check)
    assert Callers(both, every=False).allow(stock_check)


def test_a_call_nothing_on_the_stack_explains_is_told_apart():
    assert on_a_thread(called_from("common.counters")) is None


def test_every_part_of_the_tables_the_code_writes_is_in_its_role():
    """The idempotency scopes and the listener's part, as the code names them: the
    integration tests do not write every one of them."""
    from inventory.wiring import CREATE_SCOPE as INVENTORY
    from order_events.listener import SERVICE as LISTENER
    from orders.wiring import CREATE_SCOPE as ORDERS
    from shipping.wiring import CREATE_SCOPE as SHIPPING

    for function, scope in (("InventoryFunction", INVENTORY), ("OrdersFunction", ORDERS),
                            ("ShippingFunction", SHIPPING), ("OrderEventsFunction", LISTENER)):
        for action in ("GetItem", "PutItem", "UpdateItem", "DeleteItem"):
            assert allows(function, Access(f"dynamodb:{action}", "IdempotencyTable",
                                           frozenset({f"{scope}#key"}))), (function, action)


def test_every_function_a_function_is_told_to_invoke_it_may_invoke():
    from infra import template

    functions = template.resources("AWS::Serverless::Function")
    for name, function in functions.items():
        for value in function["Properties"].get("Environment", {}).get("Variables", {}).values():
            if isinstance(value, dict) and value.get("Ref") in functions:
                assert allows(name, Access("lambda:InvokeFunction", value["Ref"])), (name, value)
