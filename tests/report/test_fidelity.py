"""docs/fidelity.md against the built experiment: every row of the fidelity table names what to
check (``config: kind path``), and its docqa value must be what the experiment config, merged
as Snakemake merges it, builds: methods and retrievers through their registries, models through
their backend's settings, metrics through their resolved options. A config that drifts from the
table fails here; so does a row without a reason where docqa differs from the paper."""

from __future__ import annotations

import re
from functools import cache
from typing import Any

import pytest
import yaml
from helpers.experiments import BASES, CONFIGS
from helpers.experiments import merged as merged_experiment
from helpers.workflow import ROOT

from docqa.backends import BACKENDS
from docqa.methods import create_method
from docqa.metrics import resolve_options
from docqa.retrievers import create_retriever
from docqa.workflow.config_check import experiment_grid

TABLE = ROOT / "docs" / "fidelity.md"
HEADER = ["Setting", "Paper", "Where stated", "Check", "docqa", "Same?"]
CHECK = re.compile(r"^`(?P<config>[\w.]+): (?P<kind>\w+) (?P<path>[^`]+)`$")
KINDS = ("config", "method", "retriever", "model", "metric", "dataset")
#: configs that are docqa's own studies, not a paper's experiment
# configs that are not a paper's comparison: the quantization study, and DocPilot's training
# recipe (its settings against the paper's: docs/training.md)
NOT_PAPERS = {"quantization.yaml", "docpilot_training.yaml", "docpilot_training_cpu.yaml"}


def _cells(line: str) -> list[str]:
    return [cell.strip() for cell in line.strip().strip("|").split("|")]


@cache
def rows() -> list[dict[str, str]]:
    """Every row of every fidelity table in docs/fidelity.md, with its line number."""
    found, header = [], None
    for number, line in enumerate(TABLE.read_text().splitlines(), start=1):
        if not line.startswith("|"):
            header = None
            continue
        cells = _cells(line)
        if header is None:
            header = cells
            continue
        if set(line) <= set("|-: "):
            continue
        if header == HEADER:
            found.append({"line": str(number), **dict(zip(HEADER, cells, strict=True))})
    return found


def _model_settings(entry: dict[str, Any]) -> Any:
    """A model entry as its backend reads it (its validated option spec, without loading
    weights)."""
    spec = BACKENDS.options(entry["backend"])
    return spec.model_validate({k: v for k, v in entry.items() if k not in spec.entry_keys})


def _step(value: Any, key: str) -> Any:
    if isinstance(value, dict):
        return value[key]
    if isinstance(value, (list, tuple)):
        return value[int(key)]
    return getattr(value, key)


@cache
def merged(config_name: str) -> dict[str, Any]:
    return merged_experiment(f"{config_name}.yaml")


def built(config_name: str, kind: str, path: str) -> Any:
    """The value a check names, read from the built object."""
    config = merged(config_name)
    if path.startswith("["):  # a name with dots: [llama-3.1-8b].hf_id
        name, _, tail = path[1:].partition("]")
        rest = tail.removeprefix(".").split(".") if tail else []
    else:
        name, *rest = path.split(".")
    if kind == "config":
        value: Any = config
        rest = [name, *rest]
    elif kind == "method":
        value = create_method(config["methods"][name])
    elif kind == "retriever":
        value = create_retriever(config["retrievers"][name]).options  # type: ignore[attr-defined]
    elif kind == "model":
        entry = config["models"][name]
        settings = _model_settings(entry)
        key = rest[0]
        value = settings if key in type(settings).model_fields else entry
    elif kind == "metric":
        value = resolve_options(name, config["metrics"].get(name, {}))
    elif kind == "dataset":
        value = config["datasets"][name]
    else:
        raise ValueError(f"check kind {kind!r} is not one of {KINDS}")
    for key in rest:
        value = _step(value, key)
    return value


def _plain(value: Any) -> Any:
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def test_the_table_has_rows_for_every_paper_config() -> None:
    assert len(rows()) >= 40
    checked = {CHECK.match(row["Check"])["config"] for row in rows() if CHECK.match(row["Check"])}
    papers = {name.removesuffix(".yaml") for name in CONFIGS if name not in NOT_PAPERS}
    assert papers <= checked, papers - checked


def test_every_method_of_a_paper_grid_has_a_row() -> None:
    """A method added to a paper config without a fidelity row fails here."""
    named = {
        (m["config"], m["path"].split(".")[0].strip("[]"))
        for row in rows()
        if (m := CHECK.match(row["Check"])) and m["kind"] == "method"
    }
    for name in CONFIGS:
        if name in NOT_PAPERS:
            continue
        stem = name.removesuffix(".yaml")
        stems = [stem, *(base.removesuffix(".yaml") for base in BASES.get(name, []))]
        for _, method, _ in experiment_grid(merged_experiment(name)):
            assert any((s, method) in named for s in stems), (
                f"{name}: method {method} has no fidelity row"
            )


@pytest.mark.parametrize("row", rows(), ids=lambda row: f"line{row['line']}")
def test_row(row: dict[str, str]) -> None:
    where = f"docs/fidelity.md line {row['line']} ({row['Setting']})"
    same = row["Same?"]
    assert row["Paper"], f"{where}: the paper's value is required"
    assert row["Where stated"], f"{where}: where the paper states it is required"
    assert same == "same" or re.match(r"^(same|differs|pending): \S", same), (
        f"{where}: 'Same?' is 'same' (or 'same: <note>'), 'differs: <reason>' or "
        f"'pending: <reason>', not {same!r}"
    )
    if row["Check"] == "—":
        assert same.startswith("pending"), f"{where}: only a pending row may have no check"
        return
    match = CHECK.match(row["Check"])
    assert match, f"{where}: check {row['Check']!r} is not `config: kind path`"
    assert match["kind"] in KINDS, f"{where}: kind {match['kind']!r}"
    expected = yaml.safe_load(row["docqa"].strip("`"))
    actual = _plain(built(match["config"], match["kind"], match["path"]))
    assert actual == expected, f"{where}: the config builds {actual!r}, the table says {expected!r}"
