"""The options each registered method takes, declared without importing them, so that
Snakemake can check every config entry when it parses the workflow (``snakemake -n`` included)
rather than inside a job an hour later.

Each option has a value rule: ``int>=N``, ``number>0``, ``number>=0``, ``str``, ``bool``,
``list``, ``str|null``, or ``any``. tests/test_config_options.py checks these tables against
the registered implementations (their constructor's parameters), so a new option or
implementation that is not declared here fails a test, not a user's run. Retrievers and
models are declared per type in config/config.schema.yaml; ``schema_options`` reads those
declarations for the same messages.
"""

from __future__ import annotations

from typing import Any

#: how a baseline reads: its prompt style, decoding temperature and per-request pixel budget
_READING = {"prompt": "str", "temperature": "number>=0", "image_max_pixels": "any"}

_TOP_K_METHOD = {
    "retriever": "str|null",
    "top_k": "int>=1",
    "max_chars_per_page": "int>=1",
    "max_new_tokens": "int>=1",
    **_READING,
}

#: method ``type`` → option → value rule (the class's constructor parameters)
METHOD_OPTIONS: dict[str, dict[str, str]] = {
    "docpilot": {
        "max_steps": "int>=1",
        "without": "list",
        "retriever": "str|null",
        "hint_pages": "int>=0",
        "window_pages": "int>=1",
        "snippet_chars": "int>=1",
        "max_pages_per_extract": "int>=1",
        "max_chars_per_page": "int>=1",
        "max_facts": "int>=1",
        "focus_zoom": "number>0",
        "max_focus_crops": "int>=1",
        "crops_dir": "str",
        "solve_cpu_seconds": "number>0",
        "solve_wall_seconds": "number>0",
        "solve_memory_mb": "int>=1",
        "insufficient_answer": "str",
        "max_observation_chars": "int>=1",
        "orchestrator_tokens": "int>=1",
        "role_tokens": "any",
        "max_refused": "any",
        "count_refused": "bool",
    },
    "image_rag": dict(_TOP_K_METHOD),
    "mdocagent": {
        "text_retriever": "str",
        "image_retriever": "str",
        "top_k": "int>=1",
        "text_model": "str|null",
        "vlm_model": "str|null",
        "ablation": "str",
        "summarizer_sees_question": "bool",
        "dedupe_text_pages": "bool",
        "clue_parser": "str",
        "answer_parser": "str",
        "empty_answer": "str",
        "max_new_tokens": "int>=1",
        "max_chars_per_page": "int>=1",
        "image_max_pixels": "any",
        "prompts": "str",
    },
    "oracle_pages": {
        "max_chars_per_page": "int>=1",
        "max_new_tokens": "int>=1",
        "prompt": "str",
        "temperature": "number>=0",
    },
    "slideagent": {
        "retriever": "str",
        "top_k": "int>=1",
        "top_elements": "int>=1",
        "max_subqueries": "int>=1",
        "ablation": "str",
        "setting": "str",
        "single_image": "bool",
        "grids_dir": "str",
        "knowledge_dir": "str|null",
        "max_chars_per_page": "int>=1",
        "answer_tokens": "int>=1",
        "subquery_tokens": "int>=1",
        "classifier_tokens": "int>=1",
        "not_answerable": "bool",
        "page_ranking": "str",
        "knowledge_index": "any",
        "knowledge_index_dir": "str",
    },
    "text_rag": dict(_TOP_K_METHOD),
    "vanilla": {
        "mode": "str",
        "max_pages": "int>=1",
        "max_images": "int>=1",
        "grid_columns": "int>=1",
        "max_pixels": "any",
        "images_dir": "str",
        "max_chars_per_page": "int>=1",
        "max_new_tokens": "int>=1",
        **_READING,
    },
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
