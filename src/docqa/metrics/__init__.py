"""Metrics: each benchmark's scorer, registered by name.

Every scorer module (``mmlongbench_doc``, ``longdocurl``, ``slidevqa``, ``slideagent``,
``judge``) offers ``score(gold, pred, *, answer_format=None, question=None)`` for one question
and ``aggregate(rows)`` for a set, with the benchmark's own names, and registers a
:class:`~docqa.metrics.base.Metric` in :data:`METRICS` under its module name; the score stage
looks it up by the name a dataset's config gives. ``retrieval`` scores the pages a method used
and runs for every metric.
"""

from __future__ import annotations

import importlib

from docqa.metrics.base import Metric
from docqa.registry import Registry

METRICS: Registry[Metric] = Registry("metric")

#: modules that register a metric; add yours here
METRIC_MODULES = ("judge", "longdocurl", "mmlongbench_doc", "slideagent", "slidevqa")


def load_metrics() -> None:
    """Import every metric module so that it registers itself."""
    for name in METRIC_MODULES:
        importlib.import_module(f"docqa.metrics.{name}")
