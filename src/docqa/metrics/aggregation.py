"""Aggregates MMLongBench-Doc and LongDocURL share: accuracy, generalized F1, groupings.

Both compute, over a set of scored questions (``eval_acc_and_f1`` / ``calculate_acc_and_f1``):

- accuracy: the mean score;
- recall: the summed score of the questions whose gold is not 'Not answerable', over their
  number;
- precision: the same sum over the number of questions whose *prediction* is not
  'Not answerable' (exact, case-sensitive comparison in both);
- generalized F1: ``2PR / (P + R)``; 0 when P + R is 0 or either ratio divides by zero.

A row is a mapping with ``score`` (in [0, 1]), ``gold``, ``pred`` (the extracted answer that
was scored), ``evidence_pages`` (list) and ``tags`` (``evidence_sources``, ``doc_type``, ...).
Where the originals print 0 for an empty set of questions, these give ``None``: the score is
undefined, not zero.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

Row = Mapping[str, Any]

NOT_ANSWERABLE = "Not answerable"


def accuracy(rows: Sequence[Row]) -> float | None:
    """Mean score, summed in order as the originals do; ``None`` for no rows."""
    return sum(float(row["score"]) for row in rows) / len(rows) if rows else None


def accuracy_and_f1(rows: Sequence[Row]) -> dict[str, float | None]:
    """``acc``, ``recall``, ``precision`` and generalized ``f1`` (module docstring)."""
    if not rows:
        return {"acc": None, "recall": None, "precision": None, "f1": None}
    answerable = [float(row["score"]) for row in rows if row["gold"] != NOT_ANSWERABLE]
    committed = sum(1 for row in rows if row["pred"] != NOT_ANSWERABLE)
    recall = sum(answerable) / len(answerable) if answerable else None
    precision = sum(answerable) / committed if committed else None
    if recall is None or precision is None:
        f1 = 0.0
    else:
        f1 = 2 * recall * precision / (recall + precision) if recall + precision > 0 else 0.0
    return {"acc": accuracy(rows), "recall": recall, "precision": precision, "f1": f1}


def tag_values(row: Row, tag: str) -> list[str]:
    """The values of one tag of a row: a string tag is one value, a list tag several."""
    value = row.get("tags", {}).get(tag)
    if value is None:
        return []
    return [value] if isinstance(value, str) else [str(v) for v in value]


def group_accuracy(
    rows: Iterable[Row], groups_of: Callable[[Row], list[str]]
) -> dict[str, dict[str, Any]]:
    """Accuracy and question count per group; a row counts in each group it falls in."""
    groups: dict[str, list[Row]] = {}
    for row in rows:
        for group in groups_of(row):
            groups.setdefault(group, []).append(row)
    return {
        name: {"acc": accuracy(members), "questions": len(members)}
        for name, members in sorted(groups.items())
    }
