"""docs/fidelity.md against what the experiment really runs.

Every row of the fidelity table names what to check (``config: kind path``) and its docqa
value. The check starts from the effective config `docqa config show --configfile ...` prints
for the paper config (its output, parsed: the files merged as Snakemake merges them, checked,
YAML merges written out and every entry's options at their declared defaults), then follows
the setting into the object the run builds from it: methods and retrievers through their
registries (``create_method``, ``create_retriever``; a path reads the built object's
attributes, e.g. a method's derived ``settings``), a model entry through its backend's option
spec (what ``create_backend`` validates, without loading weights), a metric through
``resolve_options``, SlideAgent's knowledge build through ``KnowledgeSettings`` (what the
knowledge stage constructs), and a run's per-image pixel budget (``pixels METHOD@MODEL``)
through the method's request budget, else the model's. A config or code default that drifts
from the table fails here; so does a row without a reason where docqa differs from the paper.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
from functools import cache
from typing import Any

import pytest
import yaml
from helpers.experiments import BASES, CONFIGS, configfiles
from helpers.workflow import ROOT

from docqa.backends import BACKENDS
from docqa.backends.request import Generation
from docqa.cli import main
from docqa.methods import create_method
from docqa.methods.slideagent.build import KnowledgeSettings
from docqa.metrics import resolve_options
from docqa.retrievers import create_retriever
from docqa.workflow.config_check import experiment_grid

TABLE = ROOT / "docs" / "fidelity.md"
HEADER = ["Setting", "Paper", "Where stated", "Check", "docqa", "Same?"]
CHECK = re.compile(r"^`(?P<config>[\w.]+): (?P<kind>\w+) (?P<path>[^`]+)`$")
KINDS = ("config", "method", "retriever", "model", "metric", "dataset", "knowledge", "pixels")
#: configs that are not a paper's comparison: docqa's own quantization study, and the CPU-sized
#: copy of DocPilot's training recipe (docpilot_training.yaml is the paper's, and is tabled)
NOT_PAPERS = {"quantization.yaml", "docpilot_training_cpu.yaml"}


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


@cache
def shown(config_name: str) -> dict[str, Any]:
    """What ``docqa config show --configfile <the config's files>`` prints, parsed."""
    out, err = io.StringIO(), io.StringIO()
    argv = ["config", "show", "--configfile", *configfiles(f"{config_name}.yaml")]
    with contextlib.chdir(ROOT), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(argv)
    assert status == 0, f"docqa {' '.join(argv)} failed: {err.getvalue()}"
    return yaml.safe_load(out.getvalue())


def _model_settings(entry: dict[str, Any]) -> Any:
    """A model entry as its backend reads it: the validated option spec ``create_backend``
    builds the backend with (without loading weights)."""
    spec = BACKENDS.options(entry["backend"])
    return spec.model_validate({k: v for k, v in entry.items() if k not in spec.entry_keys})


def _request_pixels(method: Any) -> int | None:
    """The pixel budget a method's requests carry (``Generation.max_pixels``): MDocAgent's
    agents send ``generation``, SlideAgent's calls one of its ``generation`` by role (all must
    agree), the reading baselines' ``ask`` sends ``image_max_pixels``."""
    generation = getattr(method, "generation", None)
    if isinstance(generation, Generation):
        return generation.max_pixels
    if isinstance(generation, dict):
        budgets = {role.max_pixels for role in generation.values()}
        assert len(budgets) == 1, f"{type(method).__name__}: its roles' pixel budgets {budgets}"
        return budgets.pop()
    return method.options.image_max_pixels


def _pixels(config: dict[str, Any], run: str) -> int | None:
    """Each page image's pixel budget on run ``METHOD@MODEL``: the request's own, else the
    model entry's (``TransformersVLM._budget``, ``OpenAICompatible._complete``)."""
    method_name, _, model_name = run.partition("@")
    requested = _request_pixels(create_method(config["methods"][method_name]))
    if requested is not None:
        return requested
    return _model_settings(config["models"][model_name]).max_pixels


def _step(value: Any, key: str) -> Any:
    if isinstance(value, dict):
        return value[key]
    if isinstance(value, (list, tuple)):
        return value[int(key)]
    return getattr(value, key)


def built(config_name: str, kind: str, path: str) -> Any:
    """The value a check names, read from what the run builds out of the shown config."""
    config = shown(config_name)
    if kind == "pixels":
        return _pixels(config, path)
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
        value = create_retriever(config["retrievers"][name])
    elif kind == "model":
        entry = config["models"][name]
        settings = _model_settings(entry)
        value = settings if rest[0] in type(settings).model_fields else entry
    elif kind == "metric":
        value = resolve_options(name, config["metrics"].get(name, {}))
    elif kind == "dataset":
        value = config["datasets"][name]
    elif kind == "knowledge":
        value = KnowledgeSettings(**config.get("knowledge", {}))
        rest = [name, *rest]
    else:
        raise ValueError(f"check kind {kind!r} is not one of {KINDS}")
    for key in rest:
        value = _step(value, key)
    return value


def _plain(value: Any) -> Any:
    if isinstance(value, (tuple, list)):
        return [_plain(v) for v in value]
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    return value


def _method_rows() -> set[tuple[str, str]]:
    return {
        (m["config"], m["path"].split(".")[0].strip("[]"))
        for row in rows()
        if (m := CHECK.match(row["Check"])) and m["kind"] == "method"
    }


def test_the_table_has_rows_for_every_paper_config() -> None:
    assert len(rows()) >= 40
    checked = {CHECK.match(row["Check"])["config"] for row in rows() if CHECK.match(row["Check"])}
    papers = {name.removesuffix(".yaml") for name in CONFIGS if name not in NOT_PAPERS}
    assert papers <= checked, papers - checked


def test_every_method_of_a_paper_grid_has_a_row() -> None:
    """A method added to a paper config without a fidelity row fails here."""
    named = _method_rows()
    for name in CONFIGS:
        if name in NOT_PAPERS:
            continue
        stem = name.removesuffix(".yaml")
        stems = [stem, *(base.removesuffix(".yaml") for base in BASES.get(name, []))]
        for _, method, _ in experiment_grid(shown(stem)):
            assert any((s, method) in named for s in stems), (
                f"{name}: method {method} has no fidelity row"
            )


@pytest.mark.parametrize("row", rows(), ids=lambda row: f"line{row['line']}")
def test_row(row: dict[str, str]) -> None:
    where = f"docs/fidelity.md line {row['line']} ({row['Setting']})"
    same = row["Same?"]
    assert row["Paper"], f"{where}: the paper's value is required"
    assert row["Where stated"], f"{where}: where the paper states it is required"
    assert same == "same" or re.match(r"^(same|differs|pending|not run): \S", same), (
        f"{where}: 'Same?' is 'same' (or 'same: <note>'), 'differs: <reason>', "
        f"'pending: <reason>' or 'not run: <reason>', not {same!r}"
    )
    if row["Check"] == "—":
        tests = re.findall(r"tests/[\w/]+\.py", same)
        assert same.startswith(("pending", "not run")) or tests, (
            f"{where}: a row without a check is pending or not run, or names the test file "
            "that asserts its fixed-in-code setting"
        )
        for test in tests:
            assert (ROOT / test).is_file(), f"{where}: {test} does not exist"
        return
    match = CHECK.match(row["Check"])
    assert match, f"{where}: check {row['Check']!r} is not `config: kind path`"
    assert match["kind"] in KINDS, f"{where}: kind {match['kind']!r}"
    expected = yaml.safe_load(row["docqa"].strip("`"))
    actual = _plain(built(match["config"], match["kind"], match["path"]))
    assert actual == expected, f"{where}: the run builds {actual!r}, the table says {expected!r}"
