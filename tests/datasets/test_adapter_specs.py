"""Every registered dataset adapter declares its options once, as a spec registered with its
name; the adapter receives the validated spec, and the config check reads the same one."""

from __future__ import annotations

import pytest
from helpers.experiments import CONFIGS, merged
from helpers.workflow import default_config

from docqa.datasets import DATASETS, resolve_options
from docqa.datasets.catalogue import prepare_params
from docqa.datasets.convert import ConvertedOptions
from docqa.runtime.spec import describe

#: adapters that convert no download, and so do not take the converted datasets' options
OWN_FILES = {"synthslides", "local"}


@pytest.mark.parametrize("name", DATASETS.names())
def test_every_option_has_a_line_of_help(name: str) -> None:
    rows = describe(DATASETS.options(name))
    assert rows, f"adapter {name} registered without an option spec"
    for row in rows:
        assert row.help, f"adapter {name}: option {row.name} has no description"


@pytest.mark.parametrize("name", sorted(set(DATASETS.names()) - OWN_FILES))
def test_a_converted_dataset_takes_the_common_options(name: str) -> None:
    spec = DATASETS.options(name)
    assert issubclass(spec, ConvertedOptions)
    resolved = resolve_options(name, {"root": "r", "max_pages": 3})
    assert (resolved.root, resolved.max_pages, resolved.missing_documents) == ("r", 3, "fail")


@pytest.mark.parametrize("name", DATASETS.names())
def test_a_misspelt_option_is_named_with_the_one_meant(name: str) -> None:
    option = next(iter(DATASETS.options(name).model_fields))
    with pytest.raises(ValueError, match=rf"options\.{option}s: adapter {name} .*'{option}'"):
        resolve_options(name, {f"{option}s": 1})


@pytest.mark.parametrize("config", ["config.yaml", *CONFIGS])
def test_what_the_data_rule_passes_for_each_shipped_dataset_is_valid(config: str) -> None:
    merged_config = default_config("datasets") if config == "config.yaml" else merged(config)
    datasets = merged_config["datasets"]
    for name in datasets:
        params = prepare_params(datasets, name)
        resolve_options(params["adapter"], params["options"])
