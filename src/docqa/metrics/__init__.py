"""Metrics: each benchmark's scorer, registered by name.

Every scorer module (``mmlongbench_doc``, ``longdocurl``, ``slidevqa``, ``slideagent``,
``judge``) offers ``score(gold, pred, *, answer_format=None, question=None)`` for one question
and ``aggregate(rows)`` for a set, with the benchmark's own names, and registers a
:class:`~docqa.metrics.base.Metric` in :data:`METRICS` under its module name; the score stage
looks it up by the name a dataset's config gives. ``retrieval`` scores the pages a method used
and runs for every metric.
"""

from __future__ import annotations

from docqa.metrics.base import Metric
from docqa.runtime.registry import Registry

#: registered name → the module that registers it; add yours here
METRICS: Registry[Metric] = Registry(
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
