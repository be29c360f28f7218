"""The OCR stage on slides rendered here: words, numbers, boxes, reading order, failures, resume."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import matplotlib
import pytest

from docqa.core.document import Page
from docqa.core.failures import read_failures
from docqa.core.jsonl import read_jsonl, write_jsonl
from docqa.stages.ocr import MAX_LINE_GAP, TesseractWord, group_lines, load_page_texts, ocr_dataset
from docqa.stages.render import render_dataset

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.backends.backend_pdf import PdfPages  # noqa: E402

DPI = 200


def write_slides(path: Path) -> Path:
    """Three 1280x720 slides at 200 dpi: text with numbers, a table, and a blank page."""
    with PdfPages(path) as pdf:
        figure = plt.figure(figsize=(6.4, 3.6))
        figure.text(0.05, 0.82, "Quarterly Report", fontsize=22)
        figure.text(0.05, 0.6, "Revenue 1,234 million", fontsize=12)
        figure.text(0.05, 0.45, "Margin 12.5% overall", fontsize=12)
        pdf.savefig(figure)
        plt.close(figure)

        figure = plt.figure(figsize=(6.4, 3.6))
        figure.text(0.05, 0.85, "Sales by region", fontsize=18)
        axes = figure.add_axes((0.1, 0.1, 0.8, 0.6))
        axes.axis("off")
        table = axes.table(
            cellText=[["North", "120", "15%"], ["South", "98", "4.2%"]],
            colLabels=["Region", "Sales", "Growth"],
            loc="center",
        )
        table.set_fontsize(12)
        table.scale(1, 2)
        pdf.savefig(figure)
        plt.close(figure)

        figure = plt.figure(figsize=(6.4, 3.6))
        pdf.savefig(figure)
        plt.close(figure)
    return path


@pytest.fixture(scope="module")
def rendered(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """pages.jsonl of one rendered deck, doc_id "deck"."""
    root = tmp_path_factory.mktemp("ocr")
    documents = root / "documents.jsonl"
    deck = write_slides(root / "deck.pdf")
    documents.write_text(json.dumps({"doc_id": "deck", "path": str(deck)}))
    render_dataset(documents, root / "pages", dpi=DPI)
    return root / "pages" / "pages.jsonl"


@pytest.fixture(scope="module")
def ocred(rendered: Path) -> Path:
    out = rendered.parent.parent / "ocr" / "elements.jsonl"
    ocr_dataset(rendered, out, workers=2)
    return out


def test_words_and_numbers_are_found_inside_their_page(rendered: Path, ocred: Path) -> None:
    pages = {p["index"]: p for p in read_jsonl(rendered)}
    (row,) = read_jsonl(ocred)
    assert row["doc_id"] == "deck"
    words = [e for e in row["elements"] if e["kind"] == "word"]
    found = {(w["page"], w["text"]) for w in words}
    for expected in [(0, "Revenue"), (0, "1,234"), (0, "12.5%"), (1, "120"), (1, "4.2%")]:
        assert expected in found
    for element in row["elements"]:
        x0, y0, x1, y1 = element["bbox"]
        page = pages[element["page"]]
        assert 0 <= x0 < x1 <= page["width"] and 0 <= y0 < y1 <= page["height"]
        assert 0 <= element["conf"] <= 100
    for kind in ("word", "line", "block"):
        for page in (0, 1):
            of_kind = [e for e in row["elements"] if e["kind"] == kind and e["page"] == page]
            assert sorted(e["order"] for e in of_kind) == list(range(len(of_kind))) and of_kind
    assert not [e for e in row["elements"] if e["page"] == 2]
    assert read_failures(ocred.with_name("elements.failures.jsonl")) == []


def test_page_text_reads_top_to_bottom_with_table_rows_as_lines(
    rendered: Path, ocred: Path
) -> None:
    texts = load_page_texts(ocred, rendered)
    first, table, blank = texts["deck"]
    assert first.splitlines() == [
        "Quarterly Report",
        "Revenue 1,234 million",
        "Margin 12.5% overall",
    ]
    lines = table.splitlines()
    assert lines[0] == "Sales by region"
    assert lines[1:] == ["Region Sales Growth", "North 120 15%", "South 98 4.2%"]
    assert blank == ""


def word(text: str, x0: int, y0: int, x1: int, y1: int, line: int) -> TesseractWord:
    return TesseractWord(text, (x0, y0, x1, y1), 90.0, line, (line, 1, 1))


def test_group_lines_joins_a_row_and_keeps_far_columns_apart() -> None:
    height = 20
    limit = int(MAX_LINE_GAP * height)  # the widest gap that still joins two words of a row
    words = [
        word("Footer", 0, 300, 120, 320, line=6),
        word("120", 130 + limit, 101, 160 + limit, 121, line=4),  # a table row: one line per cell
        word("Title", 0, 0, 200, 40, line=1),
        word("West", 0, 102, 60, 122, line=2),
        word("75", 100, 101, 130, 121, line=3),
        word("chart", 160 + 2 * limit + 1, 98, 220 + 2 * limit, 118, line=5),
    ]
    lines = [[w.text for w in line] for line in group_lines(words)]
    assert lines == [["Title"], ["West", "75", "120"], ["chart"], ["Footer"]]


def test_unreadable_page_image_is_recorded_and_its_document_skipped(
    rendered: Path, tmp_path: Path
) -> None:
    good = Page.from_dict(next(read_jsonl(rendered)))
    broken = tmp_path / "page-000.png"
    broken.write_bytes(b"not an image")
    pages = tmp_path / "pages.jsonl"
    bad = {**good.to_dict(), "doc_id": "broken", "image": str(broken)}
    write_jsonl(pages, [good.to_dict(), bad])
    out = tmp_path / "elements.jsonl"
    ocr_dataset(pages, out, workers=1)

    assert [row["doc_id"] for row in read_jsonl(out)] == ["deck"]
    (failure,) = read_failures(tmp_path / "elements.failures.jsonl")
    assert (failure.stage, failure.doc_id, failure.path) == ("ocr", "broken", str(broken))
    assert "render" in failure.fix
    assert list(load_page_texts(out, pages)) == ["deck"]


def test_rerun_after_kill_resumes_without_duplicates(
    rendered: Path, ocred: Path, tmp_path: Path
) -> None:
    """Kill a real OCR run once its first document is done; the rerun finishes the rest."""
    deck = [Page.from_dict(row) for row in read_jsonl(rendered)]
    documents = {"one": deck[:1], "two": deck[1:], "three": deck[2:]}
    rows = []
    for doc_id, pages_of_doc in documents.items():
        for page in pages_of_doc:
            image = tmp_path / doc_id / Path(page.image).name
            image.parent.mkdir(exist_ok=True)
            shutil.copy(page.image, image)
            rows.append({**page.to_dict(), "doc_id": doc_id, "image": str(image)})
    pages = tmp_path / "pages.jsonl"
    write_jsonl(pages, rows)

    out = tmp_path / "elements.jsonl"
    partial = out.with_name(out.name + ".partial")
    code = f"from docqa.stages.ocr import ocr_dataset; ocr_dataset({str(pages)!r}, {str(out)!r}, 1)"
    run = subprocess.Popen(
        [sys.executable, "-c", code],
        start_new_session=True,
        stderr=subprocess.DEVNULL,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )
    try:
        deadline = time.monotonic() + 120
        while not _finished_rows(partial) and time.monotonic() < deadline and run.poll() is None:
            time.sleep(0.005)
    finally:
        os.killpg(run.pid, signal.SIGKILL)
        run.wait()
    assert _finished_rows(partial) == ["one"], "the run was not caught after its first document"
    (tmp_path / "one" / "page-000.png").unlink()  # the rerun must take "one" from the partial file

    ocr_dataset(pages, out, workers=1)

    (deck_row,) = read_jsonl(ocred)
    expected = [
        {
            "doc_id": doc_id,
            "elements": [
                {**element, "doc_id": doc_id}
                for element in deck_row["elements"]
                if element["page"] in {page.index for page in pages_of_doc}
            ],
        }
        for doc_id, pages_of_doc in documents.items()
    ]
    assert list(read_jsonl(out)) == expected
    assert read_failures(out.with_name("elements.failures.jsonl")) == []
    assert not partial.exists()


def _finished_rows(partial: Path) -> list[str]:
    """doc_ids of the complete rows of a checkpoint's partial file (after its fingerprint)."""
    if not partial.exists():
        return []
    lines = partial.read_text().split("\n")[1:-1]
    return [json.loads(line)["doc_id"] for line in lines]
