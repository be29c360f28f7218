"""The options each registered metric and dataset adapter takes, declared without
importing them, so that Snakemake can check every config entry when it parses the workflow
(``snakemake -n`` included) rather than inside a job an hour later.

Each option has a value rule: ``int>=N``, ``number>0``, ``number>=0``, ``str``, ``bool``,
``list``, ``str|null``, or ``any``. tests/test_config_options.py checks these tables against
the registered implementations (their constructor's parameters, their metric defaults, their
adapter's read and write functions), so a new option or implementation that is not declared
here fails a test, not a user's run. Retrievers and models are declared per type in
config/config.schema.yaml; ``schema_options`` reads those declarations for the same messages.
"""

from __future__ import annotations

from typing import Any

#: metric name → option → value rule (the registered Metric's ``defaults``)
METRIC_OPTIONS: dict[str, dict[str, str]] = {
    "judge": {"model": "str|null", "prompt": "str", "unjudged": "str"},
    "docbench_judge": {"model": "str|null", "prompt": "str", "unjudged": "str"},
    "finragbench_v_judge": {"model": "str|null", "prompt": "str", "unjudged": "str"},
    "longdocurl": {"variant": "str", "parse": "bool", "model": "str|null"},
    "madqa": {"accuracy": "str", "model": "str|null"},
    "mmlongbench_doc": {"variant": "str", "model": "str|null"},
    "slideagent": {"overall": "str", "rel_tol": "number>=0"},
    "slidevqa": {"normalization": "str"},
}

#: the options every adapter of a downloaded dataset takes (docqa.datasets.convert)
CONVERTED = {
    "root": "str",
    "subdir": "str",
    "max_questions": "int>=1",
    "max_pages": "int>=1",
    "missing_documents": "str",
}

#: dataset ``adapter`` → option → value rule
DATASET_OPTIONS: dict[str, dict[str, str]] = {
    "synthslides": {
        "seed": "int>=0",
        "decks": "int>=0",
        "slides_per_deck": "list",
        "questions_per_deck": "int>=1",
        "corrupt_decks": "int>=0",
    },
    "docbench": dict(CONVERTED),
    "local": {
        "root": "str",
        "questions": "str",
        "page_base": "int>=0",
        "max_questions": "int>=1",
        "max_pages": "int>=1",
    },
    "finragbench_v": {**CONVERTED, "language": "str"},
    "longdocurl": dict(CONVERTED),
    "madqa": {**CONVERTED, "split": "str", "documents": "str"},
    "mdocagent": {**CONVERTED, "documents_dir": "str"},
    "mmlongbench_doc": dict(CONVERTED),
    "realmmrag": {**CONVERTED, "query": "str", "split": "str"},
    "slidevqa": {**CONVERTED, "split": "str"},
}


def value_error(rule: str, value: Any) -> str | None:
    """Why ``value`` breaks ``rule``, or None when it keeps it."""
    if rule == "any":
        return None
    if rule == "str|null":
        return None if value is None or isinstance(value, str) else "must be a name or null"
    if rule == "str":
        return None if isinstance(value, str) else "must be a string"
    if rule == "bool":
        return None if isinstance(value, bool) else "must be true or false"
    if rule == "list":
        return None if isinstance(value, list) else "must be a list"
    kind, _, bound = rule.partition(">=") if ">=" in rule else rule.partition(">")
    strict = ">=" not in rule
    number = isinstance(value, (int, float)) and not isinstance(value, bool)
    if kind == "int" and not (number and float(value).is_integer()):
        return "must be a whole number"
    if not number:
        return "must be a number"
    limit = float(bound)
    if value <= limit if strict else value < limit:
        return f"must be {'greater than' if strict else 'at least'} {bound}"
    return None


def schema_options(schema: dict[str, Any], section: str, selector: str) -> dict[str, set[str]]:
    """Type → the option names config.schema.yaml declares for entries of ``section`` whose
    ``selector`` key (``type``, ``backend``) has that value, from its closed ``if``/``then``
    blocks."""
    declared: dict[str, set[str]] = {}
    entries = schema["properties"][section]["additionalProperties"]
    for block in entries.get("allOf", []):
        then = block.get("then", {})
        if then.get("additionalProperties") is not False:
            continue
        condition = block["if"]["properties"][selector]
        kinds = condition.get("enum") or [condition.get("const")]
        for kind in kinds:
            declared.setdefault(kind, set()).update(then.get("properties", {}))
    return declared
