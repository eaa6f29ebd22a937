"""Signing in with an email and a password against the real local stack, over HTTP
(docs/api.md#signing-in): the template's user pool in the emulator, the authorizer taking
its tokens by its keys, guesses slowed, every refusal alike."""

import itertools
import time
import uuid

import pytest
import requests

from tests.support.addresses import client_at, new_address
from tests.support.stack_process import StackClient

PASSWORD = "A-long-Passphrase-2026"
PRODUCT = {
    "sku": "SIGN-1",
    "nombre": "Caja",
    "precioUnitario": 3,
    "stockActual": 50,
    "umbralMinimo": 5,
}
_numbers = itertools.count()


def new_email() -> str:
    return f"user-{uuid.uuid4().hex[:10]}-{next(_numbers)}@example.com"


def post(stack, path: str, **kw) -> requests.Response:
    return requests.post(stack.gateway + path, timeout=30, **kw)


def register(stack, email: str, password: str = PASSWORD, **more) -> requests.Response:
    """From a client address of its own: registrations are limited per address
    (test_registrations_are_limited_per_client_address), these are each a new client's."""
    return client_at(new_address()).post(
        stack.gateway + "/api/auth/register",
        json={"email": email, "password": password, **more},
        timeout=30,
    )


def login(stack, email: str, password: str = PASSWORD) -> requests.Response:
    return post(stack, "/api/auth/login", json={"email": email, "password": password})


def test_a_customer_registers_signs_in_and_has_a_customers_rights(stack, http):
    email = new_email()
    made = register(stack, email.upper(), nombre="Ana", rol="operator", role="operator")
    assert made.status_code == 201, made.text
    account = made.json()
    # The email kept lowercase; a role asked for is ignored: always a customer.
    assert account == {"email": email, "userId": account["userId"], "rol": "customer"}
    assert isinstance(account["userId"], int) and account["userId"] > 0

    signed_in = login(stack, email)
    assert signed_in.status_code == 200, signed_in.text
    assert signed_in.headers["Content-Type"].startswith("text/plain")
    token = signed_in.text
    assert token.count(".") == 2 and token == token.strip()

    me = StackClient(stack, token)
    # A new account owns nothing until it orders (docs/identity.md#userids), whatever
    # orders other tests placed for numbers near its own.
    assert me.gateway("GET", "/api/pedidos").json() == []
    product = http.gateway("POST", "/api/inventario", json={**PRODUCT, "sku": new_email()}).json()
    order = {
        "userEmail": email,
        "clienteNombre": "Ana",
        "total": 3,
        "tipoPedido": "NACIONAL",
        "destino": "Lima",
        "productoId": product["id"],
        "cantidad": 1,
    }
    mine = me.gateway("POST", "/api/pedidos", json={**order, "userId": account["userId"]})
    assert mine.status_code == 201, mine.text
    assert me.gateway("POST", "/api/pedidos", json={**order, "userId": 999999}).status_code == 403
    # Theirs only: the one order it placed.
    listed = me.gateway("GET", "/api/pedidos", params={"limit": 1000}).json()
    assert [o["id"] for o in listed] == [mine.json()["id"]]
    assert me.gateway("POST", "/api/inventario", json=PRODUCT).status_code == 403
    assert me.gateway("GET", "/api/inventario").status_code == 200


def test_make_token_still_works_beside_the_pool(http):
    assert http.gateway("GET", "/api/inventario").status_code == 200


def _error(response: requests.Response) -> tuple[int, str]:
    return response.status_code, response.json()["error"]


@pytest.mark.parametrize(
    "path, sent, field",
    [
        ("/api/auth/register", {"password": PASSWORD}, "email"),
        ("/api/auth/register", {"email": "a@example.com"}, "password"),
        ("/api/auth/register", {"email": "not-an-email", "password": PASSWORD}, "email"),
        ("/api/auth/register", {"email": 5, "password": PASSWORD}, "email"),
        ("/api/auth/login", {"email": "a@example.com"}, "password"),
        ("/api/auth/login", {"password": "x"}, "email"),
        ("/api/auth/login", {"email": "", "password": "x"}, "email"),
    ],
)
def test_missing_or_bad_fields_are_400_naming_them(stack, path, sent, field):
    answer = post(stack, path, json=sent)
    assert _error(answer) == (400, "VALIDATION_ERROR")
    assert field in {detail["field"] for detail in answer.json()["details"]}


@pytest.mark.parametrize("path", ["/api/auth/register", "/api/auth/login"])
@pytest.mark.parametrize("raw", [b"{", b"", b"[1]", b"null"])
def test_malformed_json_is_400(stack, path, raw):
    answer = post(stack, path, data=raw)
    assert _error(answer) == (400, "INVALID_JSON")


@pytest.mark.parametrize(
    "weak", ["short1A", "alllowercase123", "ALLUPPERCASE123", "NoNumbersAtAll"]
)
def test_a_weak_password_is_400_with_the_pools_policy(stack, weak):
    answer = register(stack, new_email(), weak)
    assert _error(answer) == (400, "VALIDATION_ERROR")
    assert "at least 12 characters" in answer.json()["message"]
    assert "uppercase" in answer.json()["message"]


def test_an_email_registered_is_409_whatever_its_case(stack):
    email = new_email()
    assert register(stack, email).status_code == 201
    for again in (email, email.upper(), f"  {email} "):
        answer = register(stack, again)
        assert _error(answer) == (409, "EMAIL_TAKEN")
        assert set(answer.json()) == {"error", "message", "details"}


def test_each_customer_gets_a_userid_of_their_own(stack):
    ids = [register(stack, new_email()).json()["userId"] for _ in range(3)]
    assert len(set(ids)) == 3


def test_a_wrong_password_and_an_unknown_email_are_one_answer(stack):
    """Same status and body. That they cost the same work (one pool call, one password
    hash each) is counted, not timed, in tests/integration/test_sign_in_routes.py: a
    median of a few tries on a busy machine told noise from an oracle badly."""
    known = [new_email() for _ in range(3)]
    for email in known:
        assert register(stack, email).status_code == 201
    bodies = set()
    for email in known:
        for tried in (email, new_email()):
            answer = login(stack, tried, "Wrong-Password-2026")
            assert answer.status_code == 401
            bodies.add(answer.text)
    assert len(bodies) == 1
    assert _error_of(bodies.pop()) == "INVALID_CREDENTIALS"


def _error_of(text: str) -> str:
    import json

    return json.loads(text)["error"]


def test_guesses_for_one_email_are_slowed_then_even_the_right_password_waits(stack):
    email = new_email()
    assert register(stack, email).status_code == 201
    statuses = [login(stack, email, f"Wrong-Guess-{n:04d}").status_code for n in range(5)]
    assert statuses == [401] * 5
    slowed = login(stack, email, "Wrong-Guess-0006")
    assert _error(slowed) == (429, "TOO_MANY_ATTEMPTS")
    assert 1 <= int(slowed.headers["Retry-After"]) <= 30
    # Locked: the right password is not even tried, so a guess cannot get through.
    assert login(stack, email).status_code == 429
    # An email no one has is slowed the same way: a lock says nothing about accounts.
    nobody = new_email()
    assert [login(stack, nobody, "x").status_code for _ in range(6)] == [401] * 5 + [429]


def test_a_burst_of_guesses_at_once_gets_no_more_tries_than_one_at_a_time(stack):
    from concurrent.futures import ThreadPoolExecutor

    email = new_email()
    assert register(stack, email).status_code == 201
    with ThreadPoolExecutor(12) as pool:
        statuses = list(
            pool.map(lambda n: login(stack, email, f"Guess-{n}-Aa1").status_code, range(12))
        )
    assert statuses.count(401) <= 5, statuses
    assert set(statuses) <= {401, 429}


def test_guessing_from_one_address_never_locks_the_owner_out_from_another(stack):
    """The count is kept per email and client address: someone failing on purpose
    somewhere else is slowed, the owner signing in from their own address is not."""
    email = new_email()
    assert register(stack, email).status_code == 201
    guesser, owner = client_at(new_address()), client_at(new_address())
    sent = {"email": email, "password": "Wrong-Guess-2026"}
    statuses = [
        guesser.post(stack.gateway + "/api/auth/login", json=sent, timeout=30).status_code
        for _ in range(7)
    ]
    assert statuses == [401] * 5 + [429] * 2
    mine = owner.post(
        stack.gateway + "/api/auth/login", json={"email": email, "password": PASSWORD}, timeout=30
    )
    assert mine.status_code == 200, mine.text


def test_registrations_are_limited_per_client_address(stack):
    """Beyond 20 accounts made from one address in 10 minutes: 429 with Retry-After, and
    no account; another address registers as before."""
    script = client_at(new_address())

    def register_from(client) -> requests.Response:
        sent = {"email": new_email(), "password": PASSWORD}
        return client.post(stack.gateway + "/api/auth/register", json=sent, timeout=30)

    statuses = [register_from(script).status_code for _ in range(20)]
    assert statuses == [201] * 20
    refused = register_from(script)
    assert _error(refused) == (429, "TOO_MANY_REGISTRATIONS")
    assert 1 <= int(refused.headers["Retry-After"]) <= 600
    assert refused.headers["Cache-Control"] == "no-store"
    assert register_from(client_at(new_address())).status_code == 201


def test_the_pools_public_client_cannot_sign_in_past_the_apis_limits(stack):
    """Only the API signs in with a password (an administrator's flow, which needs AWS
    credentials): the app client's own password and SRP flows are off, so nobody can
    guess against the pool directly, unslowed."""
    import boto3

    from infra.local import LOCAL_AWS_ENV
    from infra.local.sign_in import find_pool

    email = new_email()
    assert register(stack, email).status_code == 201
    pool = find_pool(stack.dynamodb, LOCAL_AWS_ENV["AWS_DEFAULT_REGION"])
    cognito = boto3.client(
        "cognito-idp",
        endpoint_url=stack.dynamodb,
        region_name=LOCAL_AWS_ENV["AWS_DEFAULT_REGION"],
        aws_access_key_id="anyone",
        aws_secret_access_key="anyone",
    )
    for flow, parameters in (
        ("USER_PASSWORD_AUTH", {"USERNAME": email, "PASSWORD": PASSWORD}),
        ("USER_SRP_AUTH", {"USERNAME": email, "SRP_A": "abc123"}),
    ):
        with pytest.raises(cognito.exceptions.InvalidParameterException, match="not enabled"):
            cognito.initiate_auth(ClientId=pool.client_id, AuthFlow=flow, AuthParameters=parameters)


def _pool_admin(stack):
    """The emulator's pool as an administrator reaches it (the AWS console's calls)."""
    import boto3

    from infra.local import LOCAL_AWS_ENV
    from infra.local.sign_in import find_pool

    region = LOCAL_AWS_ENV["AWS_DEFAULT_REGION"]
    cognito = boto3.client(
        "cognito-idp",
        endpoint_url=stack.dynamodb,
        region_name=region,
        aws_access_key_id=LOCAL_AWS_ENV["AWS_ACCESS_KEY_ID"],
        aws_secret_access_key=LOCAL_AWS_ENV["AWS_SECRET_ACCESS_KEY"],
    )
    return cognito, find_pool(stack.dynamodb, region).id


def test_a_token_of_an_account_disabled_or_deleted_stops_working_within_60_seconds(stack):
    """Before it expires (60 minutes): an administrator disables one account and deletes
    another in the pool; their tokens are 401 within a minute (docs/identity.md)."""
    cognito, pool_id = _pool_admin(stack)
    tokens = {}
    for change in ("disabled", "deleted"):
        email = new_email()
        assert register(stack, email).status_code == 201
        tokens[change] = StackClient(stack, login(stack, email).text)
        assert tokens[change].gateway("GET", "/api/pedidos").status_code == 200
        if change == "disabled":
            cognito.admin_disable_user(UserPoolId=pool_id, Username=email)
        else:
            cognito.admin_delete_user(UserPoolId=pool_id, Username=email)
    changed_at = time.monotonic()
    statuses: dict[str, int] = {}
    while time.monotonic() < changed_at + 60:
        statuses = {c: t.gateway("GET", "/api/pedidos").status_code for c, t in tokens.items()}
        if set(statuses.values()) == {401}:
            break
        time.sleep(1)
    assert statuses == {"disabled": 401, "deleted": 401}, statuses
    # Another customer's token is untouched.
    email = new_email()
    assert register(stack, email).status_code == 201
    assert StackClient(stack, login(stack, email).text).gateway("GET", "/api/pedidos").ok


def test_a_success_starts_the_count_again(stack):
    email = new_email()
    assert register(stack, email).status_code == 201
    assert [login(stack, email, "Wrong-1").status_code for _ in range(4)] == [401] * 4
    assert login(stack, email).status_code == 200
    assert [login(stack, email, "Wrong-2").status_code for _ in range(4)] == [401] * 4


@pytest.mark.parametrize("path", ["/api/auth/register", "/api/auth/login"])
def test_both_routes_answer_a_cors_preflight(stack, path):
    answer = requests.options(
        stack.gateway + path,
        headers={
            "Origin": "http://localhost:3000",
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "content-type",
        },
        timeout=30,
    )
    assert answer.status_code == 200
    assert answer.headers["Access-Control-Allow-Origin"] == "*"
    assert "POST" in answer.headers["Access-Control-Allow-Methods"]
    assert "content-type" in answer.headers["Access-Control-Allow-Headers"].lower()
    # And the answers themselves carry the origin, errors included.
    assert login(stack, new_email(), "x").headers["Access-Control-Allow-Origin"] == "*"


def test_neither_route_needs_a_token_and_a_bad_one_is_ignored(stack):
    answer = post(
        stack,
        "/api/auth/login",
        json={"email": new_email(), "password": "x"},
        headers={"Authorization": "Bearer not-a-token"},
    )
    assert _error(answer) == (401, "INVALID_CREDENTIALS")


def test_make_user_makes_an_operator_who_signs_in_with_the_password_it_printed(stack):
    email = new_email()
    said = stack.make_user(f"EMAIL={email}", "ROLE=operator")
    assert said.startswith(f"Created {email} in the local user pool (operator); password: ")
    password = said.rsplit(" ", 1)[1]
    token = login(stack, email, password).text
    operator = StackClient(stack, token)
    made = operator.gateway("POST", "/api/inventario", json={**PRODUCT, "sku": new_email()})
    assert made.status_code == 201, made.text
    # A second run is refused, saying why: it changes nothing.
    again = stack.make_user_refused_or_not(f"EMAIL={email}", "ROLE=operator")
    assert again.returncode != 0 and again.stdout == ""
    assert f"{email} already has an account in the local user pool (operator)" in again.stderr


def test_make_user_refuses_to_make_an_operator_of_an_email_someone_registered(stack):
    """Registering proves nothing about an email: whoever registered an operator's address
    first gets no operator's account when the operator is made (docs/identity.md)."""
    email = new_email()
    assert register(stack, email).status_code == 201
    refused = stack.make_user_refused_or_not(f"EMAIL={email.upper()}", "ROLE=operator")
    assert refused.returncode != 0, refused.stdout
    assert f"{email} already has an account in the local user pool (customer" in refused.stderr
    assert "nothing changed" in refused.stderr
    theirs = StackClient(stack, login(stack, email).text)
    assert theirs.gateway("POST", "/api/inventario", json=PRODUCT).status_code == 403


def test_make_user_makes_a_customer_with_a_new_userid_or_the_one_given(stack):
    email, chosen, second = new_email(), new_email(), new_email()
    said = stack.make_user(f"EMAIL={email}", "ROLE=customer", f"PASSWORD={PASSWORD}")
    assert said.startswith(f"Created {email} in the local user pool (customer, userId ")
    assert login(stack, email).status_code == 200
    wanted = 900000 + int(uuid.uuid4().int % 90000)  # a number of this test's own
    said = stack.make_user(f"EMAIL={chosen}", "ROLE=customer", f"USER_ID={wanted}")
    assert f"(customer, userId {wanted})" in said
    # The id is that account's: a second account with it is refused, and not made; the
    # counter is left where it was (ids stay dense), never giving it again.
    refused = stack.make_user_refused_or_not(
        f"EMAIL={second}", "ROLE=customer", f"USER_ID={wanted}"
    )
    assert refused.returncode != 0 and f"userId {wanted} already belongs" in refused.stderr
    assert login(stack, second, "whatever").status_code == 401
    assert register(stack, new_email()).json()["userId"] != wanted


def test_users_and_their_tokens_outlive_a_restart(tmp_path):
    """The pool's users are kept with the data, no password in clear, and the pool keeps
    its ids: a user signs in after a restart, and a token issued before it still works."""
    from tests.support.stack_process import StackProcess

    data = {"LOCAL_DATA_DIR": str(tmp_path / "data")}
    first = StackProcess(data).start()
    try:
        email = new_email()
        assert register(first, email).status_code == 201
        token = login(first, email).text
    finally:
        first.stop()
    saved = (tmp_path / "data" / "users.json").read_text()
    assert email in saved and PASSWORD not in saved
    # The pool signs with a key of this data directory's, its owner's alone (never the
    # one moto ships): the token is still good after the restart because the key is.
    key = tmp_path / "data" / "user-pool-signing-key.pem"
    assert key.stat().st_mode & 0o777 == 0o600
    assert "PRIVATE KEY" in key.read_text()
    again = StackProcess(data).start()
    try:
        assert StackClient(again, token).gateway("GET", "/api/pedidos").status_code == 200
        assert login(again, email).status_code == 200
        assert login(again, email, "Wrong-Password-2026").status_code == 401
        assert _error(register(again, email)) == (409, "EMAIL_TAKEN")
    finally:
        again.stop()
