"""One way to the inventory: one protocol for asking another service, one breaker around
the inventory's calls (common.stock.client), the transport chosen at each function's
wiring. Two breakers would count one outage twice, each on its own rules; two protocols
are two ways to get the same call wrong."""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CODE = [
    path
    for folder in ("functions", "layers")
    for path in sorted((ROOT / folder).rglob("*.py"))
    if "python" not in path.relative_to(ROOT).parts
]


def calls_of(path: Path, name: str) -> int:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return sum(
        1
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and (getattr(node.func, "attr", None) == name or getattr(node.func, "id", None) == name)
    )


def protocols_of(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [
        node.name
        for node in tree.body
        if isinstance(node, ast.ClassDef)
        and any(getattr(base, "id", None) == "Protocol" for base in node.bases)
    ]


def test_one_breaker_guards_the_inventory():
    made = {str(p.relative_to(ROOT)): n for p in CODE if (n := calls_of(p, "CircuitBreaker"))}
    assert made == {"layers/common/common/stock/client.py": 1}


def test_another_service_is_asked_through_one_protocol():
    assert protocols_of(ROOT / "layers" / "common" / "common" / "http" / "service_calls.py") == [
        "Routes"
    ]


def test_the_inventorys_transports_are_chosen_at_the_wiring_alone():
    """Who builds a way to another service (an invoke, HTTP, or the same app's routes):
    the functions' wiring and the gateway app, never a use case or a client."""
    ways = ("ByInvoke", "OverHttp", "InProcess", "service")
    built = {str(p.relative_to(ROOT)) for p in CODE if any(calls_of(p, way) for way in ways)}
    assert built <= {str(p.relative_to(ROOT)) for p in CODE if p.name == "wiring.py"} | {
        "layers/common/common/http/service_calls.py"
    }
