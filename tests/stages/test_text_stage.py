"""The text stage on slides rendered here, from the PDF's text layer and from OCR: words,
numbers, boxes, reading order, per-page sources, failures, resume."""

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
from docqa.stages.render import render_dataset
from docqa.stages.text import text_dataset
from docqa.text.page_texts import load_page_texts
from docqa.text.reading_order import MAX_LINE_GAP, read_lines
from docqa.text.words import Word

matplotlib.use("Agg")
import matplotlib.pyplot as plt
from matplotlib.backends.backend_pdf import PdfPages

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
    root = tmp_path_factory.mktemp("text")
    documents = root / "documents.jsonl"
    deck = write_slides(root / "deck.pdf")
    documents.write_text(json.dumps({"doc_id": "deck", "path": str(deck)}))
    render_dataset(documents, root / "pages", dpi=DPI)
    return root / "pages" / "pages.jsonl"


def documents_of(rendered: Path) -> Path:
    return rendered.parent.parent / "documents.jsonl"


@pytest.fixture(scope="module", params=["pdf", "ocr"])
def ocred(rendered: Path, request: pytest.FixtureRequest) -> Path:
    """The deck's text from one source (the fixture keeps its old name: most tests read both)."""
    out = rendered.parent.parent / request.param / "elements.jsonl"
    text_dataset(documents_of(rendered), rendered, out, workers=2, source=request.param)
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
        assert 0 <= x0 < x1 <= page["width"]
        assert 0 <= y0 < y1 <= page["height"]
        assert 0 <= element["conf"] <= 100
    for kind in ("word", "line", "block"):
        for page in (0, 1):
            of_kind = [e for e in row["elements"] if e["kind"] == kind and e["page"] == page]
            assert sorted(e["order"] for e in of_kind) == list(range(len(of_kind)))
            assert of_kind
    assert not [e for e in row["elements"] if e["page"] == 2]
    assert read_failures(ocred.with_name("elements.failures.jsonl")) == []
    source = ocred.parent.name
    assert {e["source"] for e in row["elements"]} == {source}
    # the blank page has no text layer: with source pdf it is OCRed, and says why
    blank = {"page": 2, "source": "ocr", "reason": "the page has no text layer"}
    assert row["pages"][2] == (blank if source == "pdf" else {**blank, "reason": "source: ocr"})
    assert [p["source"] for p in row["pages"][:2]] == [source, source]
    titles = [e["text"] for e in row["elements"] if e["kind"] == "block" and e["layout"] == "title"]
    assert "Quarterly Report" in titles


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


def word(text: str, x0: int, y0: int, x1: int, y1: int) -> Word:
    return Word(text, (x0, y0, x1, y1), 90.0)


def test_read_lines_joins_a_table_row_and_keeps_far_columns_apart() -> None:
    height = 20
    limit = int(MAX_LINE_GAP * height)  # the widest gap that still joins two cells of a row
    words = [
        word("Footer", 0, 300, 120, 320),
        word("120", 130 + limit, 101, 160 + limit, 121),  # a table row: one line for its cells
        word("Title", 0, 0, 200, 40),
        word("West", 0, 102, 60, 122),
        word("75", 100, 101, 130, 121),
        word("chart", 160 + 2 * limit + 1, 98, 220 + 2 * limit, 118),
    ]
    lines = [[w.text for w in line.words] for line in read_lines(words)]
    assert lines == [["Title"], ["West", "75", "120"], ["chart"], ["Footer"]]


def test_unreadable_page_image_is_recorded_and_its_document_keeps_its_other_pages(
    rendered: Path, tmp_path: Path
) -> None:
    good = Page.from_dict(next(read_jsonl(rendered)))
    broken = tmp_path / "page-000.png"
    broken.write_bytes(b"not an image")
    pages = tmp_path / "pages.jsonl"
    bad = {**good.to_dict(), "doc_id": "broken", "image": str(broken)}
    second = {**bad, "index": 1, "image": good.image}
    write_jsonl(pages, [good.to_dict(), bad, second])
    documents = tmp_path / "documents.jsonl"
    write_jsonl(
        documents, [{"doc_id": d, "path": str(tmp_path / "x.pdf")} for d in ("deck", "broken")]
    )
    out = tmp_path / "elements.jsonl"
    text_dataset(documents, pages, out, workers=1, source="ocr")

    assert [row["doc_id"] for row in read_jsonl(out)] == ["deck", "broken"]
    (failure,) = read_failures(tmp_path / "elements.failures.jsonl")
    assert (failure.stage, failure.doc_id, failure.path) == ("text", "broken", str(broken))
    assert "page 0" in failure.error
    assert "render" in failure.fix
    texts = load_page_texts(out, pages)
    assert texts["broken"][0] == ""
    assert "Revenue" in texts["broken"][1]


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
    documents_file = tmp_path / "documents.jsonl"
    deck_pdf = str(rendered.parent.parent / "deck.pdf")
    write_jsonl(documents_file, [{"doc_id": d, "path": deck_pdf} for d in documents])
    source = ocred.parent.name

    out = tmp_path / "elements.jsonl"
    partial = out.with_name(out.name + ".partial")
    code = (
        "from docqa.stages.text import text_dataset; "
        f"text_dataset({str(documents_file)!r}, {str(pages)!r}, {str(out)!r}, 1, source={source!r})"
    )
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

    text_dataset(documents_file, pages, out, workers=1, source=source)

    (deck_row,) = read_jsonl(ocred)
    expected = [
        {
            "doc_id": doc_id,
            "elements": [
                {**element, "doc_id": doc_id}
                for element in deck_row["elements"]
                if element["page"] in {page.index for page in pages_of_doc}
            ],
            "pages": [p for p in deck_row["pages"] if p["page"] in {x.index for x in pages_of_doc}],
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


def test_two_columns_with_aligned_rows_are_never_joined() -> None:
    """Two prose columns whose lines sit at the same heights, 2 word heights apart (a paper's
    gutter), under a full-width title: every line stays in its column; a table below (short
    cells, the same gap) still reads one row per line."""
    words = [word("A Title Across Both Columns Of The Page", 0, 0, 900, 30)]
    for row in range(6):
        y = 60 + row * 25
        for column, x0 in enumerate((0, 460)):
            for n in range(5):  # five 80-pixel words with 8-pixel spaces: a 432-pixel line
                x = x0 + n * 88
                words.append(word(f"c{column}r{row}w{n}", x, y, x + 80, y + 20))
    for row in range(3):  # a table: three short cells a row, 40 pixels apart
        y = 260 + row * 25
        words += [word(f"t{row}c{c}", c * 100, y, c * 100 + 60, y + 20) for c in range(3)]
    lines = [line.text for line in read_lines(words)]
    assert lines[0] == "A Title Across Both Columns Of The Page"
    for line in lines[1:13]:
        assert len({token[:2] for token in line.split()}) == 1, line  # one column per line
    assert lines[1].startswith("c0r0")
    assert lines[7].startswith("c1r0")
    assert lines[13:] == ["t0c0 t0c1 t0c2", "t1c0 t1c1 t1c2", "t2c0 t2c1 t2c2"]


def test_a_folder_of_page_images_is_read_by_ocr_and_says_why(
    rendered: Path, tmp_path: Path
) -> None:
    folder = tmp_path / "deck-images"
    folder.mkdir()
    first = Page.from_dict(next(read_jsonl(rendered)))
    shutil.copy(first.image, folder / "slide-1.png")
    documents = tmp_path / "documents.jsonl"
    write_jsonl(documents, [{"doc_id": "images", "path": str(folder)}])
    render_dataset(documents, tmp_path / "pages")
    out = tmp_path / "elements.jsonl"
    text_dataset(documents, tmp_path / "pages" / "pages.jsonl", out, workers=1, source="auto")
    (row,) = read_jsonl(out)
    assert row["pages"] == [
        {"page": 0, "source": "ocr", "reason": "the document is a folder of page images"}
    ]
    assert "Revenue" in load_page_texts(out, tmp_path / "pages" / "pages.jsonl")["images"][0]


def test_a_dataset_sets_its_own_text_source_over_the_default() -> None:
    from docqa.workflow.snakefile import text_settings

    config = {
        "text": {"source": "auto", "psm": 11, "lang": "eng"},
        "datasets": {"papers": {"text": {"source": "pdf"}}, "slides": {}},
    }
    assert text_settings(config, "papers") == {"source": "pdf", "psm": 11, "lang": "eng"}
    assert text_settings(config, "slides") == config["text"]
