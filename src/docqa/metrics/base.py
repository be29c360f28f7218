"""What a metric is: a per-question scorer and an aggregate over questions.

A metric scores one question at a time as an :class:`AnswerScore` and combines a set of them
into the headline ``overall``. Both are pure functions of their arguments and the metric's
options; the score stage (``docqa.scoring``) reads the files and handles missing predictions.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Callable, Mapping, Sequence

from docqa.question import Question

Options = Mapping[str, Any]


@dataclass(frozen=True)
class AnswerScore:
    """One question's score: ``score`` in [0, 1], and the column it counts in.

    Numeric questions (``numeric``) fill ``num`` (0 or 1) and leave ``f1`` ``None``; the others
    fill ``f1`` and leave ``num`` ``None``.
    """

    score: float
    numeric: bool
    num: float | None = None
    f1: float | None = None

    def failed(self) -> "AnswerScore":
        """The same question scored as wrong: for a missing prediction or one with an error."""
        return replace(
            self,
            score=0.0,
            num=None if self.num is None else 0.0,
            f1=None if self.f1 is None else 0.0,
        )


@dataclass(frozen=True)
class Metric:
    """A registered metric.

    ``score(question, answer, options)`` scores one predicted answer; ``overall(scores,
    options)`` is the headline aggregate, a fraction in [0, 1] or ``None`` for no questions;
    ``check(options)`` raises ``ValueError`` naming a bad option value. ``defaults`` lists every
    option the metric takes.
    """

    defaults: Options
    score: Callable[[Question, str, Options], AnswerScore]
    overall: Callable[[Sequence[AnswerScore], Options], float | None]
    check: Callable[[Options], None]

    def resolve_options(self, options: Options, name: str) -> dict[str, Any]:
        """The defaults updated with ``options``; an unknown option is an error naming it."""
        unknown = sorted(set(options) - set(self.defaults))
        if unknown:
            raise ValueError(
                f"metric {name!r}: unknown option(s) {unknown}; known: {sorted(self.defaults)}"
            )
        resolved = {**self.defaults, **options}
        self.check(resolved)
        return resolved
