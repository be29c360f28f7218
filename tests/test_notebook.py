"""notebooks/explore_results.ipynb runs top to bottom on a results tree (nbclient, ipykernel)."""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
from helpers.scored_runs import scored_run
from nbclient import NotebookClient

NOTEBOOK = Path(__file__).resolve().parents[1] / "notebooks" / "explore_results.ipynb"


def test_notebook_runs_on_a_results_tree(tmp_path: Path, monkeypatch) -> None:
    scored_run(tmp_path, "synth", "text_rag_top1", "m", ["17", "0", "blue", "3", "0", "red"])
    scored_run(tmp_path, "synth", "oracle_pages", "m", ["17", "42", "x", "0", "2019", "red"])
    monkeypatch.setenv("DOCQA_RESULTS", str(tmp_path / "results"))
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    NotebookClient(
        notebook,
        timeout=120,
        kernel_name="python3",
        resources={"metadata": {"path": str(NOTEBOOK.parent)}},
    ).execute()
    outputs = [
        output for cell in notebook.cells if cell.cell_type == "code" for output in cell.outputs
    ]
    assert not [o for o in outputs if o.output_type == "error"]
    text = "\n".join(o.get("text", "") + o.get("data", {}).get("text/plain", "") for o in outputs)
    # oracle_pages wins q1, q4; text_rag_top1 wins q2 (partial F1), q3; each question has a
    # run that scores on it
    assert re.search(r"oracle_pages better +2\n", text), text
    assert re.search(r"text_rag_top1 better +2\n", text), text
    assert "0 of 6 questions wrong in every run" in text
