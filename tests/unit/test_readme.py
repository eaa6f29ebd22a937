"""The README stays a map (issue 48): what the platform does, the two commands, the
configuration's names, the architecture in a paragraph and a picture, how to deploy;
details live in docs/, where the README links."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")
MAX_LINES = 260


def test_the_readme_is_a_map_of_at_most_260_lines():
    assert len(README.splitlines()) <= MAX_LINES


def test_every_page_the_readme_links_exists():
    for target in re.findall(r"\]\(((?:docs|bench)/[^)#\s]+)", README):
        assert (ROOT / target).exists(), target
