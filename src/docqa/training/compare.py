"""Trained vs untrained: each evaluated model's score against the first model of ``evaluate:``
(the untrained student), per question, with the paired bootstrap's difference, interval and
p-value (``docqa.metrics.bootstrap``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from docqa.core.scores import ScoreFile
from docqa.metrics.bootstrap import paired_bootstrap


def compare_to_baseline(scores: dict[str, Path]) -> dict[str, Any]:
    """``scores``: model → its score file, the baseline first."""
    per_model = {model: _scores(path) for model, path in scores.items()}
    baseline, *others = per_model
    result: dict[str, Any] = {"baseline": baseline, "models": {}}
    for model in others:
        shared = sorted(set(per_model[model]) & set(per_model[baseline]))
        test = paired_bootstrap(
            [per_model[model][q] for q in shared], [per_model[baseline][q] for q in shared]
        )
        result["models"][model] = (
            None
            if test is None
            else {
                "questions": test.questions,
                "score": sum(per_model[model][q] for q in shared) / len(shared),
                "baseline_score": sum(per_model[baseline][q] for q in shared) / len(shared),
                "difference": test.difference,
                "interval": list(test.interval),
                "p_value": test.p_value,
            }
        )
    return result


def _scores(path: Path) -> dict[str, float]:
    """Question id → its headline score from a score file (0 where it is undefined)."""
    scored: ScoreFile = json.loads(path.read_text())
    return {row["question_id"]: float(row["score"] or 0.0) for row in scored["per_question"]}
