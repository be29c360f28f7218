"""The acme document the method tests read (helpers/acme.py): docqa's own render and OCR read
its titles, and the chart label is too small for the page-level OCR (Focus must crop it)."""

from __future__ import annotations

from helpers.acme import CHART_PAGE

from docqa.methods.base import DocumentEnv


def test_the_page_ocr_reads_the_titles_but_not_the_tiny_chart_label(acme: DocumentEnv) -> None:
    assert "Quarterly Orders" in acme.page_texts[CHART_PAGE]
    assert "77" not in acme.page_texts[CHART_PAGE]
    assert "North 120" in acme.page_texts[1]
    assert [o["pages"] for o in acme.overviews] == [[0, 1, 2, 3], [4, 5]]
