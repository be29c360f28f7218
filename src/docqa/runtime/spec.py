"""The one declaration of an implementation's options: a small typed spec next to its code.

Every registered method, retriever, backend, metric and dataset adapter declares its options
once, as a subclass of :class:`Options` (a pydantic model: each field's type, default, bounds
and a one-line help), and registers it with its name
(``@METHODS.register("text_rag", options=TextRAGOptions)``). Everything else reads that
declaration: the constructor (``self.options``), the config check that Snakemake runs before
the DAG is built (:func:`check_entry`, with "did you mean" hints), ``docqa options KIND NAME``
and the option tables of docs/configuration.md (:func:`describe`).

A field that names another config entry (a retriever, a model) says so with :func:`refers_to`,
so the config check and the workflow find references by declaration, not by a naming
convention.

This module imports only pydantic: a spec can be read without importing torch or transformers.
"""

from __future__ import annotations

import difflib
import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

__all__ = [
    "Field",
    "OptionRow",
    "Options",
    "check_entry",
    "describe",
    "refers_to",
    "unknown_name",
]

#: the key in a field's ``json_schema_extra`` that names the config section it refers to
REFERS_TO = "refers_to"


class Options(BaseModel):
    """Base of every implementation's option spec: unknown keys are refused, values are not
    coerced (``"3"`` is not a number, ``true`` is not 1), and a spec is immutable once built."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    #: keys of the config entry that select the implementation or belong to the entry itself
    #: rather than to the implementation (``type``, ``backend``…); never checked as options
    entry_keys: ClassVar[tuple[str, ...]] = ()

    @classmethod
    def references(cls, values: Mapping[str, Any]) -> list[tuple[str, str, str]]:
        """(option, section, name) for each option in ``values`` that names another config
        entry (a field declared with :func:`refers_to`) and is set."""
        found = []
        for key, field in cls.model_fields.items():
            extra = field.json_schema_extra
            section = extra.get(REFERS_TO) if isinstance(extra, dict) else None
            value = values.get(key, field.default)
            if section and isinstance(value, str) and value:
                found.append((key, str(section), value))
        return found


def refers_to(section: str, default: Any, description: str) -> Any:
    """A field whose value names an entry of config section ``section`` (``retrievers``,
    ``models``); the config check requires that entry to exist."""
    return Field(default, description=description, json_schema_extra={REFERS_TO: section})


def check_entry(
    spec: type[Options], values: Mapping[str, Any], where: str, owner: str
) -> list[str]:
    """The problems of config entry ``values`` against ``spec``, one message each, naming
    ``where`` (``methods.text_rag_top4``) and the key; ``owner`` says whose options they are
    (``method type text_rag``)."""
    options = {key: value for key, value in values.items() if key not in spec.entry_keys}
    try:
        spec.model_validate(options)
    except ValidationError as error:
        return [_message(problem, spec, where, owner) for problem in error.errors()]
    return []


def _message(problem: Any, spec: type[Options], where: str, owner: str) -> str:
    key = ".".join(str(part) for part in problem["loc"])
    place = f"{where}.{key}" if key else where  # a rule over several options has no key
    if problem["type"] == "value_error":  # a validator's own message, already worded
        return f"{place}: {problem['ctx']['error']}"
    if not key:
        return f"{where}: {_problem(problem)}"
    if problem["type"] == "extra_forbidden":
        allowed = sorted(spec.model_fields)
        hint = difflib.get_close_matches(key, allowed, n=1)
        guess = f"did you mean {hint[0]!r}? " if hint else ""
        return (
            f"{where}.{key}: {owner} takes no option {key!r}; {guess}"
            f"its options: {', '.join(allowed) or 'none'} (docqa options shows each)"
        )
    return f"{place}: {_problem(problem)} (got {problem['input']!r})"


#: pydantic error type → how a config message says it (bounds as a user writes them)
_PHRASES = {
    "greater_than_equal": "must be at least {ge}",
    "greater_than": "must be greater than {gt}",
    "less_than_equal": "must be at most {le}",
    "less_than": "must be less than {lt}",
    "literal_error": "must be one of {expected}",
}


def _problem(problem: Any) -> str:
    """What is wrong with a value: a bound or a choice as the config reads it, otherwise
    pydantic's words."""
    phrase = _PHRASES.get(problem["type"])
    context = {key: f"{value:g}" if isinstance(value, float) else value
               for key, value in (problem.get("ctx") or {}).items()}  # fmt: skip
    if phrase:
        return phrase.format(**context)
    return str(problem["msg"]).lower()


def unknown_name(where: str, name: Any, what: str, known: list[str]) -> str:
    """The message for a name that is not registered, with the closest known one."""
    hint = difflib.get_close_matches(str(name), known, n=1)
    guess = f"did you mean {hint[0]!r}? " if hint else ""
    return f"{where}: {name!r} is not a registered {what}; {guess}known: {', '.join(sorted(known))}"


@dataclass(frozen=True)
class OptionRow:
    """One option as ``docqa options`` and docs/configuration.md show it."""

    name: str
    type: str
    default: str
    help: str


def describe(spec: type[Options]) -> list[OptionRow]:
    """Every option of ``spec`` in declaration order: its type with its bounds, default and help."""
    rows = []
    for name, field in spec.model_fields.items():
        default = (
            "required"
            if field.is_required()
            else _show(field.get_default(call_default_factory=True))
        )
        kind = " ".join(filter(None, (_type_name(field.annotation), _bounds(field.metadata))))
        rows.append(OptionRow(name, kind, default, field.description or ""))
    return rows


#: annotated-types constraint → how a config reader writes it
_BOUNDS = {"ge": ">=", "gt": ">", "le": "<=", "lt": "<", "min_length": "length >=",
           "max_length": "length <="}  # fmt: skip


def _bounds(metadata: list[Any]) -> str:
    """A field's bounds as ``>= 1``, ``> 0, <= 4``; empty when it has none."""
    found = []
    for constraint in metadata:
        for attribute, sign in _BOUNDS.items():
            value = getattr(constraint, attribute, None)
            if value is not None:
                found.append(f"{sign} {value:g}" if isinstance(value, float) else f"{sign} {value}")
    return ", ".join(found)


def _show(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, str):
        return repr(value) if value else '""'
    return str(value)


def _type_name(annotation: Any) -> str:
    """``int``, ``str or null``, ``'grid' or 'pages'``, ``list[str]``: a type as a user reads
    it in a config."""
    if annotation is type(None):
        return "null"
    args = typing.get_args(annotation)
    origin = typing.get_origin(annotation)
    if origin is typing.Literal:
        return " or ".join(repr(arg) for arg in args)
    if origin in (typing.Union, types.UnionType):
        return " or ".join(_type_name(arg) for arg in args)
    if origin is typing.Annotated:
        return _type_name(args[0])
    if origin is not None and args:
        name = getattr(origin, "__name__", str(origin))
        return f"{name}[{', '.join(_type_name(arg) for arg in args)}]"
    return getattr(annotation, "__name__", str(annotation))
