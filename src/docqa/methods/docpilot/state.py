"""The agent's persistent state: what it has been shown, picked, read and concluded so far.

Pages are the environment's positions here (0-based; end to end over a set of documents); they
become page labels (``labels``: ``3``, ``D2:3``) only where a model reads or writes them.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


def _one_based(page: int) -> int:
    """A page of one document as models read it, when no environment names it."""
    return page + 1


@dataclass(frozen=True)
class EvidenceItem:
    """One piece of evidence: a fact read on a page (``extract``), in a crop (``focus``, with
    the crop's ``box`` in thousandths of the page), or a computed value (``solve``, no page)."""

    content: str
    source: str
    step: int
    page: int | None = None
    box: tuple[int, int, int, int] | None = None

    def line(self, number: int, name: Callable[[int], int | str] = _one_based) -> str:
        """The item as models read it: ``[3] p. 5 (focus): …``; ``name`` labels its page
        (``DocumentEnv.page_label``: ``p. D2:5`` in a set)."""
        where = (
            f"p. {name(self.page)}"
            if self.page is not None
            else "computed"
            if self.source == "solve"
            else "p. ?"
        )
        return f"[{number}] {where} ({self.source}): {self.content}"

    def as_input(
        self, number: int, value: Callable[[int], int | str] = _one_based
    ) -> dict[str, Any]:
        """The item as a Solve program reads it in ``evidence``; ``value`` gives its page's
        JSON value (``labels.value``: the number, or ``"D2:5"`` in a set)."""
        return {
            "id": number,
            "page": None if self.page is None else value(self.page),
            "source": self.source,
            "content": self.content,
        }


@dataclass(frozen=True)
class Verdict:
    """What Analyze concluded about a candidate answer; ``None`` where its reply did not say."""

    answer: str
    grounded: bool | None
    sufficient: bool | None
    advice: str = ""

    @property
    def accepted(self) -> bool:
        return bool(self.grounded and self.sufficient)

    def describe(self) -> str:
        def said(value: bool | None, yes: str, no: str) -> str:
            return "unclear" if value is None else yes if value else no

        text = (
            f"grounded: {said(self.grounded, 'yes', 'no')}; "
            f"coverage: {said(self.sufficient, 'sufficient', 'insufficient')}"
        )
        return f"{text}; advice: {self.advice}" if self.advice else text


@dataclass
class AgentState:
    """Everything the loop has established; the orchestrator sees a summary of it each step.

    ``offered``: pages shown to the navigator, in order; ``rounds``: the pages picked in each
    navigation round; ``candidates``: every page picked, first pick first; ``read``: pages
    read closely by Extract or Focus, first reading first (these are the pages the method
    retrieved); ``analyzed_at``: how many evidence items there were at the last Analyze.
    """

    num_pages: int
    offered: list[int] = field(default_factory=list)
    rounds: list[list[int]] = field(default_factory=list)
    candidates: list[int] = field(default_factory=list)
    read: list[int] = field(default_factory=list)
    evidence: list[EvidenceItem] = field(default_factory=list)
    verdict: Verdict | None = None
    analyzed_at: int | None = None
    calls: Counter[str] = field(default_factory=Counter)
    failures: Counter[str] = field(default_factory=Counter)
    #: (action, arguments) → the state's progress when that call ended (or was refused), to
    #: tell loops
    finished: dict[str, tuple[int, ...]] = field(default_factory=dict)
    refused: dict[str, tuple[int, ...]] = field(default_factory=dict)

    def unoffered(self) -> list[int]:
        shown = set(self.offered)
        return [page for page in range(self.num_pages) if page not in shown]

    def offer(self, pages: list[int]) -> None:
        self.offered += [page for page in dict.fromkeys(pages) if page not in self.offered]

    def add_round(self, picked: list[int]) -> None:
        self.rounds.append(list(picked))
        self.candidates += [page for page in dict.fromkeys(picked) if page not in self.candidates]

    def mark_read(self, pages: list[int]) -> None:
        self.read += [page for page in dict.fromkeys(pages) if page not in self.read]

    def add_evidence(self, items: list[EvidenceItem]) -> list[int]:
        """Add the items not already held (same content from the same page); returns their
        1-based numbers."""
        known = {(item.page, item.content.lower()) for item in self.evidence}
        numbers = []
        for item in items:
            if (item.page, item.content.lower()) in known:
                continue
            known.add((item.page, item.content.lower()))
            self.evidence.append(item)
            numbers.append(len(self.evidence))
        return numbers

    def record_verdict(self, verdict: Verdict) -> None:
        self.verdict = verdict
        self.analyzed_at = len(self.evidence)

    def progress(self) -> tuple[int, ...]:
        """Changes whenever the evidence state does (analysis excluded)."""
        return (len(self.offered), len(self.candidates), len(self.read), len(self.evidence))

    @staticmethod
    def call_key(action: str, arguments: Any) -> str:
        return f"{action} {json.dumps(arguments, sort_keys=True, ensure_ascii=False)}"

    def is_repeat(self, action: str, arguments: dict[str, Any]) -> bool:
        """The same call again while nothing has changed since it last ended: a loop."""
        return self.finished.get(self.call_key(action, arguments)) == self.progress()

    def finish(self, action: str, arguments: dict[str, Any]) -> None:
        self.calls[action] += 1
        self.finished[self.call_key(action, arguments)] = self.progress()

    def refuse(self, action: str, arguments: Any) -> bool:
        """Note a refused call; True when the same call was refused before with nothing
        changed since (a loop of failures)."""
        key = self.call_key(action, arguments)
        again = self.refused.get(key) == self.progress()
        self.refused[key] = self.progress()
        return again
