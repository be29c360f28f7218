"""Every registered metric declares its options once, as a spec registered with its name: the
score stage, the config check and the score file all read that one declaration."""

from __future__ import annotations

import json

import pytest
from helpers.experiments import CONFIGS, merged
from helpers.workflow import default_config

from docqa.metrics import METRICS, resolve_options
from docqa.runtime.spec import describe


@pytest.mark.parametrize("name", METRICS.names())
def test_every_option_has_a_default_and_a_line_of_help(name: str) -> None:
    rows = describe(METRICS.options(name))
    assert rows, f"metric {name} registered without an option spec"
    for row in rows:
        assert row.help, f"metric {name}: option {row.name} has no description"
        assert row.default != "required", f"metric {name}: option {row.name} has no default"


@pytest.mark.parametrize("name", METRICS.names())
def test_options_written_to_a_score_file_read_back_the_same(name: str) -> None:
    resolved = resolve_options(name, {})
    written = json.loads(json.dumps(resolved.model_dump()))
    assert list(written) == list(METRICS.options(name).model_fields)
    assert resolve_options(name, written) == resolved


@pytest.mark.parametrize("name", METRICS.names())
def test_a_misspelt_option_is_named_with_the_one_meant(name: str) -> None:
    option = next(iter(METRICS.options(name).model_fields))
    with pytest.raises(ValueError, match=rf"metrics\.{name}\.{option}s: .*did you mean '{option}'"):
        resolve_options(name, {f"{option}s": None})


@pytest.mark.parametrize(
    "name", [name for name in METRICS.names() if "model" in METRICS.options(name).model_fields]
)
def test_a_model_option_refers_to_a_configured_model(name: str) -> None:
    spec = METRICS.options(name)
    assert spec.references({"model": "judge-llm"}) == [("model", "models", "judge-llm")]


@pytest.mark.parametrize("config", ["config.yaml", *CONFIGS])
def test_every_metric_entry_of_the_shipped_configs_is_valid(config: str) -> None:
    merged_config = default_config("datasets") if config == "config.yaml" else merged(config)
    for name, entry in merged_config["metrics"].items():
        resolve_options(name, entry)
