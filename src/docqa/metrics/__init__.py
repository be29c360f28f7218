"""Metrics: each benchmark's scorer, registered by name.

Every scorer module (``mmlongbench_doc``, ``longdocurl``, ``slidevqa``, ``slideagent``,
``judge``) offers ``score(gold, pred, *, answer_format=None, question=None)`` for one question
and ``aggregate(rows)`` for a set, with the benchmark's own names, and registers a
:class:`~docqa.metrics.base.Metric` in :data:`METRICS` under its module name, with its option
spec (``METRICS.register("slidevqa", options=SlideVQAOptions)``); the score stage looks it up
by the name a dataset's config gives. ``retrieval`` scores the pages a method used and runs
for every metric.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from docqa.metrics.base import Metric
from docqa.runtime.registry import Registry
from docqa.runtime.spec import Options, check_entry

#: registered name → the module that registers it; add yours here
METRICS: Registry[Metric[Any]] = Registry(
    "metric",
    {
        name: f"docqa.metrics.{name}"
        for name in (
            "judge",
            "longdocurl",
            "madqa",
            "mmlongbench_doc",
            "slideagent",
            "slidevqa",
        )
    }
    # the judge with a benchmark's own prompt as its default (docqa.metrics.judge)
    | {name: "docqa.metrics.judge" for name in ("docbench_judge", "finragbench_v_judge")},
)


def resolve_options(name: str, values: Mapping[str, Any]) -> Options:
    """Metric ``name``'s options: its config entry ``values`` validated by its registered spec,
    defaults filled in; a ``ValueError`` names each bad key (as the config check does)."""
    spec = METRICS.options(name)
    problems = check_entry(spec, values, f"metrics.{name}", f"metric {name}")
    if problems:
        raise ValueError("; ".join(problems))
    return spec.model_validate(dict(values))
