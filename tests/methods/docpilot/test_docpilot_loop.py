"""DocPilot's loop with a scripted model: every action once, on a real rendered and OCRed PDF.

The trajectory navigates to the chart page, reads it (the page OCR misses the value label),
focuses on the label (the crop is rendered from the PDF at a higher dpi and OCRed again, since
the scripted model reads text only), computes with Solve in the sandbox, checks with Analyze
and answers.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pytest
from helpers.acme import CHART_PAGE, QUESTION
from helpers.docpilot_script import ScriptedReplies, decision, run, summary_of
from helpers.scripted_backend import text_of

from docqa.core.prediction import Prediction
from docqa.methods import create_method
from docqa.methods.base import DocumentEnv
from docqa.methods.docpilot import DocPilot, DocPilotOptions
from docqa.report.traces import render_trace_html

SOLVER_CODE = (
    "import re\n"
    "label = [e['content'] for e in evidence if e['source'] == 'focus'][0]\n"
    "result = int(re.findall(r'\\d+', label)[-1])\n```"
)

FULL_RUN = [
    decision("navigate", {"query": "quarterly orders chart"}, "Find the orders chart."),
    "4\nMore: no",
    decision("extract", {"pages": [4], "goal": "Q3 orders"}),
    "p. 4: Quarterly Orders bar chart with four bars",
    decision("focus", {"page": 4, "goal": "the Q3 value label"}, "The label is too small."),
    '[{"op": "zoom", "box": [600, 800, 1000, 1000], "factor": 4}]',
    "p. 4: Q3 orders 77",
    decision("solve", {"task": "the Q3 orders as a number"}),
    SOLVER_CODE,
    decision("analyze", {"answer": "77"}),
    " yes\nCoverage: sufficient\nAdvice: answer 77",
    decision("answer", {"answer": "77"}),
    "77",
]


@dataclass
class FullRun:
    prediction: Prediction
    backend: ScriptedReplies
    crops: Path


@pytest.fixture(scope="module")
def full(acme: DocumentEnv, tmp_path_factory: pytest.TempPathFactory) -> FullRun:
    """The scripted trajectory above, run once for the tests of this module."""
    crops = tmp_path_factory.mktemp("crops")
    backend = ScriptedReplies(FULL_RUN)
    return FullRun(
        run(DocPilot(DocPilotOptions(crops_dir=str(crops))), acme, backend), backend, crops
    )


def test_every_action_runs_and_the_answer_comes_from_the_evidence(full: FullRun) -> None:
    prediction = full.prediction
    assert prediction.answer == "77"
    assert prediction.error == ""
    assert prediction.pages == [CHART_PAGE]
    assert not full.backend.replies, "every scripted reply was used"
    steps = prediction.trace[:-1]
    assert [step["action"] for step in steps] == [
        "navigate",
        "extract",
        "focus",
        "solve",
        "analyze",
        "answer",
    ]
    for step in steps:
        assert {"action", "thought", "input", "output", "pages", "usage", "fallbacks"} <= set(step)
        assert step["fallbacks"] == []
    assert steps[0]["thought"] == "Find the orders chart."
    assert steps[1]["input"] == {"pages": [4], "goal": "Q3 orders"}
    assert prediction.usage.calls == len(FULL_RUN)
    assert sum(step["usage"]["calls"] for step in steps) == len(FULL_RUN)

    summary = summary_of(prediction)
    assert summary["outcome"] == "answered"
    assert summary["stop"] == "answer"
    assert summary["calls_per_action"] == dict.fromkeys(
        ("navigate", "extract", "focus", "solve", "analyze", "answer"), 1
    )
    assert summary["pages_retrieved"] == 1
    assert summary["pages"] == [CHART_PAGE]
    assert summary["evidence_precision"] == 1.0
    assert summary["evidence_recall"] == 1.0
    assert summary["recall_by_round"] == [1.0]
    assert set(summary["failures"].values()) == {0}
    json.dumps(prediction.to_dict())  # the whole prediction is JSON


def test_navigate_shows_the_overview_grid_as_text_to_a_text_only_model(
    full: FullRun, acme: DocumentEnv
) -> None:
    navigator = text_of(full.backend.requests[1])
    assert "p. 4: Quarterly Orders" in navigator
    assert "p. 5:" not in navigator
    assert "Looking for: quarterly orders chart" in navigator
    navigate = full.prediction.trace[0]
    assert navigate["pages"] == [0, 1, 2, 3]
    assert navigate["images"] == [acme.overviews[0]["image"]]
    assert navigate["output"] == "candidate pages: 4 (new: 4); shown to the navigator: 4 of 6 pages"


def test_focus_rerenders_the_region_and_ocrs_it_again_for_a_text_only_model(
    full: FullRun, acme: DocumentEnv
) -> None:
    focus = full.prediction.trace[2]
    (crop,) = focus["crops"]
    assert crop["from"] == "pdf"
    assert crop["dpi"] == 240
    assert crop["box"] == [600, 800, 1000, 1000]
    assert "77" in crop["ocr_text"]
    assert focus["images"] == [crop["image"]]
    assert Path(crop["image"]).is_file()
    assert Path(crop["image"]).parent.parent == full.crops
    planner, reader = text_of(full.backend.requests[5]), text_of(full.backend.requests[6])
    assert "Quarterly Orders" in planner
    assert "[" in planner
    assert "77" in reader  # the crop's own OCR text, which the page OCR did not have
    assert "77" not in acme.page_texts[CHART_PAGE]
    assert "new evidence: [2] p. 4 (focus): Q3 orders 77" in focus["output"]


def test_solve_runs_the_code_in_the_sandbox_over_the_evidence(full: FullRun) -> None:
    solve = full.prediction.trace[3]
    assert solve["output"] == "result = 77; new evidence: [3]"
    assert solve["sandbox"]["kind"] == "ok"
    assert "seccomp" in solve["sandbox"]["isolation"]
    assert solve["code"].startswith("import re")
    solver = text_of(full.backend.requests[8])
    assert '"content": "Q3 orders 77"' in solver
    answerer = text_of(full.backend.requests[12])
    assert "[3] computed (solve): the Q3 orders as a number = 77" in answerer
    assert "Check: grounded: yes; coverage: sufficient" in answerer


def test_the_orchestrator_sees_the_history_and_the_evidence_state(full: FullRun) -> None:
    last = text_of(full.backend.requests[11])
    assert last.endswith(
        "Step 6 of 12. Available: navigate, extract, focus, solve, analyze, answer\nThought:"
    )
    assert 'Action: focus\nArguments: {"page": 4, "goal": "the Q3 value label"}' in last
    assert "[2] p. 4 (focus): Q3 orders 77" in last
    assert "Candidate pages: 4. Read: 4. Shown to the navigator: 4 of 6 pages." in last
    assert "Last check of '77': grounded: yes; coverage: sufficient" in last


def test_the_trace_renders_with_the_pages_and_crops_looked_at(
    full: FullRun, acme: DocumentEnv, tmp_path: Path
) -> None:
    out = tmp_path / "trace.html"
    html = render_trace_html(full.prediction, QUESTION, acme.pages, out).read_text()
    assert "navigate" in html
    assert "focus" in html
    assert "summary" in html
    assert full.prediction.trace[2]["crops"][0]["image"] in html
    assert html.count("<figure") >= 6  # page thumbnails of the steps


def test_a_vlm_sees_the_crop_itself_without_ocr(acme: DocumentEnv, tmp_path: Path) -> None:
    backend = ScriptedReplies(
        FULL_RUN[:7]
        + [
            decision("analyze", {"answer": "77"}),
            " yes\nCoverage: sufficient",
            decision("answer", {"answer": "77"}),
            "77",
        ],
        sees_images=True,
    )
    prediction = run(DocPilot(DocPilotOptions(crops_dir=str(tmp_path / "crops"))), acme, backend)
    assert prediction.answer == "77"
    focus = prediction.trace[2]
    assert focus["crops"][0]["ocr_text"] == ""
    reader = backend.requests[6]
    crops = [p for m in reader.messages for p in m.parts if p.kind == "image"]
    assert [p.image for p in crops] == focus["images"]
    assert crops[0].text == ""


def test_the_method_is_built_from_its_config_entry() -> None:
    method = create_method({"type": "docpilot", "max_steps": 5, "without": ["solve"]})
    assert isinstance(method, DocPilot)
    assert method.settings.max_steps == 5
    assert "solve" not in method.settings.enabled
    assert method.retrievers == ()
    assert create_method({"type": "docpilot", "retriever": "bm25"}).retrievers == ("bm25",)


def test_a_vlm_planner_gets_the_text_lines_the_focus_prompt_promises(acme: DocumentEnv) -> None:
    """A VLM backend drops an image part's OCR text, so the lines go beside the image."""
    import asyncio

    from docqa.backends.client import ModelClient
    from docqa.core.prediction import Usage
    from docqa.methods.docpilot.context import Context
    from docqa.methods.docpilot.focus import _plan
    from docqa.methods.docpilot.state import AgentState

    backend = ScriptedReplies(['[{"op": "crop", "box": [0, 0, 500, 500]}]'], sees_images=True)

    async def plan() -> None:
        client = ModelClient(backend)
        ctx = Context(
            QUESTION,
            acme,
            client,
            AgentState(len(acme.pages)),
            DocPilot(DocPilotOptions()).settings,
            1,
            True,
        )
        try:
            await _plan(ctx, CHART_PAGE, "the Q3 value label", Usage())
        finally:
            await client.close()

    asyncio.run(plan())
    parts = backend.requests[0].messages[0].parts
    image = next(i for i, part in enumerate(parts) if part.kind == "image")
    beside = parts[image + 1]
    assert beside.kind == "text"
    assert "Quarterly Orders" in beside.text
    assert beside.text.startswith("[")  # a line with its box
