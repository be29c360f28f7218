"""What Python's ``eval()`` gives for an answer string, without running any code.

MMLongBench-Doc and LongDocURL ``eval()`` list answers ('["a", "b"]') and LongDocURL also
every extracted answer, so a prediction such as ``[2020-2021]`` becomes ``[-1]`` and ``1,234``
becomes the tuple ``(1, 234)``. Scoring faithfully means reproducing that, but docqa never
executes model output. :func:`python_eval` evaluates the expressions that need no code to run:
literals, containers, arithmetic, comparisons, boolean operators, subscripts, f-strings and the
names of Python's builtins (the original turns ``max`` into ``<built-in function max>``).

Everything else raises :class:`EvalError`: syntax errors and undefined names (where ``eval()``
raises too), and calls, attributes, comprehensions and lambdas (where ``eval()`` would run code,
so the original's result could differ from ours: a documented deviation). Results that would
take unbounded time or memory ('9**9**9', "'a' * 10**12") raise instead of hanging.
"""

from __future__ import annotations

import ast
import builtins
import operator
import warnings
from collections.abc import Callable
from typing import Any

MAX_EXPONENT = 10_000
MAX_REPEAT = 1_000_000
MAX_SHIFT = 100_000

_BINARY: dict[type[ast.operator], Callable[[Any, Any], Any]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
    ast.LShift: operator.lshift,
    ast.RShift: operator.rshift,
    ast.BitOr: operator.or_,
    ast.BitXor: operator.xor,
    ast.BitAnd: operator.and_,
    ast.MatMult: operator.matmul,
}
_UNARY: dict[type[ast.unaryop], Callable[[Any], Any]] = {
    ast.UAdd: operator.pos,
    ast.USub: operator.neg,
    ast.Not: operator.not_,
    ast.Invert: operator.invert,
}
_COMPARE: dict[type[ast.cmpop], Callable[[Any, Any], Any]] = {
    ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
    ast.Is: operator.is_,
    ast.IsNot: operator.is_not,
    ast.In: lambda a, b: a in b,
    ast.NotIn: lambda a, b: a not in b,
}


class EvalError(ValueError):
    """``eval()`` of the text raises, or would run code; the message says which and why."""


def python_eval(text: str) -> Any:
    """The value ``eval(text)`` gives, for text that needs no code run (see module docstring)."""
    # eval() skips leading spaces and tabs; ast.parse would call them an indentation error.
    try:
        with warnings.catch_warnings():  # eval() would warn about '5x' too; nobody reads it
            warnings.simplefilter("ignore", SyntaxWarning)
            tree = ast.parse(text.lstrip(" \t"), mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError) as error:
        raise EvalError(f"eval() raises {type(error).__name__}: {error}") from None
    try:
        return _value(tree.body)
    except EvalError:
        raise
    except RecursionError:
        raise EvalError("eval() raises RecursionError: expression nested too deeply") from None
    except Exception as error:  # what the operation itself raises, as eval() would
        raise EvalError(f"eval() raises {type(error).__name__}: {error}") from None


def _value(node: ast.expr) -> Any:
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        items = _items(node.elts)
        return {ast.List: list, ast.Tuple: tuple, ast.Set: set}[type(node)](items)
    if isinstance(node, ast.Dict):
        return _dict(node)
    if isinstance(node, ast.UnaryOp):
        return _UNARY[type(node.op)](_value(node.operand))
    if isinstance(node, ast.BinOp):
        left, right = _value(node.left), _value(node.right)
        _check_size(node.op, left, right)
        return _BINARY[type(node.op)](left, right)
    if isinstance(node, ast.BoolOp):
        return _bool_op(node)
    if isinstance(node, ast.Compare):
        return _compare(node)
    if isinstance(node, ast.IfExp):
        return _value(node.body) if _value(node.test) else _value(node.orelse)
    if isinstance(node, ast.Subscript):
        return _value(node.value)[_value(node.slice)]
    if isinstance(node, ast.Slice):
        parts = (node.lower, node.upper, node.step)
        return slice(*(None if part is None else _value(part) for part in parts))
    if isinstance(node, ast.JoinedStr):
        return "".join(_value(part) for part in node.values)
    if isinstance(node, ast.FormattedValue):
        return _formatted(node)
    if isinstance(node, ast.Name):
        return _builtin(node.id)
    raise EvalError(
        f"eval() would run code here ({type(node).__name__}); docqa does not execute answers"
    )


def _items(nodes: list[ast.expr]) -> list[Any]:
    items: list[Any] = []
    for node in nodes:
        if isinstance(node, ast.Starred):
            items.extend(_value(node.value))
        else:
            items.append(_value(node))
    return items


def _dict(node: ast.Dict) -> dict[Any, Any]:
    result: dict[Any, Any] = {}
    for key, value in zip(node.keys, node.values, strict=True):
        if key is None:  # {**other}
            result.update(_value(value))
        else:
            result[_value(key)] = _value(value)
    return result


def _bool_op(node: ast.BoolOp) -> Any:
    value = _value(node.values[0])
    for operand in node.values[1:]:
        if isinstance(node.op, ast.And) and not value:
            return value
        if isinstance(node.op, ast.Or) and value:
            return value
        value = _value(operand)
    return value


def _compare(node: ast.Compare) -> bool:
    left = _value(node.left)
    for op, comparator in zip(node.ops, node.comparators, strict=True):
        right = _value(comparator)
        if not _COMPARE[type(op)](left, right):
            return False
        left = right
    return True


def _formatted(node: ast.FormattedValue) -> str:
    value = _value(node.value)
    if node.conversion == ord("r"):
        value = repr(value)
    elif node.conversion == ord("s"):
        value = str(value)
    elif node.conversion == ord("a"):
        value = ascii(value)
    spec = "" if node.format_spec is None else _value(node.format_spec)
    return format(value, spec)


def _builtin(name: str) -> Any:
    namespace = vars(builtins)
    if name.startswith("__") or name not in namespace:
        raise EvalError(f"eval() raises NameError: name {name!r} is not defined")
    return namespace[name]


def _check_size(op: ast.operator, left: Any, right: Any) -> None:
    """Refuse results too large to build: the original would hang or run out of memory."""
    numbers = all(isinstance(x, (int, float, complex)) for x in (left, right))
    if isinstance(op, ast.Pow) and numbers and isinstance(right, int) and abs(right) > MAX_EXPONENT:
        if isinstance(left, int) and abs(left) > 1:
            raise EvalError(f"result of {left}**{right} is too large to compute")
    if isinstance(op, ast.LShift) and isinstance(right, int) and right > MAX_SHIFT:
        raise EvalError(f"result of a shift by {right} is too large to compute")
    if isinstance(op, ast.Mult):
        for sequence, count in ((left, right), (right, left)):
            if isinstance(sequence, (str, bytes, list, tuple)) and isinstance(count, int):
                if count * max(len(sequence), 1) > MAX_REPEAT:
                    raise EvalError("result of repeating a sequence is too large to build")
