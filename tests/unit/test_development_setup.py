"""The development setup's facts, each held to the one place it comes from: what
requirements.txt holds (Chalice packages it), and where the `local` stage of
.chalice/config.json points `chalice local`."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DEVELOPMENT_TOOLS = {"moto", "pytest", "ruff", "cfn-lint", "schemathesis", "waitress",
                     "openapi-spec-validator", "swagger-ui-py", "pyyaml", "aws-sam-cli"}


def requirements(path: Path) -> set[str]:
    """The package names a requirements file installs, following its -r includes."""
    names = set()
    for line in path.read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line.startswith("-r "):
            names |= requirements(path.parent / line[3:].strip())
        elif line:
            names.add(re.split(r"[\[=<>~ ]", line, maxsplit=1)[0].lower())
    return names


def test_requirements_txt_is_the_runtime_the_layer_holds_and_no_development_tool():
    runtime = requirements(ROOT / "requirements.txt")
    assert runtime == requirements(ROOT / "layers" / "common" / "requirements.txt")
    assert not runtime & DEVELOPMENT_TOOLS


def test_the_development_requirements_add_the_tools_to_the_runtime():
    development = requirements(ROOT / "requirements-dev.txt")
    assert requirements(ROOT / "requirements.txt") < development
    assert {"moto", "pytest", "ruff", "waitress"} <= development
