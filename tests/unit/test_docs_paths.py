"""The files docs/architecture.md's "Reading the code" names exist: the path of one order
through the code stays true as files move."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def reading_the_code() -> str:
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    section = text.split("### Reading the code", 1)[1]
    return re.split(r"\n#+ |\nEach service is its own package", section, maxsplit=1)[0]


def test_every_file_the_path_of_an_order_names_exists():
    named = set(
        re.findall(r"`((?:functions|layers|infra)/[\w/]+\.(?:py|yaml))`", reading_the_code())
    )
    assert len(named) >= 15
    assert sorted(path for path in named if not (ROOT / path).is_file()) == []


def test_every_code_name_cited_beside_its_file_is_defined_there():
    """`functions/orders/repository.py` `set_status`: a name written after its file is a
    function, class or constant of that file (the docs named a `move` the code no longer
    had)."""
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    cited = re.findall(r"`((?:functions|layers|infra)/[\w/]+\.py)`\s+`(\w+)`", text)
    assert len(cited) >= 5
    missing = [
        f"{path} {name}"
        for path, name in cited
        if not re.search(
            rf"^\s*(?:def|class|async def)\s+{name}\b|^{name}\s*[:=]",
            (ROOT / path).read_text(encoding="utf-8"),
            re.MULTILINE,
        )
    ]
    assert missing == []
