"""The shape every service follows, held against the code's own imports.

routes.py (HTTP) -> service.py (use cases) -> rules.py + repository.py (PynamoDB) ->
model.py (its own tables only: a layer contract is imported from the layer); wiring.py
chooses the implementations and lambda_app.py is the entry point.
"""

import ast
from pathlib import Path

import pytest

from infra.local.functions import artifact_packages

ROOT = Path(__file__).resolve().parents[2]
FUNCTIONS = ROOT / "functions"
COMMON = ROOT / "layers" / "common" / "common"
SERVICES = ("inventory", "orders", "shipping")
PACKAGES = sorted(p.name for p in FUNCTIONS.iterdir() if (p / "__init__.py").exists())
# The HTTP edge: the only modules that may know Chalice (a service's own, and the common
# layer's http room: its app, answers, lists, creation once per key and request readers).
EDGE = {"routes.py", "lambda_app.py", "wiring.py"}
COMMON_EDGE = {
    "service_app.py",
    "responses.py",
    "lists.py",
    "creating.py",
    "readers.py",
    "index.py",
}


def imported_roots(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    roots = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            roots.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            roots.add(node.module.split(".")[0])
    return roots


def sources(*folders: Path) -> list[Path]:
    return [p for folder in folders for p in sorted(folder.rglob("*.py"))]


@pytest.mark.parametrize("path", sources(FUNCTIONS, COMMON), ids=lambda p: str(p.relative_to(ROOT)))
def test_nothing_below_the_http_edge_imports_chalice(path):
    at_edge = path.name in EDGE or (path.parent == COMMON / "http" and path.name in COMMON_EDGE)
    assert at_edge or "chalice" not in imported_roots(path)


def test_each_artifact_carries_its_own_package_only():
    """functions/Makefile packages each function's package alone: what two functions
    share is in the layer (test_guardrails: no function imports another), so no artifact
    needs another's code."""
    carrying_more = {
        function: packages
        for function, packages in artifact_packages().items()
        if len(packages) != 1
    }
    assert carrying_more == {}


def test_every_function_package_is_built_into_an_artifact():
    assert {packages[0] for packages in artifact_packages().values()} == set(PACKAGES)


@pytest.mark.parametrize("path", sources(FUNCTIONS, COMMON), ids=lambda p: str(p.relative_to(ROOT)))
def test_only_repositories_and_models_know_pynamodb(path):
    storage = path.name in ("repository.py", "model.py") or path.name.endswith(
        ("_repository.py", "_model.py")
    )
    allowed = storage or path in (
        COMMON / "storage" / "tables.py",
        COMMON / "storage" / "counters.py",
    )
    assert allowed or "pynamodb" not in imported_roots(path)


def test_nothing_outside_tests_imports_from_tests():
    # The benchmarks are harnesses too: they may drive the stack the way the tests do.
    outside = [
        p
        for p in sources(ROOT / "functions", ROOT / "layers", ROOT / "infra")
        if ".venv" not in p.parts
    ]
    outside.append(ROOT / "app.py")
    assert [p for p in outside if "tests" in imported_roots(p)] == []


@pytest.mark.parametrize("package", SERVICES)
def test_every_storing_service_folder_reads_the_same(package):
    files = {p.name for p in (FUNCTIONS / package).glob("*.py")}
    assert {
        "routes.py",
        "service.py",
        "rules.py",
        "repository.py",
        "wiring.py",
        "lambda_app.py",
    } <= files


def test_the_common_layer_never_imports_a_service():
    for path in sources(COMMON):
        assert not imported_roots(path) & set(PACKAGES), path


@pytest.mark.parametrize("path", sorted(FUNCTIONS.glob("*/model.py")), ids=lambda p: p.parent.name)
def test_a_functions_model_holds_a_table_of_its_own(path):
    """A model that is a layer contract is imported from the layer, by its owner too: a
    module that only renames the layer's (as auth, orders, users and webhooks had) is a
    second name for one fact."""
    tree = ast.parse(path.read_text())
    assert any(isinstance(node, ast.ClassDef) for node in tree.body), path
