"""The stock moves' contract (common.stock.moves) is the one place their words are written: the
orders, the inventory and the stock repair read the moves, the reservation states and
the refusals there, never as strings of their own (a misnamed or a second definition is
how they drift apart)."""

import ast
from pathlib import Path

from common.stock import moves as stock

ROOT = Path(__file__).resolve().parents[2]
CONTRACT = ROOT / "layers" / "common" / "common" / "stock" / "moves.py"
WORDS = {*stock.MOVES, stock.HELD, stock.HANDED_OVER, stock.RELEASED, stock.NOT_HELD, stock.CHANGED}


def strings(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
    }


def test_the_stock_words_are_written_in_the_contract_alone():
    code = [
        path
        for folder in ("functions", "layers")
        for path in sorted((ROOT / folder).rglob("*.py"))
        if "python" not in path.relative_to(ROOT).parts
    ]
    assert CONTRACT in code
    found = {
        f"{path.relative_to(ROOT)}: {sorted(strings(path) & WORDS)}"
        for path in code
        if path != CONTRACT and strings(path) & WORDS
    }
    assert found == set()


def test_every_move_has_its_states_and_each_undoing_move_is_a_move():
    assert set(stock.FROM) == set(stock.TO) == set(stock.MOVES)
    states = {stock.HELD, stock.HANDED_OVER, stock.RELEASED}
    assert set(stock.TO.values()) <= states
    assert {s for starts in stock.FROM.values() for s in starts} <= states | {None}
    assert set(stock.UNDOING) | set(stock.UNDOING.values()) <= set(stock.MOVES)
    # an undoing move leaves the units where the move it undoes found them
    for move, undoing in stock.UNDOING.items():
        assert stock.TO[undoing] in stock.FROM[move]
