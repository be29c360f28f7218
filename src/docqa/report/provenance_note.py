"""One line per run on what it was made from and where it ran, from the ``provenance.json``
the infer stage writes beside its predictions
(docqa.workflow.provenance), for captions and footnotes.
Runs made before provenance was recorded have none; their line is simply absent."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from docqa.report.inputs import load_json_object

PROVENANCE = "provenance.json"
SHORT = 10  # characters of a hash or commit shown


def provenance_path(runs_dir: Path, dataset: str, method: str, model: str) -> Path:
    return Path(runs_dir) / dataset / method / model / PROVENANCE


def _short(value: Any) -> str:
    return "unknown" if not value else str(value)[:SHORT]


def provenance_note(path: Path) -> str | None:
    """``None`` when the run has no provenance file."""
    if not Path(path).is_file():
        return None
    data = load_json_object(Path(path))
    run = data.get("run", {})
    code = data.get("code", {})
    hardware = data.get("hardware", {})
    gpus = ", ".join(gpu.get("name", "?") for gpu in hardware.get("gpus", []))
    where = gpus or f"CPU ({hardware.get('cpu_count', '?')} cores)"
    dirty = " with uncommitted changes" if code.get("dirty") else ""
    label = " / ".join(str(run.get(key, "?")) for key in ("dataset", "method", "model"))
    return (
        f"{label}: commit {_short(code.get('commit'))}{dirty}, config sha256 "
        f"{_short(data.get('config', {}).get('sha256'))}, pins sha256 "
        f"{_short(data.get('packages', {}).get('requirements_lock_sha256'))}, on {where}"
    )
