"""docqa.workflow.snakefile is the workflow's one door into docqa: Snakemake parses the Snakefile
and rules/*.smk on every call (``snakemake -n`` too), so what they import must stay light, and
the default config must plan the jobs it planned before issue 14's package move
(tests/data/default_jobs.txt)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

from helpers.workflow import ROOT, snakemake, workflow_copy

from docqa.workflow.layout import report_command, results_layout

#: libraries that cost seconds to import or that only jobs need: parsing the workflow must not
HEAVY = ("torch", "transformers", "PIL", "pytesseract")
DOORWAY = "docqa.workflow.snakefile"
DEFAULT_JOBS = Path(__file__).resolve().parents[1] / "data" / "default_jobs.txt"
IMPORT = re.compile(r"^\s*(?:from\s+(?P<from>[\w.]+)\s+import\b|import\s+(?P<names>[\w., ]+))")


def test_importing_the_workflow_module_pulls_in_no_heavy_library() -> None:
    probe = (
        "import json, sys\n"
        f"import {DOORWAY}\n"
        f"print(json.dumps(sorted(m for m in {HEAVY!r} if m in sys.modules)))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr[-3000:]
    loaded = json.loads(result.stdout.splitlines()[-1])
    assert loaded == [], f"importing {DOORWAY} imports {loaded}: import them inside the jobs"


def docqa_imports(path: Path) -> list[tuple[int, str]]:
    """(line number, module) of every import of a docqa module in a Snakefile or .smk file."""
    found = []
    for number, line in enumerate(path.read_text().splitlines(), 1):
        match = IMPORT.match(line)
        if not match:
            continue
        modules = [match["from"]] if match["from"] else match["names"].split(",")
        for module in modules:
            module = module.split(" as ")[0].strip()
            if module == "docqa" or module.startswith("docqa."):
                found.append((number, module))
    return found


def test_the_rule_files_import_docqa_only_through_the_workflow_module() -> None:
    files = [ROOT / "Snakefile", *sorted((ROOT / "rules").glob("*.smk"))]
    assert len(files) > 5
    imports = {path.relative_to(ROOT).as_posix(): docqa_imports(path) for path in files}
    assert any(imports.values()), "no rule file imports docqa.workflow.snakefile: the parser broke"
    others = [
        f"{name}:{number} imports {module}"
        for name, found in imports.items()
        for number, module in found
        if module != DOORWAY
    ]
    assert not others, f"import these through {DOORWAY}: " + "; ".join(others)


def test_docqa_imports_are_found_in_every_form(tmp_path: Path) -> None:
    smk = tmp_path / "x.smk"
    smk.write_text(
        "from docqa.workflow.snakefile import (\n    a,\n)\n"
        "import docqa.stages.render as render\n"
        "import os, docqa\n"
        "    from docqa.methods import METHODS\n"
        "from snakemake.utils import validate\n"
        "# from docqa.core import jsonl\n"
    )
    assert docqa_imports(smk) == [
        (1, "docqa.workflow.snakefile"),
        (4, "docqa.stages.render"),
        (5, "docqa"),
        (6, "docqa.methods"),
    ]


def job(rule: str, outputs: str) -> str:
    """One job as ``rule: outputs``, its outputs sorted (their order in the rule is not a
    change of the plan)."""
    return f"{rule}: {', '.join(sorted(outputs.split(', ')))}"


def planned_jobs(dry_run: str) -> list[str]:
    """``rule: outputs`` of each job a ``snakemake -n`` plans (the ``all`` rule, which has no
    output, left out), in the format of tests/data/default_jobs.txt."""
    jobs, rule = [], None
    for line in dry_run.splitlines():
        started = re.match(r"^(?:local)?(?:rule|checkpoint) (\w+):$", line)
        if started:
            rule = started[1]
        elif rule and line.strip().startswith("output: "):
            jobs.append(job(rule, line.strip().removeprefix("output: ")))
            rule = None
    return jobs


def test_the_default_config_plans_the_jobs_it_planned_before_the_move(tmp_path: Path) -> None:
    expected = [
        job(*line.split(": ", 1))
        for line in DEFAULT_JOBS.read_text().splitlines()
        if line.strip() and not line.startswith("#")
    ]
    result = snakemake(workflow_copy(tmp_path), "-n", "--nolock", timeout=300)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    planned = planned_jobs(result.stdout)
    missing = Counter(expected) - Counter(planned)
    extra = Counter(planned) - Counter(expected)
    assert not missing, f"missing: {sorted(missing)}\nextra: {sorted(extra)}"
    assert not extra, f"missing: {sorted(missing)}\nextra: {sorted(extra)}"


def test_a_results_folder_of_its_own_moves_every_output_but_the_shared_models(
    tmp_path: Path,
) -> None:
    """Config key ``results``: the default plan, each output under the config's folder but the
    prepared model (results/models/, shared by every results folder)."""
    expected = [
        job(rule, re.sub(r"\bresults/(?!models/)", "results/mine/", outputs))
        for line in DEFAULT_JOBS.read_text().splitlines()
        if line.strip() and not line.startswith("#")
        for rule, outputs in [line.split(": ", 1)]
    ]
    work = workflow_copy(tmp_path)
    (work / "mine.yaml").write_text("results: results/mine\n")
    result = snakemake(work, "-n", "--nolock", "--configfile", "mine.yaml", timeout=300)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert sorted(planned_jobs(result.stdout)) == sorted(expected)
    assert "results/models/gemma3-270m" in result.stdout


def test_the_report_command_names_the_results_folder_and_the_config_files() -> None:
    layout = results_layout({"results": "results/mine/"})
    assert layout.root == "results/mine"
    assert layout.model("m") == "results/models/m"  # shared by every results folder
    assert layout.download("o/n") == "results/downloads/o/n"
    command = report_command(layout, [Path.cwd() / "config/config.yaml", Path("/tmp/my x.yaml")])
    assert command == (
        "snakemake --report results/mine/report.html "
        "--configfile config/config.yaml '/tmp/my x.yaml'"
    )
    assert report_command(results_layout({}), []) == "snakemake --report results/report.html"
