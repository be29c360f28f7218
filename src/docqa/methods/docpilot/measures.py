"""The per-question measures of the paper's analyses, as the trace's last step.

``{"step": "summary", ...}`` holds: ``outcome`` (``answered`` or ``insufficient_evidence``),
``stop`` (``answer``, ``step_limit`` or ``no_available_action``), ``steps``,
``pages_retrieved`` (pages read by Extract or Focus; also ``Prediction.pages``), ``pages`` and
``candidate_pages`` (the environment's 0-based positions), ``evidence_precision`` and
``evidence_recall`` of the pages read against the gold evidence pages
(``docqa.metrics.retrieval``; ``None`` without gold pages; over a set of documents the gold
(document, page) pairs are found among the set's pages, ``DocumentEnv.pages_of``),
``recall_by_round`` (cumulative recall of the candidate pages after each navigation round;
empty without gold pages), ``navigation_rounds``, ``calls_per_action`` (executed calls of each
enabled action), ``failures`` (count of each failure kind) and ``evidence_items``.

The gold pages are read here only, after the loop has ended; nothing the agent does depends
on them.
"""

from __future__ import annotations

from typing import Any

from docqa.core.question import Question
from docqa.methods.base import DocumentEnv
from docqa.methods.docpilot.actions import FAILURE_KINDS
from docqa.methods.docpilot.state import AgentState
from docqa.metrics import retrieval


def summary(
    state: AgentState,
    question: Question,
    env: DocumentEnv,
    stop: str,
    steps: int,
    enabled: tuple[str, ...],
) -> dict[str, Any]:
    gold = set(env.pages_of(question.evidence))
    pages = retrieval.score(sorted(gold), state.read)
    recall_by_round = []
    if gold:
        found: set[int] = set()
        for picked in state.rounds:
            found |= gold & set(picked)
            recall_by_round.append(len(found) / len(gold))
    return {
        "step": "summary",
        "outcome": "answered" if stop == "answer" else "insufficient_evidence",
        "stop": stop,
        "steps": steps,
        "pages_retrieved": len(state.read),
        "pages": list(state.read),
        "candidate_pages": list(state.candidates),
        "evidence_precision": pages["precision"],
        "evidence_recall": pages["recall"],
        "recall_by_round": recall_by_round,
        "navigation_rounds": len(state.rounds),
        "calls_per_action": {name: state.calls[name] for name in enabled},
        "failures": {kind: state.failures[kind] for kind in FAILURE_KINDS},
        "evidence_items": len(state.evidence),
    }
