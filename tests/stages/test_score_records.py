"""A score file has exactly the shape docqa.core.scores declares: the file, its summary, its
breakdowns and each question's row (whose only other keys are the metric's own scores, between
``answer_format`` and ``score``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from helpers.score_files import META, p, q, write

from docqa.core.scores import (
    PAGE_PREFIX,
    PAGE_SCORES,
    Bootstrap,
    GroupScore,
    ScoreFile,
    ScoreRow,
    ScoreSummary,
)
from docqa.metrics import retrieval
from docqa.stages.score import score_run

QUESTIONS = [
    q("q1", "17", "Int", [0, 1], "chart", ["Chart"]),
    q("q2", "revenue grew", "Str", [2], "text", ["Text"]),
    q("q3", "Not answerable", "None", [], "text", []),
    q("q4", "", "Str", [1], "text", []),  # no gold answer: skipped
    {
        **q("q5", "7", "Int", [], "table", []),
        "doc_ids": ["d", "e"],
        "evidence_refs": [["e", 0]],
    },
]
PREDICTIONS = [
    p("q1", "17", [0, 5]),
    p("q2", "The revenue grew", [2]),
    p("q3", "", [1], error="backend timed out"),
    p("q4", "whatever", [1]),
    # q5: missing
]


def declared(shape: Any) -> set[str]:
    return set(shape.__required_keys__ | shape.__optional_keys__)


@pytest.mark.parametrize("metric", ["slideagent", "slidevqa", "mmlongbench_doc"])
def test_a_score_file_has_the_declared_shape(tmp_path: Path, metric: str) -> None:
    scores = score_run(*write(tmp_path, QUESTIONS, PREDICTIONS), metric, {}, META)
    assert list(scores) == [key for key in ScoreFile.__annotations__ if key in scores]
    assert set(scores) == declared(ScoreFile)  # documents too: q5 is over two documents
    assert set(scores["bootstrap"]) == declared(Bootstrap)
    summary = scores["summary"]
    assert ScoreSummary.__required_keys__ <= set(summary)
    assert set(summary) <= declared(ScoreSummary) - {"seconds", "peak_memory_mb"}
    assert {"agent", "intervals", "skipped", "scorer", *PAGE_SCORES} <= set(summary)
    groups = [group for breakdown in scores["breakdown"].values() for group in breakdown.values()]
    assert groups
    assert all(set(group) == declared(GroupScore) for group in groups)
    for row in scores["per_question"]:
        keys = list(row)
        assert ScoreRow.__required_keys__ <= set(keys)
        own = set(keys) - declared(ScoreRow)  # the metric's own scores
        between = keys[keys.index("answer_format") + 1 : keys.index("score")]
        assert own <= set(between)
    several = scores["per_question"][-1]
    assert (several["doc_ids"], several["evidence"], several["error"]) == (
        ["d", "e"],
        [["e", 0]],
        "missing prediction",
    )


def test_the_page_scores_are_the_retrieval_scores() -> None:
    assert list(PAGE_SCORES) == [PAGE_PREFIX + name for name in retrieval.score_names()]
