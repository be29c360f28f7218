"""DocPilot over a set of two documents (a question over several): acme (D1, six pages) and
fleet (D2, three pages), both real PDFs rendered and OCRed by docqa, joined by ``env_over``.

Every page a model reads is labelled D<document>:<page>, every page it writes is read back as
the set's position (D2:1 is position 6), the overview grids are headed by their document, and
a crop of a D2 page is rendered from fleet's own PDF.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

import pytest
from helpers.docpilot_script import (
    ScriptedReplies,
    build_fleet_document,
    decision,
    run,
    summary_of,
)
from helpers.scripted_backend import text_of

from docqa.core.prediction import Prediction
from docqa.core.question import Question, documents_fields
from docqa.methods.base import DocumentEnv
from docqa.methods.docpilot import DocPilot, DocPilotOptions, prompts
from docqa.methods.docpilot.actions import ActionError, check_call
from docqa.methods.docpilot.labels import picks
from docqa.methods.docpilot.parsing import fact_lines, parse_facts
from docqa.methods.docpilot.state import AgentState, EvidenceItem
from docqa.methods.document_set import env_over

ALL = ("navigate", "extract", "focus", "solve", "analyze", "answer")
#: fleet's first page, as a position of the set (after acme's six pages)
FLEET_FIRST = 6
TRUCKS = Question(
    "q-trucks",
    question="How many trucks do the Berlin and Oslo depots have together?",
    answer="21",
    answer_format="Int",
    **documents_fields(["acme", "fleet"], [("fleet", 0)]),
)


@pytest.fixture(scope="module")
def pair(acme: DocumentEnv, tmp_path_factory: pytest.TempPathFactory) -> DocumentEnv:
    return env_over([acme, build_fleet_document(tmp_path_factory.mktemp("fleet"))])


def orchestrator_prompts(backend: ScriptedReplies) -> list[str]:
    return [text_of(r) for r in backend.requests if text_of(r).startswith("You are DocPilot")]


def module_prompt(backend: ScriptedReplies, opening: str) -> str:
    """The one request of a module, told by its prompt's opening."""
    (found,) = [text_of(r) for r in backend.requests if text_of(r).startswith(opening[:40])]
    return found


RUN = [
    decision("navigate", {"query": "trucks by depot"}),
    "none\nMore: yes",  # acme's first grid (D1:1-4)
    decision("navigate", {"query": "trucks by depot"}),
    "D5:1, D1:2\nMore: yes",  # acme's second grid (D1:5-6): no D5, D1:2 was not shown here
    decision("navigate", {"query": "trucks by depot"}),
    "D2:1\nMore: no",  # fleet's grid
    decision("extract", {"pages": [7], "goal": "trucks"}),  # a bare number is ambiguous
    decision("extract", {"pages": ["D2:9"], "goal": "trucks"}),
    decision("extract", {"pages": ["D2:1"], "goal": "trucks"}),
    "p. D2:1: Berlin 14 trucks\nD2:1: Oslo 7 trucks",
    decision("focus", {"page": "D2 p. 1", "goal": "the depot list"}),
    '[{"op": "zoom", "box": [0, 0, 1000, 600], "factor": 2}]',
    "p. D2:1: Berlin 14 trucks",
    decision("analyze", {"answer": "21"}),
    " yes\nCoverage: sufficient",
    decision("answer", {"answer": "21"}),
    "21",
]


@dataclass
class SetRun:
    prediction: Prediction
    backend: ScriptedReplies
    crops: Path


@pytest.fixture(scope="module")
def over_set(pair: DocumentEnv, tmp_path_factory: pytest.TempPathFactory) -> SetRun:
    crops = tmp_path_factory.mktemp("crops")
    backend = ScriptedReplies(list(RUN))
    prediction = run(DocPilot(DocPilotOptions(crops_dir=str(crops))), pair, backend, TRUCKS)
    return SetRun(prediction, backend, crops)


def test_the_orchestrator_reads_the_documents_and_writes_labelled_pages(over_set: SetRun) -> None:
    assert over_set.prediction.answer == "21"
    assert not over_set.backend.replies, "every scripted reply was used"
    first, *_, last = orchestrator_prompts(over_set.backend)
    question = "Question: How many trucks do the Berlin and Oslo depots have together?\n"
    assert (
        question
        + (
            "Documents:\nD1: acme (6 pages)\nD2: fleet (3 pages)\n"
            "Pages are written D<document>:<page> (D2:3 is page 3 of D2), "
            "each document's pages numbered from 1.\n"
        )
        in first
    )
    assert "Document: 9 pages." not in first
    assert 'pages are written "D<document>:<page>"' in first
    assert 'extract {"pages": ["D1:2", "D2:5"], "goal": "what to collect"}' in first
    assert 'Arguments: {"pages": ["D1:4"], "goal": "staff of Engineering and Design"}' in first
    assert "pages are numbered from 1" not in first
    assert 'Action: extract\nArguments: {"pages": ["D2:1"], "goal": "trucks"}' in last
    assert "[1] p. D2:1 (extract): Berlin 14 trucks" in last
    assert "Candidate pages: D2:1. Read: D2:1. Shown to the navigator: 9 of 9 pages." in last


def test_navigation_walks_each_documents_grid_and_reads_labelled_picks(
    over_set: SetRun, pair: DocumentEnv
) -> None:
    steps = over_set.prediction.trace[:-1]
    assert [step["pages"] for step in steps[:3]] == [[0, 1, 2, 3], [4, 5], [6, 7, 8]]
    assert [step["images"] for step in steps[:3]] == [[row["image"]] for row in pair.overviews]
    navigators = [text_of(r) for r in over_set.backend.requests if "Looking for:" in text_of(r)]
    assert "Overview of D1 (acme), its pages numbered as in that document" in navigators[0]
    assert "p. D1:4: Quarterly Orders" in navigators[0]
    assert "Overview of D2 (fleet), its pages numbered as in that document" in navigators[2]
    assert "p. D2:1: Fleet by Depot" in navigators[2]
    assert "Pages: D1:2\n" in navigators[0]  # the navigator's example is labelled too
    assert steps[1]["output"] == (
        "candidate pages: none (no new page); shown to the navigator: 6 of 9 pages; "
        "the navigator asks to see more pages; ignored pages outside the documents: D5:1; "
        "ignored pages not shown: D1:2"
    )
    assert steps[1]["fallbacks"] == ["page_out_of_range", "bad_reply"]
    assert steps[2]["picked"] == ["D2:1"]
    assert steps[2]["output"] == (
        "candidate pages: D2:1 (new: D2:1); shown to the navigator: 9 of 9 pages"
    )
    assert summary_of(over_set.prediction)["candidate_pages"] == [FLEET_FIRST]


def test_pages_in_arguments_are_labels_of_the_set(over_set: SetRun) -> None:
    steps = over_set.prediction.trace[:-1]
    assert steps[3]["output"] == (
        "error (bad_arguments): extract: 'pages' must hold pages written \"D<document>:<page>\" "
        '(such as "D1:2"), each document\'s pages numbered from 1'
    )
    assert steps[4]["output"] == (
        "error (page_out_of_range): page D2:9 is outside document D2, which has pages 1 to 3"
    )
    read = steps[5]
    assert read["input"] == {"pages": ["D2:1"], "goal": "trucks"}
    assert read["pages"] == [FLEET_FIRST]
    assert read["output"] == (
        "new evidence: [1] p. D2:1 (extract): Berlin 14 trucks; "
        "[2] p. D2:1 (extract): Oslo 7 trucks"
    )
    extractor = module_prompt(over_set.backend, prompts.EXTRACTOR)
    assert "### Page D2:1\n" in extractor
    assert "Fleet by Depot" in extractor
    assert 'as "p. D<document>:<page>: fact"' in extractor
    assert steps[6]["input"] == {"page": "D2:1", "goal": "the depot list"}


def test_a_focus_crop_of_a_d2_page_comes_from_the_second_pdf(
    over_set: SetRun, pair: DocumentEnv
) -> None:
    focus = over_set.prediction.trace[6]
    (crop,) = focus["crops"]
    assert crop["from"] == "pdf"
    image = Path(crop["image"])
    assert image.parent.parent == over_set.crops
    assert image.parent.name.startswith("fleet-")  # the page's own document's folder
    assert image.name.startswith("p001_")  # its own first page
    assert "Berlin" in crop["ocr_text"]  # fleet's page, not acme's seventh (it has none)
    planner = module_prompt(over_set.backend, prompts.FOCUS_PLANNER)
    assert "Page D2:1, its text lines with their boxes:" in planner
    reader = module_prompt(over_set.backend, prompts.FOCUS_READER)
    assert "### Crop 1 of page D2:1 (zoom)" in reader
    assert focus["output"].startswith("inspected p. D2:1: zoom x2 of [0, 0, 1000, 600];")


def test_the_set_is_measured_on_document_and_page(over_set: SetRun) -> None:
    prediction = over_set.prediction
    assert prediction.pages == [FLEET_FIRST]
    summary = summary_of(prediction)
    assert summary["evidence_precision"] == 1.0
    assert summary["evidence_recall"] == 1.0
    assert summary["recall_by_round"] == [0.0, 0.0, 1.0]
    analyzer = module_prompt(over_set.backend, prompts.ANALYZER)
    assert "candidates: D2:1; read: D2:1." in analyzer
    assert "[1] p. D1:2 (extract): Q2 sales 135" in analyzer  # the set's example


def test_bare_numbers_read_as_the_pages_of_the_one_grid_shown(pair: DocumentEnv) -> None:
    """A navigator that copies the numbers drawn on fleet's grid picks fleet's pages."""
    backend = ScriptedReplies(
        [
            decision("navigate", {}),
            "none\nMore: yes",
            decision("navigate", {}),
            "none\nMore: yes",
            decision("navigate", {}),
            "1, 4\nMore: no",
        ]
    )
    prediction = run(DocPilot(DocPilotOptions(max_steps=3)), pair, backend, TRUCKS)
    third = prediction.trace[2]
    assert third["picked"] == ["D2:1"]
    assert third["fallbacks"] == ["page_out_of_range"]
    assert third["output"].endswith("ignored pages outside the documents: D2:4")


def test_thumbnail_windows_cross_from_one_document_to_the_next(pair: DocumentEnv) -> None:
    backend = ScriptedReplies(
        [
            decision("navigate", {}),
            "none\nMore: yes",
            decision("navigate", {}),
            "D2:2, 6\nMore: no",  # no grid: a bare number names no page of a set
        ]
    )
    without_grids = replace(pair, overviews=[])
    prediction = run(
        DocPilot(DocPilotOptions(max_steps=2, window_pages=4)), without_grids, backend, TRUCKS
    )
    second = prediction.trace[1]
    assert second["pages"] == [4, 5, 6, 7]
    navigator = text_of(backend.requests[3])
    assert "p. D1:6: Contact" in navigator
    assert "p. D2:2: Beta Logistics" in navigator
    assert "Overview of" not in navigator
    assert second["picked"] == ["D2:2"]
    assert summary_of(prediction)["candidate_pages"] == [7]


def test_a_vlm_is_told_each_thumbnails_label(pair: DocumentEnv) -> None:
    backend = ScriptedReplies([decision("navigate", {}), "D1:1\nMore: no"], sees_images=True)
    run(
        DocPilot(DocPilotOptions(max_steps=1, window_pages=2)),
        replace(pair, overviews=[]),
        backend,
        TRUCKS,
    )
    parts = backend.requests[1].messages[0].parts
    texts = [part.text for part in parts if part.kind == "text"]
    assert "p. D1:1:\n" in texts
    assert "p. D1:2:\n" in texts


def test_checked_arguments_facts_and_picks_follow_the_sets_labels(pair: DocumentEnv) -> None:
    state = AgentState(len(pair.pages))
    state.offer(list(range(len(pair.pages))))
    state.add_round([1, FLEET_FIRST])
    assert check_call("extract", {"pages": ["D2:1", "d1 p. 2"]}, state, ALL, pair) == {
        "pages": [FLEET_FIRST, 1]
    }
    for arguments, kind in [
        ({"pages": [2]}, "bad_arguments"),
        ({"pages": ["D3:1"]}, "page_out_of_range"),
        ({"pages": ["D1:7"]}, "page_out_of_range"),
        ({"pages": ["D1:3"]}, "bad_arguments"),  # not a candidate
    ]:
        with pytest.raises(ActionError) as refused:
            check_call("extract", arguments, state, ALL, pair)
        assert refused.value.kind == kind, arguments
    with pytest.raises(ActionError, match=r"page D1:3 is not a candidate page \(candidates: "):
        check_call("extract", {"pages": ["D1:3"]}, state, ALL, pair)
    with pytest.raises(ActionError, match='write it as extract {"pages": \\["D1:2", "D2:5"\\]'):
        check_call("extract", {}, state, ALL, pair)
    assert fact_lines("p. D2:1: Berlin 14\n[D1 p. 3] - Staff\np. 4: x", 8, 100, True) == [
        ("D2:1", "Berlin 14"),
        ("D1 p. 3", "Staff"),
        ("4", "x"),
    ]
    assert parse_facts("p. D2:1: Berlin 14", 8, 100) == [(None, "p. D2:1: Berlin 14")]
    assert picks(pair, "D2:1, D1:6-D1:7, D9:1") == ([FLEET_FIRST, 5], ["D1:7", "D9:1"])
    item = EvidenceItem("Berlin 14", "extract", 1, FLEET_FIRST)
    assert item.line(1, pair.page_label) == "[1] p. D2:1 (extract): Berlin 14"


def test_one_documents_prompts_keep_their_numbers(acme: DocumentEnv) -> None:
    backend = ScriptedReplies([decision("navigate", {}), "4\nMore: no"])
    prediction = run(DocPilot(DocPilotOptions(max_steps=1)), acme, backend)
    first = orchestrator_prompts(backend)[0]
    assert "Actions (arguments are JSON; pages are numbered from 1):" in first
    assert "\nDocument: 6 pages.\n" in first
    assert "D1" not in first
    assert "Overview of" not in text_of(backend.requests[1])
    assert prediction.trace[0]["picked"] == [4]


def test_set_prompts_change_only_how_pages_are_named() -> None:
    for prompt, variant in prompts.SET_PROMPTS.items():
        assert variant != prompt
        assert variant[:40] == prompt[:40]  # the training teacher tells roles apart by it
    assert prompts.ORCHESTRATOR_SET[:40] == prompts.ORCHESTRATOR[:40]
