"""The text stage on real PDFs that no one here made (tests/data/real_pdfs/, licences in
LICENSES-15.md): a Federal Register proposed rule (three columns), a rotated table, a scan
without text layer, a font without unicode map, encrypted files, a document mixing
born-digital and scanned pages. Rendered at a low dpi so that the few tesseract runs stay
short."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PIL import Image

from docqa.core.failures import read_failures
from docqa.core.jsonl import read_jsonl
from docqa.stages.render import render_dataset
from docqa.stages.text import text_dataset
from docqa.text.page_texts import load_page_texts

REAL = Path(__file__).parents[1] / "data" / "real_pdfs"
DPI = 100
# The Federal Register's gutters in PDF points (x from the left edge): three text columns.
GUTTERS = [(213.0, 221.0), (389.0, 398.0)]


def mixed_columns(row: dict, page: int, width: int) -> tuple[int, int]:
    """(lines that hold words of two columns, body lines) on a Federal Register page."""
    scale = DPI / 72
    words = [e for e in row["elements"] if e["kind"] == "word" and e["page"] == page]
    lines = [e for e in row["elements"] if e["kind"] == "line" and e["page"] == page]
    mixed = body = 0
    for line in lines:
        if line["layout"] in {"header", "footer", "page_number"} or line["bbox"][0] < 60 * scale:
            continue  # the running head and foot span the page; x < 60 pt is a margin stamp
        if "...." in line["text"] or "$6,715" in line["text"]:
            continue  # a row of the cost table (pages 5-6), which spans the columns
        body += 1
        inside = [w for w in words if _inside(w["bbox"], line["bbox"])]
        centres = [(w["bbox"][0] + w["bbox"][2]) / 2 / scale for w in inside]
        for left, right in GUTTERS:
            if any(c < left for c in centres) and any(c > right for c in centres):
                mixed += 1
                break
    return mixed, body


def _inside(box: list[float], outer: list[float]) -> bool:
    return (
        box[0] >= outer[0] - 1
        and box[2] <= outer[2] + 1
        and box[1] >= outer[1] - 1
        and box[3] <= outer[3] + 1
    )


@pytest.fixture(scope="module")
def real(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The real PDFs rendered at DPI and read with source auto; paths of the stage's files."""
    root = tmp_path_factory.mktemp("real")
    names = {
        "register": "federal-register-2020-17221.pdf",
        "rotated": "nics-background-checks-2015-11-rotated.pdf",
        "scan": "linn.pdf",
        "nomap": "truetype_font_nomapping.pdf",
        "mixed": "mixed-federal-register-p2-linn-scan.pdf",
        "empty_password": "r2-empty-password.pdf",
        "user_password": "r4-user-password.pdf",
    }
    documents = root / "documents.jsonl"
    documents.write_text(
        "".join(json.dumps({"doc_id": d, "path": str(REAL / n)}) + "\n" for d, n in names.items())
    )
    render_dataset(documents, root / "pages", dpi=DPI, thumb_width=32)
    out = root / "text" / "elements.jsonl"
    text_dataset(documents, root / "pages" / "pages.jsonl", out, workers=2, source="auto")
    return {"documents": documents, "pages": root / "pages" / "pages.jsonl", "elements": out}


def rows_of(real: dict[str, Path]) -> dict[str, dict]:
    return {row["doc_id"]: row for row in read_jsonl(real["elements"])}


def test_no_line_of_a_three_column_page_joins_two_columns(real: dict[str, Path]) -> None:
    row = rows_of(real)["register"]
    assert [p["source"] for p in row["pages"]] == ["pdf"] * 15
    for page in range(15):  # pages 7-13 are mostly figures: two short columns above them
        mixed, body = mixed_columns(row, page, 0)
        assert mixed == 0, (page, mixed, body)
        assert page > 3 or body > 100, (page, body)
    text = load_page_texts(real["elements"], real["pages"])["register"][0]
    assert (
        "This section of the FEDERAL REGISTER\ncontains notices to the public of the proposed"
        in text
    )


def test_ocr_of_the_same_page_keeps_the_columns_apart_too(
    real: dict[str, Path], tmp_path: Path
) -> None:
    pages = tmp_path / "pages.jsonl"
    pages.write_text(
        "".join(
            json.dumps(row) + "\n"
            for row in read_jsonl(real["pages"])
            if row["doc_id"] == "register" and row["index"] == 0
        )
    )
    out = tmp_path / "elements.jsonl"
    text_dataset(real["documents"], pages, out, workers=1, source="ocr")
    (row,) = read_jsonl(out)
    assert row["pages"] == [{"page": 0, "source": "ocr", "reason": "source: ocr"}]
    mixed, body = mixed_columns(row, 0, 0)
    assert body > 100, (mixed, body)
    assert mixed == 0, (mixed, body)


def test_word_boxes_lie_on_ink_of_the_rendered_page_also_when_rotated(
    real: dict[str, Path],
) -> None:
    rows = rows_of(real)
    pages = {(p["doc_id"], p["index"]): p for p in read_jsonl(real["pages"])}
    for doc_id in ("register", "rotated"):
        page = pages[(doc_id, 0)]
        words = [
            e
            for e in rows[doc_id]["elements"]
            if e["kind"] == "word"
            and e["page"] == 0
            and (doc_id == "rotated" or len(e["text"]) > 2)
        ]  # the register's single letters include its vertical margin stamp (rotated text is a
        # known gap: its loose boxes are off, and a rotated page's words read one letter a row)
        assert len(words) > 100
        on_ink = 0
        with Image.open(page["image"]) as image:
            gray = image.convert("L")
            for word in words:
                x0, y0, x1, y1 = word["bbox"]
                assert 0 <= x0 < x1 <= page["width"]
                assert 0 <= y0 < y1 <= page["height"]
                crop = gray.crop((int(x0), int(y0), int(x1) + 1, int(y1) + 1))
                on_ink += crop.getextrema()[0] < 128  # the word's glyphs are there
        # a few words are printed in light gray (the register's printer slug in the footer)
        assert on_ink >= 0.97 * len(words), (doc_id, on_ink, len(words))


def test_scan_and_broken_font_map_fall_back_to_ocr_and_say_why(real: dict[str, Path]) -> None:
    rows = rows_of(real)
    (scan,) = rows["scan"]["pages"]
    assert scan == {"page": 0, "source": "ocr", "reason": "the page has no text layer"}
    texts = load_page_texts(real["elements"], real["pages"])
    assert "LinnSequencer" in texts["scan"][0]
    (nomap,) = rows["nomap"]["pages"]
    assert nomap["source"] == "ocr"
    assert "garbage" in nomap["reason"]
    assert {e["source"] for e in rows["nomap"]["elements"]} <= {"ocr"}


def test_a_mixed_document_is_decided_page_by_page(real: dict[str, Path]) -> None:
    row = rows_of(real)["mixed"]
    assert [p["source"] for p in row["pages"]] == ["pdf", "ocr"]
    assert {e["source"] for e in row["elements"] if e["page"] == 0} == {"pdf"}
    assert {e["source"] for e in row["elements"] if e["page"] == 1} == {"ocr"}


def test_empty_user_password_opens_and_a_real_password_is_a_recorded_failure(
    real: dict[str, Path],
) -> None:
    texts = load_page_texts(real["elements"], real["pages"])
    assert texts["empty_password"][0].startswith("pdf encryption test")
    assert "user_password" not in texts
    render_failures = read_failures(real["pages"].with_name("failures.jsonl"))
    (failure,) = [f for f in render_failures if f.doc_id == "user_password"]
    assert "password" in failure.error
    assert "qpdf --decrypt" in failure.fix
    assert read_failures(real["elements"].with_name("elements.failures.jsonl")) == []


def test_a_rotated_page_reads_its_table_one_row_per_line(real: dict[str, Path]) -> None:
    """The NICS table sits on a /Rotate 90 page: its text runs down the rendered image. It is
    read in the turned frame, so a state's row is one line, not one letter a line."""
    (text,) = load_page_texts(real["elements"], real["pages"])["rotated"]
    lines = text.splitlines()
    assert lines[0] == "NICS Firearm Background Checks"
    assert any(line.startswith("Alabama 18,870 23,022 22,650") for line in lines)


def test_text_document_reads_one_document_for_other_callers(real: dict[str, Path]) -> None:
    """docqa.text.document.text_document: the per-document function `docqa ask` calls."""
    from docqa.core.document import Document, Page
    from docqa.text.document import text_document

    pages = [Page.from_dict(row) for row in read_jsonl(real["pages"]) if row["doc_id"] == "mixed"]
    document = Document("mixed", str(REAL / "mixed-federal-register-p2-linn-scan.pdf"))
    text = text_document(document, pages, source="pdf")
    assert [(p.page, p.source) for p in text.pages] == [(0, "pdf"), (1, "ocr")]
    assert text.pages[1].reason == "the page has no text layer"
    assert not text.failures
    stage = rows_of(real)["mixed"]  # the row the stage wrote with auto
    assert text.row()["pages"] == stage["pages"]
    first = json.loads(json.dumps([e.to_dict() for e in text.elements if e.page == 0]))
    assert first == [e for e in stage["elements"] if e["page"] == 0]
