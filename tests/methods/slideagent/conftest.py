"""Fixtures of the SlideAgent tests (the acme document itself comes from tests/conftest.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.slideagent_script import with_bm25

from docqa.methods.base import DocumentEnv


@pytest.fixture
def indexed(acme: DocumentEnv, tmp_path: Path) -> DocumentEnv:
    """The acme document with a real BM25 index of its pages."""
    return with_bm25(acme, tmp_path / "bm25")
