"""DocPilot's reading budgets: Extract and Focus send high-resolution images and a page's whole
OCR text by default (the paper's "high-resolution screenshot" and structured OCR elements), and
every budget that still cuts says in the trace what it left out."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from helpers.acme import CHART_PAGE
from helpers.docpilot_script import ScriptedReplies, decision, run
from helpers.scripted_backend import text_of

from docqa.core.prediction import Prediction
from docqa.core.trace import pages_cut
from docqa.methods.base import DocumentEnv
from docqa.methods.docpilot import DocPilot, DocPilotOptions
from docqa.methods.docpilot.method import PAGE_PIXELS

PAGE = CHART_PAGE + 1  # as the agent names it
SCRIPT = [
    decision("navigate", {"query": "quarterly orders chart"}),
    f"{PAGE}\nMore: no",
    decision("extract", {"pages": [PAGE], "goal": "Q3 orders"}),
    f"p. {PAGE}: Quarterly Orders bar chart with four bars",
    decision("focus", {"page": PAGE, "goal": "the Q3 value label"}),
    '[{"op": "zoom", "box": [600, 800, 1000, 1000], "factor": 4}]',
    f"p. {PAGE}: Q3 orders 77",
    decision("analyze", {"answer": "77"}),
    " yes\nCoverage: sufficient",
    decision("answer", {"answer": "77"}),
    "77",
]
#: OCR text past the 1,500 characters Extract used to read of a page
TAIL = " ".join(f"row{n} value {n * 7}" for n in range(200)) + " final-row-marker"


def scripted(env: DocumentEnv, tmp_path: Path, sees_images: bool = False, **options: object):
    backend = ScriptedReplies(list(SCRIPT), sees_images=sees_images)
    method = DocPilot(DocPilotOptions(crops_dir=str(tmp_path / "crops"), **options))
    prediction = run(method, env, backend)
    return prediction, backend


def step(prediction: Prediction, action: str) -> dict:
    return next(s for s in prediction.trace if s.get("action") == action)


def long_page(acme: DocumentEnv) -> DocumentEnv:
    texts = list(acme.page_texts)
    texts[CHART_PAGE] = texts[CHART_PAGE] + " " + TAIL
    return replace(acme, page_texts=texts)


def test_extract_and_focus_send_high_resolution_images(acme: DocumentEnv, tmp_path: Path) -> None:
    prediction, backend = scripted(acme, tmp_path, sees_images=True)
    assert prediction.answer == "77"
    extract, plan, read = backend.requests[3], backend.requests[5], backend.requests[6]
    assert extract.images == [acme.pages[CHART_PAGE].image]
    assert PAGE_PIXELS == 4_000_000
    for request in (extract, plan, read):
        assert request.images
        assert request.generation.max_pixels == PAGE_PIXELS  # not the model's ~1 MP
    assert step(prediction, "extract")["max_pixels"] == PAGE_PIXELS
    assert step(prediction, "focus")["max_pixels"] == PAGE_PIXELS
    _, backend = scripted(acme, tmp_path, True, extract_max_pixels=None, focus_max_pixels=None)
    assert [backend.requests[i].generation.max_pixels for i in (3, 5, 6)] == [None] * 3


def test_extract_reads_the_whole_page_text_and_records_a_cut_in_text_cut(
    acme: DocumentEnv, tmp_path: Path
) -> None:
    env = long_page(acme)
    prediction, backend = scripted(env, tmp_path)
    assert len(env.page_texts[CHART_PAGE]) > 1500
    assert "final-row-marker" in text_of(backend.requests[3])
    assert "text_cut" not in step(prediction, "extract")
    assert pages_cut(prediction.trace) == 0

    prediction, backend = scripted(env, tmp_path, max_chars_per_page=1500)
    assert "final-row-marker" not in text_of(backend.requests[3])
    page_text = env.page_texts[CHART_PAGE].strip()
    (cut,) = step(prediction, "extract")["text_cut"]
    assert cut["page"] == CHART_PAGE
    assert cut["chars"] == len(page_text)
    assert cut["left_out"] >= len(page_text) - 1500
    assert pages_cut(prediction.trace) == 1  # the score stage counts it


def test_the_focus_planner_reads_every_line_unless_focus_lines_cuts(
    acme: DocumentEnv, tmp_path: Path
) -> None:
    prediction, backend = scripted(acme, tmp_path)
    assert "lines_cut" not in step(prediction, "focus")
    every = text_of(backend.requests[5]).count("\n[")
    prediction, backend = scripted(acme, tmp_path, focus_lines=1)
    assert step(prediction, "focus")["lines_cut"] >= 1
    assert text_of(backend.requests[5]).count("\n[") < every


def test_observations_stay_whole_in_the_history_unless_cut(
    acme: DocumentEnv, tmp_path: Path
) -> None:
    env = long_page(acme)
    prediction, backend = scripted(env, tmp_path)
    assert all("observation_cut" not in s for s in prediction.trace)
    observed = "Quarterly Orders bar chart with four bars"
    # the next decision shows it in the history and in the evidence block
    assert text_of(backend.requests[4]).count(observed) == 2
    prediction, backend = scripted(env, tmp_path, max_observation_chars=20)
    cut = step(prediction, "extract")["observation_cut"]
    assert cut > 0
    assert text_of(backend.requests[4]).count(observed) == 1  # the evidence block only
