"""Two bodies are the same body for an Idempotency-Key when equal once parsed
(docs/api.md#retries-without-duplicates-idempotency-key)."""

from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from common.http.fingerprints import fingerprint
from common.platform import jsonio


def of(text: str) -> str:
    return fingerprint(jsonio.loads(text))


@pytest.mark.parametrize(
    "one, other",
    [
        ('{"a": 1, "b": 2}', '{"b":2,"a":1}'),
        ('{"total": 19.990}', '{"total": 19.99}'),
        ('{"n": 5}', '{"n": 5.0}'),
        ('{"n": 500}', '{"n": 5e2}'),
        ('{"n": 0}', '{"n": -0.0}'),
        ('{"n": [1, {"x": null}]}', '{ "n" : [ 1 , { "x" : null } ] }'),
    ],
)
def test_equal_once_parsed_is_the_same_body(one, other):
    assert of(one) == of(other)


@pytest.mark.parametrize(
    "one, other",
    [
        ('{"total": 1.5}', '{"total": "1.5"}'),
        ('{"n": 1}', '{"n": true}'),
        ('{"n": 0}', '{"n": false}'),
        ('{"n": null}', "{}"),
        ('{"n": 1}', '{"n": 10}'),
        ('{"n": [1, 2]}', '{"n": [2, 1]}'),
        ('{"n": 1e999999999}', '{"n": 1e999999998}'),
    ],
)
def test_a_different_value_or_type_is_another_body(one, other):
    assert of(one) != of(other)


@pytest.mark.parametrize(
    "number",
    ["1e999999999", "-1e-999999999", "9" * 5000, "0.000000000000000000000000000000000000000001"],
)
def test_numbers_no_arithmetic_can_hold_still_have_a_fingerprint(number):
    assert len(of(f'{{"n": {number}}}')) == 64


@settings(max_examples=200, derandomize=True)
@given(st.decimals(allow_nan=False, allow_infinity=False), st.integers(0, 5))
def test_trailing_zeros_never_make_another_body(number, zeros):
    sign, digits, exponent = number.as_tuple()
    padded = Decimal((sign, digits + (0,) * zeros, exponent - zeros))  # the same value
    assert padded == number
    assert fingerprint({"n": number}) == fingerprint({"n": padded})
