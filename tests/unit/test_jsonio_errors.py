"""What a client is told about a body that is not JSON (docs/api.md#errors): the parser's
reason in words, with the character at fault, never its message template."""

import pytest

from common.platform import jsonio


@pytest.mark.parametrize(
    "body, said",
    [
        (
            '{"a":"x\ny"}',
            "the body is not valid JSON: Invalid control character '\\n' at position 7",
        ),
        ('{"a":', "the body is not valid JSON: Expecting value at position 5"),
    ],
)
def test_a_body_that_is_not_json_is_refused_with_its_reason_in_words(body, said):
    with pytest.raises(jsonio.InvalidJson) as refused:
        jsonio.loads(body)
    assert str(refused.value) == said


@pytest.mark.parametrize("body", ['{"nombre": "A\\ud800"}', '{"a\\udfff": 1}', '["\\ud800x"]'])
def test_a_lone_surrogate_is_refused_as_no_text(body):
    """Valid JSON, and no text: stored, every answer that showed it failed (500)."""
    with pytest.raises(jsonio.InvalidJson, match="lone surrogate"):
        jsonio.loads(body)


def test_a_surrogate_pair_is_the_character_it_escapes():
    assert jsonio.loads('{"a": "\\ud83d\\ude00"}') == {"a": "\U0001f600"}
