"""docs/extending.md's promise, kept for real: in a copy of the repository, a retriever, a method
and a metric are added exactly as the page shows (the new module, one map line, the config
entries) and nothing else; the real `snakemake -n` (with its config check) accepts them and
refuses a misspelt option of the new method with "did you mean", and a real run on the embedded
model writes their index, predictions and scores.

The copy's ``src`` is put first on PYTHONPATH, so Snakemake, the rule scripts and the new
modules all import the copy's docqa; nothing is installed."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from helpers.workflow import ROOT, workflow_copy

pytestmark = pytest.mark.slow

FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.M | re.S)
MAP_LINE = re.compile(r"The map line, in `docqa/(\w+)/__init__\.py`: `([^`]+)`")
#: an entry of a registry's map: `"name": "module",` or `"name",` alone on its line
MAP_ENTRY = re.compile(r'^(?P<indent> +)"\w+"(: "[\w.]+")?,$', re.M)
#: the sections of docs/extending.md this test follows
SECTIONS = {"retrievers": "## A retriever", "methods": "## A method", "metrics": "## A metric"}
MODEL = "gemma3-270m"
NEW_METHODS = ["text_rag_overlap", "first_page"]


def section(doc: str, heading: str) -> str:
    start = doc.index(heading + "\n")
    end = doc.find("\n## ", start + len(heading))
    return doc[start : end if end != -1 else None]


def add_as_the_page_shows(work: Path) -> list[Path]:
    """Each section's module, map line and config entries added to ``work``; the config files
    written, in the page's order."""
    doc = (ROOT / "docs" / "extending.md").read_text(encoding="utf-8")
    configs = []
    for package, heading in SECTIONS.items():
        text = section(doc, heading)
        blocks = FENCE.findall(text)
        (code,) = [body for lang, body in blocks if lang == "python"]
        path = re.fullmatch(r"# (src/docqa/\w+/\w+\.py)", code.splitlines()[0])
        assert path, f"{heading}: the example does not start with its path"
        (work / path.group(1)).write_text(code, encoding="utf-8")

        (found,) = MAP_LINE.findall(text)
        assert found[0] == package, f"{heading}: the map line is not in docqa/{package}"
        init = work / "src" / "docqa" / package / "__init__.py"
        source = init.read_text(encoding="utf-8")
        entries = list(MAP_ENTRY.finditer(source, source.index("Registry(")))
        assert entries, f"no map entry found in {init}"
        # the map's entries are the most indented (the registry's kind is a string too)
        entry = max(entries, key=lambda match: (len(match.group("indent")), -match.start()))
        line = entry.group("indent") + found[1] + "\n"
        assert MAP_ENTRY.fullmatch(line.rstrip("\n")), f"{heading}: not a map line: {found[1]!r}"
        init.write_text(source[: entry.start()] + line + source[entry.start() :], "utf-8")

        for number, (_, body) in enumerate(b for b in blocks if b[0] == "yaml"):
            config = work / "config" / f"extending_{package}_{number}.yaml"
            config.write_text(body, encoding="utf-8")
            configs.append(config)
    return configs


def snakemake(work: Path, configs: list[Path], *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(work / "src")}
    return subprocess.run(
        [sys.executable, "-m", "snakemake", "--cores", "2", "--configfile", *map(str, configs),
         *args],
        cwd=work, env=env, capture_output=True, text=True, timeout=1800,
    )  # fmt: skip


@pytest.fixture(scope="module")
def extended(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[Path]]:
    """The copy with the three additions, and its config files: the page's entries, then a
    small grid of the new methods (one deck, four questions)."""
    work = workflow_copy(tmp_path_factory.mktemp("extending"))
    shutil.copytree(ROOT / "src", work / "src", ignore=shutil.ignore_patterns("__pycache__"))
    configs = add_as_the_page_shows(work)
    small = work / "config" / "small.yaml"
    small.write_text(
        yaml.safe_dump(
            {
                "datasets": {"synthslides": {"options": {"decks": 1, "questions_per_deck": 4}}},
                "experiments": [
                    {"datasets": ["synthslides"], "methods": NEW_METHODS, "models": [MODEL]}
                ],
            }
        )
    )
    return work, [*configs, small]


def test_the_dry_run_plans_the_new_entries(extended: tuple[Path, list[Path]]) -> None:
    work, configs = extended
    result = snakemake(work, configs, "-n")
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    for target in (
        "results/index/synthslides/overlap",
        f"results/runs/synthslides/first_page/{MODEL}/predictions.jsonl",
        f"results/scores/synthslides/text_rag_overlap/{MODEL}.json",
    ):
        assert target in result.stdout, target


def test_a_misspelt_option_of_the_new_method_is_refused_with_a_hint(
    extended: tuple[Path, list[Path]],
) -> None:
    work, configs = extended
    typo = work / "config" / "typo.yaml"
    typo.write_text(yaml.safe_dump({"methods": {"first_page": {"pagse": 1}}}))
    result = snakemake(work, [*configs, typo], "-n")
    assert result.returncode != 0
    output = result.stdout + result.stderr
    assert "methods.first_page.pagse" in output
    assert "did you mean 'pages'?" in output


def test_a_real_run_indexes_answers_and_scores_with_the_new_entries(
    extended: tuple[Path, list[Path]],
) -> None:
    work, configs = extended
    result = snakemake(work, configs)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-5000:]
    index = work / "results/index/synthslides/overlap"
    assert list(index.glob("docs/*/words.json")), "the word_overlap index was not built"
    questions = (work / "results/data/synthslides/questions.jsonl").read_text().splitlines()
    for method in NEW_METHODS:
        run = work / f"results/runs/synthslides/{method}/{MODEL}/predictions.jsonl"
        predictions = [json.loads(line) for line in run.read_text().splitlines()]
        assert len(predictions) == len(questions) == 4
        assert all(not p.get("error") for p in predictions), predictions
        score_file = work / f"results/scores/synthslides/{method}/{MODEL}.json"
        scores = json.loads(score_file.read_text())
        assert scores["metric"] == "exact_match"
        assert scores["options"] == {"case_sensitive": False}
        assert all(row["em"] in (0.0, 1.0) for row in scores["per_question"])
    first_page = work / f"results/runs/synthslides/first_page/{MODEL}/predictions.jsonl"
    assert {tuple(json.loads(line)["pages"]) for line in first_page.open()} == {(0,)}
    retrieved = work / f"results/runs/synthslides/text_rag_overlap/{MODEL}/predictions.jsonl"
    steps = [json.loads(line)["trace"][0] for line in retrieved.open()]
    assert {(step["step"], step["retriever"]) for step in steps} == {("retrieve", "overlap")}
