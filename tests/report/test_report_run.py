"""The report stage on a small real run: every planned table and figure, the HTML report and a
trace page in headless Chromium, and a figure setting that reruns only the report job."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml
from helpers.headless_chromium import check_page
from helpers.small_run import MODEL, build_small_run
from helpers.workflow import snakemake

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def work(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_small_run(tmp_path_factory.mktemp("report_run"))


def test_planned_tables_and_figures_exist_and_absent_inputs_leave_no_files(work: Path) -> None:
    results = work / "results"
    for ext in ("csv", "md", "tex", "html"):
        assert (results / f"tables/main.{ext}").stat().st_size > 0
    assert r"\toprule" in (results / "tables/main.tex").read_text()
    figures = {path.name for path in (results / "figures").iterdir()}
    assert figures == {
        f"{name}.{ext}"
        for ext in ("png", "pdf")
        for name in (
            "score_by_kind",
            "retrieval_recall",
            "score_vs_cost",
            "score_by_top_k",
            "recall_by_round",
            "calls_per_action",
        )
    }  # no bf16/nf4 pair: no quantization figure
    main = (results / "tables/main.md").read_text()
    assert f"| docpilot | {MODEL} |" in main
    assert "commit" in main


def test_report_and_a_trace_page_open_in_chromium_without_errors(work: Path) -> None:
    report = work / "results/report.html"
    checked = check_page(report)
    assert checked.images_checked >= 6 + 1, checked  # six figures (and Snakemake's logo)
    assert not checked.broken_images, checked
    assert not checked.console_errors, checked
    links = re.findall(r'href=\\?"(traces/[^"\\]+)', report.read_text())
    assert len(links) == 4, links
    index = work / "results" / links[0]
    page = next(p for p in sorted(index.parent.glob("*.html")) if p.name != "index.html")
    checked = check_page(page)
    assert checked.images_shown >= 1, checked
    assert not checked.broken_images, checked
    assert not checked.console_errors, checked


def test_a_figure_setting_change_reruns_only_the_report(work: Path) -> None:
    path = work / "config/config.yaml"
    original = path.read_text()
    config = yaml.safe_load(original)
    config["report"]["figures"]["dpi"] = 150
    path.write_text(yaml.safe_dump(config, sort_keys=False))
    try:
        planned = snakemake(work, "-n")
    finally:
        path.write_text(original)
    assert planned.returncode == 0, planned.stderr[-3000:]
    stats = planned.stdout.split("Job stats:")[1].split("total")[0]
    assert dict(re.findall(r"^(\w+)\s+(\d+)\s*$", stats, re.M)) == {"report": "1", "all": "1"}
    assert "params have changed since last execution" in planned.stdout + planned.stderr
