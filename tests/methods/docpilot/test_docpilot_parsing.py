"""DocPilot's pure parts: reading replies, checking arguments, planning and cutting crops."""

from __future__ import annotations

from pathlib import Path

import pytest
from PIL import Image

from docqa.core.document import Page
from docqa.methods.docpilot.actions import ActionError, check_call
from docqa.methods.docpilot.crops import MAX_DPI, Region, plan_regions, render_region
from docqa.methods.docpilot.parsing import (
    code_block,
    first_json,
    page_numbers,
    parse_decision,
    parse_facts,
    parse_navigation,
    parse_verdict,
)
from docqa.methods.docpilot.state import AgentState, EvidenceItem

ALL = ("navigate", "extract", "focus", "solve", "analyze", "answer")


def test_a_decision_is_read_from_react_lines_or_from_one_json_object() -> None:
    react = parse_decision(' Look for it.\nAction: Extract\nArguments: {"pages": [2]} and more')
    assert (react.thought, react.action, react.arguments) == (
        "Look for it.",
        "extract",
        {"pages": [2]},
    )
    bare = parse_decision(" hm\nAction: navigate")
    assert bare.action == "navigate"
    assert bare.arguments == {}
    whole = parse_decision('{"thought": "t", "action": "answer", "arguments": {"answer": "7"}}')
    assert (whole.thought, whole.action, whole.arguments) == ("t", "answer", {"answer": "7"})
    with pytest.raises(ActionError) as none:
        parse_decision("I do not know")
    assert none.value.kind == "invalid_action"
    with pytest.raises(ActionError) as bad:
        parse_decision(" x\nAction: extract\nArguments: [pages 2")
    assert bad.value.kind == "bad_arguments"


def test_json_pages_facts_verdicts_and_code_are_read_leniently() -> None:
    assert first_json('plan: {"a": 1', "{") is None
    assert first_json('x [1, {"b": 2}] y', "[") == [1, {"b": 2}]
    assert page_numbers("p. 2, pages 5-7 and 3") == [2, 5, 6, 7, 3]
    assert page_numbers("1-900") == [1]  # not a range anyone means
    assert parse_navigation(" 2, 4\nMore: yes") == ([2, 4], True)
    assert parse_navigation("Pages: none\nMore: no") == ([], False)
    assert parse_navigation("I cannot tell") == (None, False)
    assert parse_facts(
        "- p. 2: North 120\n* Page 3 - South 95\ncaption text\nnone\np. 4: x", 8, 100
    ) == [
        (2, "North 120"),
        (3, "South 95"),
        (None, "caption text"),
    ]
    assert parse_facts("p. 1: " + "y" * 50, 1, 10) == [(1, "y" * 10)]
    assert parse_verdict(" yes\nCoverage: insufficient\nAdvice: read p. 5") == (
        True,
        False,
        "read p. 5",
    )
    assert parse_verdict("perhaps") == (None, None, "")
    assert code_block("result = 1\n```\ntext after") == "result = 1"
    assert code_block("```python\nresult = 2\n```\nexplained") == "result = 2"


def state_with_candidates(*pages: int) -> AgentState:
    state = AgentState(6)
    state.offer(list(range(6)))
    state.add_round(list(pages))
    return state


def test_arguments_are_coerced_to_zero_based_pages_or_refused() -> None:
    state = state_with_candidates(2, 4)
    assert check_call("extract", {"pages": ["p. 3", 5.0], "goal": 7, "x": 1}, state, ALL) == {
        "pages": [2, 4],
        "goal": "7",
    }
    assert check_call("extract", {"pages": 3}, state, ALL) == {"pages": [2]}
    assert check_call("extract", {"page": 3}, state, ALL) == {"pages": [2]}  # the alias
    state.mark_read([2])
    assert check_call("focus", {"pages": [5]}, state, ALL) == {"page": 4}
    for arguments, kind in [
        ({"pages": [True]}, "bad_arguments"),
        ({"pages": [0]}, "page_out_of_range"),
        ({"pages": ["page seven"]}, "bad_arguments"),
        ({"pages": [2]}, "bad_arguments"),  # not a candidate
        ({"pages": [3], "goal": {"a": 1}}, "bad_arguments"),
        ([3], "bad_arguments"),
    ]:
        with pytest.raises(ActionError) as refused:
            check_call("extract", arguments, state, ALL)
        assert refused.value.kind == kind, arguments


def test_a_call_repeats_only_while_nothing_has_changed() -> None:
    state = state_with_candidates(2)
    state.mark_read([2])
    state.finish("analyze", {"answer": "9"})
    with pytest.raises(ActionError, match="already done"):
        check_call("analyze", {"answer": "9"}, state, ALL)
    state.add_evidence([EvidenceItem("Design 9", "extract", 3, 2)])
    assert check_call("analyze", {"answer": "9"}, state, ALL) == {"answer": "9"}


def test_evidence_is_kept_once_and_numbered() -> None:
    state = AgentState(3)
    first = EvidenceItem("North 120", "extract", 1, 0)
    assert state.add_evidence([first, EvidenceItem("north 120", "extract", 2, 0)]) == [1]
    assert state.add_evidence([EvidenceItem("North 120", "focus", 3, 1)]) == [2]
    assert first.line(1) == "[1] p. 1 (extract): North 120"
    assert EvidenceItem("x = 3", "solve", 4).line(3) == "[3] computed (solve): x = 3"
    assert first.as_input(1) == {"id": 1, "page": 1, "source": "extract", "content": "North 120"}


def test_a_plan_becomes_regions_and_bad_operations_are_counted() -> None:
    regions, invalid = plan_regions(
        [
            {"op": "crop", "box": [0, 0, 500, 500]},
            {"op": "zoom", "box": [-50, 100, 2000, 900], "factor": 9},
            {"op": "split", "rows": 2, "cols": 1},
            {"op": "rotate"},
            {"op": "crop", "box": [10, 10, 12, 500]},
        ],
        zoom=2.0,
        max_regions=10,
    )
    assert [(r.box, r.zoom, r.operation) for r in regions] == [
        ((0, 0, 500, 500), 2.0, "crop"),
        ((0, 100, 1000, 900), 4.0, "zoom"),
        ((0, 0, 1000, 500), 2.0, "split 1/2"),
        ((0, 500, 1000, 1000), 2.0, "split 2/2"),
    ]
    assert invalid == 2
    assert plan_regions({"op": "crop"}, 2.0, 1) == ([Region((0, 0, 1000, 1000), 2.0, "crop")], 0)
    assert plan_regions("no plan", 2.0, 4) == ([], 1)
    assert len(plan_regions([{"op": "split", "rows": 3, "cols": 3}], 2.0, 4)[0]) == 4


def test_a_region_of_an_image_page_is_cut_and_enlarged(tmp_path: Path) -> None:
    image = Image.new("RGB", (400, 200), "white")
    image.paste((255, 0, 0), (200, 100, 400, 200))
    image.save(tmp_path / "page.png")
    page = Page("deck", 0, str(tmp_path / "page.png"), 400, 200, 96)
    path, dpi, origin = render_region(
        tmp_path / "slides", page, Region((500, 500, 1000, 1000), 2.0, "zoom"), tmp_path / "crops"
    )
    assert origin == "page image"
    assert dpi == 192
    with Image.open(path) as crop:
        assert crop.size == (400, 200)
        assert crop.getpixel((200, 100)) == (255, 0, 0)
    _, capped, _ = render_region(
        tmp_path / "slides",
        Page("deck", 0, str(tmp_path / "page.png"), 400, 200, 400),
        Region((0, 0, 1000, 1000), 4.0, "zoom"),
        tmp_path / "crops",
    )
    assert capped == MAX_DPI
