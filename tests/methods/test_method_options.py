"""Every method type declares its options once, as a spec registered with its name: the spec's
defaults build the method, options that name a retriever or a model say so, and the method
entries of the default config and the paper configs validate against the specs."""

from __future__ import annotations

import pytest
from helpers.experiments import merged
from helpers.workflow import default_config

from docqa.methods import METHODS, create_method
from docqa.methods.base import MethodOptions
from docqa.runtime.spec import REFERS_TO, check_entry, describe

METHODS.load_all()
NAMES = METHODS.names()
PAPER_CONFIGS = ["docpilot.yaml", "mdocagent_main.yaml", "slideagent.yaml"]


@pytest.mark.parametrize("name", NAMES)
def test_every_method_has_a_spec_whose_defaults_build_it(name: str) -> None:
    assert METHODS.has_options(name), f"{name} is registered without options=<its spec>"
    spec = METHODS.options(name)
    assert issubclass(spec, MethodOptions)
    rows = describe(spec)
    assert all(row.help for row in rows), f"{name}: every option needs a description"
    required = [row.name for row in rows if row.default == "required"]
    if required:  # the entry must give them: the error names each
        with pytest.raises(ValueError, match="bad options") as error:
            create_method({"type": name})
        for option in required:
            assert f"{name}.{option}: field required" in str(error.value)
        return
    method = create_method({"type": name})
    assert isinstance(method, METHODS.get(name))
    assert method.options == spec()


@pytest.mark.parametrize("name", NAMES)
def test_options_naming_retrievers_and_models_are_declared_as_references(name: str) -> None:
    """The workflow finds the indexes and models a method needs from options ending in
    ``retriever`` and ``_model``; each is declared with refers_to its section."""
    for option, field in METHODS.options(name).model_fields.items():
        extra = field.json_schema_extra if isinstance(field.json_schema_extra, dict) else {}
        section = extra.get(REFERS_TO)
        if option.endswith("retriever"):
            assert section == "retrievers", f"{name}.{option}"
        elif option.endswith("_model"):
            assert section == "models", f"{name}.{option}"
        else:
            assert section is None, f"{name}.{option} refers to {section}"


def test_a_null_retriever_is_the_methods_default() -> None:
    assert create_method({"type": "image_rag", "retriever": None}).retrievers == ("colpali",)
    assert create_method({"type": "text_rag", "retriever": None}).retrievers == ("bm25",)


def test_a_rule_over_several_options_is_checked_with_the_entry() -> None:
    spec = METHODS.options("slideagent")
    problems = check_entry(
        spec, {"type": "slideagent", "page_ranking": "both"}, "methods.x", "method type slideagent"
    )
    assert problems == [
        "methods.x: page_ranking 'both' needs knowledge_index: a retriever entry such as "
        "{type: bm25} or {type: dense_text, model: <folder>}"
    ]


def entries(config: dict) -> list[tuple[str, dict]]:
    return sorted(config["methods"].items())


@pytest.mark.parametrize(
    "config",
    [default_config(), default_config("methods"), *(merged(name) for name in PAPER_CONFIGS)],
    ids=["config.yaml", "methods.yaml", *PAPER_CONFIGS],
)
def test_the_configs_method_entries_validate_and_build(config: dict) -> None:
    for name, entry in entries(config):
        spec = METHODS.options(entry["type"])
        where = f"methods.{name}"
        assert check_entry(spec, entry, where, f"method type {entry['type']}") == [], where
        options = create_method(entry).options
        for key, value in entry.items():
            if key != "type":
                assert getattr(options, key) == value, f"{where}.{key}"
