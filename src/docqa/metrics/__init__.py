"""Metrics: each scores predicted answers against gold answers, registered by name.

A metric is a :class:`~docqa.metrics.base.Metric` registered in :data:`METRICS`; the score
stage looks it up by the name a dataset's config gives.
"""

from __future__ import annotations

from docqa.metrics.base import Metric
from docqa.registry import Registry

METRICS: Registry[Metric] = Registry("metric")


def load_metrics() -> None:
    """Import every metric module so that it registers itself."""
    from docqa.metrics import slideagent  # noqa: F401
