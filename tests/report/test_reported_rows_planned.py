"""Every row the papers report is planned: for each paper table of
``config/reported_numbers.yaml`` (a key of its ``sources:``), the experiment config whose report
table ``reproduces`` it plans, in a real ``snakemake -n``, a job for each reported number's run,
and the report table shows that run; every row a report table names is planned too.

One dry run per config, shared by the tests (module-scoped cache)."""

from __future__ import annotations

import re

import pytest
import yaml
from helpers.experiments import CONFIGS, configfiles, merged
from helpers.workflow import ROOT, snakemake, workflow_copy

from docqa.report.paper_tables import TableSpec
from docqa.report.reported import AVERAGE
from docqa.workflow.config_check import experiment_grid

REPORTED = yaml.safe_load((ROOT / "config" / "reported_numbers.yaml").read_text())
SOURCES = sorted(REPORTED["sources"])
PREDICTIONS = re.compile(r"results/runs/([^/\s]+)/([^/\s]+)/([^/\s]+)/predictions\.jsonl")
Run = tuple[str, str, str]


def reproducing_tables() -> dict[str, list[tuple[str, dict]]]:
    """source key → the (config, report table entry) pairs that reproduce it."""
    found: dict[str, list[tuple[str, dict]]] = {}
    for name in CONFIGS:
        config = yaml.safe_load((ROOT / "config" / "experiments" / name).read_text()) or {}
        for table in config.get("report", {}).get("tables", []):
            if "reproduces" in table:
                found.setdefault(table["reproduces"], []).append((name, table))
    return found


TABLES = reproducing_tables()
_PLANS: dict[str, set[Run]] = {}


@pytest.fixture(scope="module")
def planned(tmp_path_factory: pytest.TempPathFactory):
    """config name → the (dataset, method, model) runs its dry run plans predictions for."""

    def plan(name: str) -> set[Run]:
        if name not in _PLANS:
            work = workflow_copy(tmp_path_factory.mktemp(name.removesuffix(".yaml")))
            result = snakemake(work, "-n", "--configfile", *configfiles(name))
            assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
            _PLANS[name] = set(PREDICTIONS.findall(result.stdout))
        return _PLANS[name]

    return plan


def reported_runs(source: str) -> set[Run]:
    return {
        (str(entry["dataset"]), str(entry["method"]), str(entry["model"]))
        for entry in REPORTED["numbers"]
        if entry["source"] == source
    }


def test_every_reproduces_names_a_listed_source() -> None:
    assert set(TABLES) <= set(SOURCES), set(TABLES) - set(SOURCES)


@pytest.mark.parametrize("source", SOURCES)
def test_each_paper_table_is_reproduced_by_one_report_table(source: str) -> None:
    tables = TABLES.get(source, [])
    assert len(tables) == 1, (
        f"config/reported_numbers.yaml source {source!r} is reproduced by {len(tables)} report "
        "tables; name it as `reproduces:` of exactly one report table in config/experiments/"
    )


@pytest.mark.parametrize("source", sorted(TABLES))
def test_every_reported_row_is_planned_and_shown(source: str, planned) -> None:
    (name, entry), *_ = TABLES[source]
    spec = TableSpec.from_config(entry)
    runs = planned(name)
    datasets = set(spec.datasets) or {dataset for dataset, _, _ in runs}
    for dataset, method, model in sorted(reported_runs(source)):
        wanted = datasets if dataset == AVERAGE else {dataset}
        for each in sorted(wanted):
            assert (each, method, model) in runs, (
                f"{source}: the paper reports {each} / {method} / {model}, which "
                f"`snakemake -n` on {name} does not plan"
            )
        assert dataset in datasets | {AVERAGE}, f"{source}: table {spec.name} has no {dataset}"
        assert spec.shows(method, model), (
            f"{source}: table {spec.name} of {name} does not show {method} / {model}"
        )


@pytest.mark.parametrize("source", sorted(TABLES))
def test_every_row_a_table_names_is_planned(source: str, planned) -> None:
    (name, entry), *_ = TABLES[source]
    spec = TableSpec.from_config(entry)
    runs = planned(name)
    datasets = spec.datasets or tuple(sorted({d for d, _, _ in experiment_grid(merged(name))}))
    for methods, models in spec.rows:
        for method in methods:
            for model in models:
                for dataset in datasets:
                    assert (dataset, method, model) in runs, (
                        f"{name}: table {spec.name} names {method} / {model}, which is not "
                        f"planned on {dataset}"
                    )
