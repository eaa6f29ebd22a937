"""The notification use case: whatever the payload, it is logged (cut when large) and
confirmed; any JSON object is a payload, however deep."""

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from common.platform import jsonio
from common.platform.errors import Invalid
from notifications import service
from notifications.payloads import LOGGED_CHARACTERS, log_fields, parse_payload


def logged_line(payload) -> dict:
    logged = []
    assert service.receive(payload, lambda **keys: logged.append(keys)) == "Notificación procesada"
    (keys,) = logged
    return json.loads(jsonio.dumps(keys))  # as the log's serializer writes the line


def test_every_payload_is_logged_and_confirmed():
    payload = {"type": "LOW_STOCK_ALERT", "anything": [1, {"x": None}], "total": 19.99}
    line = logged_line(parse_payload(json.dumps(payload).encode()))
    assert line == {"event": "notification received", "payload": payload}
    assert service.health() == "notification-service UP"


def test_a_large_payload_is_logged_cut_with_its_size():
    raw = json.dumps({"blob": "é" * 300_000}).encode()
    line = logged_line(parse_payload(raw))
    assert line["payload_bytes"] == len(raw) and line["payload_cut"] is True
    assert line["payload"].startswith('{"blob":"')
    assert len(jsonio.dumps(line)) < 64 * 1024


def test_a_payload_just_under_the_limit_is_logged_whole():
    raw = json.dumps({"b": "x" * (LOGGED_CHARACTERS - 10)}).encode()
    assert logged_line(parse_payload(raw))["payload"] == json.loads(raw)


@pytest.mark.parametrize("depth", [65, 960, 5_000, 200_000])
def test_any_json_object_however_deep_is_a_payload_and_its_line_stays_shallow(depth):
    raw = ('{"a":' * depth + "1" + "}" * depth).encode()
    payload = parse_payload(raw)
    assert payload.text == raw.decode() and payload.size == len(raw)
    line = jsonio.dumps({"event": "x", **log_fields(payload)})  # never a RecursionError
    assert len(line) < 64 * 1024
    assert isinstance(json.loads(line)["payload"], str)  # any log reader can read the line


def test_a_payload_within_the_depth_is_logged_as_json():
    raw = ('{"a":' * 64 + "1" + "}" * 64).encode()
    assert isinstance(logged_line(parse_payload(raw))["payload"], dict)


@pytest.mark.parametrize(
    "raw", [b"", b"[]", b'"x"', b"{", b'{"a":1}}', b"\xff", b"NaN", b"[" * 5000 + b"]" * 4999]
)
def test_anything_but_a_json_object_is_refused(raw):
    with pytest.raises(Invalid) as refused:
        parse_payload(raw)
    assert refused.value.code == "INVALID_JSON"


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.text()
    | st.floats(allow_nan=False, allow_infinity=False),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


@settings(max_examples=300, derandomize=True)
@given(json_values, st.sampled_from([None, 1, 2]))
def test_the_deep_reader_agrees_with_the_parser_on_every_document(value, indent):
    text = json.dumps(value, indent=indent, ensure_ascii=False)
    assert json.loads(jsonio.compact_any(text)) == json.loads(text)


@settings(max_examples=300, derandomize=True)
@given(st.text(alphabet='{}[]:,"0123456789-.eE tfrunal\\', max_size=12))
def test_the_deep_reader_refuses_what_the_parser_refuses(text):
    try:
        json.loads(text)
        valid = True
    except ValueError:
        valid = False
    try:
        jsonio.compact_any(text)
        accepted = True
    except jsonio.InvalidJson:
        accepted = False
    assert accepted == (valid and text.strip() != "")
