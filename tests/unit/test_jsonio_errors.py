"""What a client is told about a body that is not JSON (docs/api.md#errors): the parser's
reason in words, with the character at fault, never its message template."""

import pytest

from common import jsonio


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
