"""moto's update and condition expressions, parsed once per text (emulator.py installs it).

moto parses an item's expressions for every item, twice in a transaction (its request's
checks, then its write), and validates an update on a deep copy of its tree by ten
passes, two walking the whole tree again at every node: 4 ms an item, most of a 40-item
transaction. PynamoDB numbers its placeholders, so items alike send one text. Here an
update's tree is parsed once per text, and its checks of the text alone (one clause of a
kind, no paths overlapping, no key set) pass once per text, names and keys; each item
is still validated and written by moto's own passes on a copy of the tree. A condition
is parsed once per text, names and values. Only what succeeds is kept."""

import functools
import weakref
from collections.abc import Callable
from typing import Any

from moto.dynamodb import models
from moto.dynamodb.comparisons import ConditionExpressionParser
from moto.dynamodb.parsing.ast_nodes import DepthFirstTraverser, Node  # type: ignore[attr-defined]
from moto.dynamodb.parsing.expressions import UpdateExpressionParser  # type: ignore[attr-defined]
from moto.dynamodb.parsing.validators import (
    ActionCountValidator,
    OverlappingPathsValidator,
    UpdateExpressionValidator,
    UpdateHashRangeKeyValidator,
)

_TEXT_ONLY = (ActionCountValidator, OverlappingPathsValidator, UpdateHashRangeKeyValidator)
_NO_STEP = DepthFirstTraverser.pre_processing_of_child
_moto_make, _moto_parse = UpdateExpressionParser.make, ConditionExpressionParser.parse
_passed: "weakref.WeakKeyDictionary[Node, set]" = weakref.WeakKeyDictionary()
_conditions: dict[str, tuple[Any, list, list]] = {}  # emptied when it holds _KEPT
_KEPT = 1024


# isinstance by class, once a class: moto's nodes are ABCs (a Python call each).
_is: Callable[[Any, Any], bool] = functools.cache(lambda kind, kinds: issubclass(kind, kinds))


def _copy(node: Node, parent: Node | None = None) -> Node:
    """What moto's deepcopy of a parsed tree gives: new nodes, the same (immutable) leaves
    (strings, numbers: infra/private_uses.py checks it)."""
    new = object.__new__(type(node))
    new.__dict__.update(node.__dict__, parent=parent)
    if node.children is not None:
        new.children = [_copy(c, new) if _is(type(c), Node) else c for c in node.children]
    return new


def _traverse(processor: Any, steps: dict, node: Any, child_id: int = -1) -> Any:
    """DepthFirstTraverser.traverse_node_recursively with its process, step for step."""
    if not _is(type(node), Node):
        return node
    parent, before = node.parent, processor.pre_processing_of_child
    for i, child in enumerate(node.children or ()):
        if before.__func__ is not _NO_STEP:
            before(node, i)
        _traverse(processor, steps, child, i)
    for kind, step in steps.items():
        if _is(type(node), kind):
            node = step(node)
            node.parent = parent
            if parent:
                parent.children[child_id] = node
            break
    return node


class _ValidatedOnCopy(UpdateExpressionValidator):
    def __init__(
        self, expression: Node, expression_attribute_names, expression_attribute_values, item, table
    ):  # Validator.__init__'s, but on our copy (moto's make now shares the tree)
        self.expression_attribute_names = expression_attribute_names
        self.expression_attribute_values = expression_attribute_values
        self.item, self.table = item, table
        self._checks = _passed.setdefault(expression, set())
        self._key = (repr(expression_attribute_names), tuple(table.table_key_attrs))
        self.processors = self.get_ast_processors()
        self.node_to_validate = _copy(expression)

    def get_ast_processors(self) -> list:
        processors = super().get_ast_processors()
        if self._key in self._checks:
            return [p for p in processors if not isinstance(p, _TEXT_ONLY)]
        return processors

    def validate(self) -> Node:
        node = self.node_to_validate
        for processor in self.processors:
            node = _traverse(processor, processor._processing_map(), node)
        self._checks.add(self._key)
        return node


def _parse_condition(self: ConditionExpressionParser) -> Any:
    """ConditionExpressionParser.parse, kept by text, names and values with the names and
    values it found (moto's request checks read them)."""
    if not self.condition_expression:
        return _moto_parse(self)
    found = (self.expr_attr_names_found, self.expr_attr_values_found)
    key = repr((self.condition_expression, self.expression_attribute_names))
    key += repr(self.expression_attribute_values)
    if key not in _conditions:
        if len(_conditions) >= _KEPT:
            _conditions.clear()
        _conditions[key] = (_moto_parse(self), list(found[0]), list(found[1]))
        return _conditions[key][0]
    op, *seen = _conditions[key]
    for into, what in zip(found, seen, strict=True):
        into.extend(what)
    return op


def install() -> None:
    parse = functools.lru_cache(maxsize=_KEPT)(_moto_make)
    UpdateExpressionParser.make = staticmethod(parse)
    models.UpdateExpressionValidator = _ValidatedOnCopy  # type: ignore[misc]
    ConditionExpressionParser.parse = _parse_condition  # type: ignore[method-assign]
