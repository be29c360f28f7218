"""Same seed, same bytes; another seed, another dataset."""

from __future__ import annotations

from pathlib import Path

from docqa.datasets.synthslides.dataset import build_dataset
from docqa.datasets.synthslides.options import SynthOptions

SMALL = {"decks": 2, "slides_per_deck": [6, 8], "questions_per_deck": 4}


def _files(out: Path) -> dict[str, bytes]:
    return {str(p.relative_to(out)): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}


def test_same_seed_gives_identical_files(tmp_path: Path):
    build_dataset(tmp_path / "a", SynthOptions.model_validate(SMALL))
    build_dataset(tmp_path / "b", SynthOptions.model_validate(SMALL))
    a, b = _files(tmp_path / "a"), _files(tmp_path / "b")
    assert a.keys() == b.keys()
    for name in a:
        if name == "documents.jsonl":  # holds each run's own folder
            continue
        assert a[name] == b[name], name
    assert a["documents.jsonl"].replace(b"/a/", b"/b/") == b["documents.jsonl"]


def test_other_seed_gives_other_questions(tmp_path: Path):
    build_dataset(tmp_path / "a", SynthOptions.model_validate(SMALL))
    build_dataset(tmp_path / "c", SynthOptions.model_validate({**SMALL, "seed": 1}))
    questions = [(tmp_path / run / "questions.jsonl").read_bytes() for run in ("a", "c")]
    assert questions[0] != questions[1]
