"""The render stage on PDFs and page-image folders made here: page images, thumbnails,
overviews, bad files, resume."""

from __future__ import annotations

import json
from pathlib import Path

import matplotlib
import pytest
from PIL import Image

from docqa.core.failures import read_failures
from docqa.core.jsonl import read_jsonl
from docqa.stages.render import render_dataset

matplotlib.use("Agg")
import matplotlib.pyplot as plt
from matplotlib.backends.backend_pdf import PdfPages

# (width, height) in inches of the three test pages; at DPI pixels = inches * DPI.
PAGE_INCHES = [(4, 3), (3, 4), (4, 3)]
DPI = 100


def write_pdf(path: Path) -> Path:
    with PdfPages(path) as pdf:
        for number, size in enumerate(PAGE_INCHES):
            figure = plt.figure(figsize=size)
            figure.text(0.1, 0.6, f"Page {number + 1}", fontsize=20)
            figure.text(0.1, 0.3, "Revenue 1,234 and 12.5%", fontsize=10)
            pdf.savefig(figure)
            plt.close(figure)
    return path


def write_zero_page_pdf(path: Path) -> Path:
    """A well-formed PDF whose page tree is empty."""
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [] /Count 0 >>"]
    data = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(data))
        data += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(data)
    data += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    data += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    data += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        xref,
    )
    path.write_bytes(bytes(data))
    return path


def write_documents(path: Path, documents: dict[str, Path]) -> Path:
    path.write_text(
        "".join(json.dumps({"doc_id": d, "path": str(p)}) + "\n" for d, p in documents.items())
    )
    return path


def test_render_writes_pages_thumbnails_and_overviews(tmp_path: Path) -> None:
    deck = write_pdf(tmp_path / "deck.pdf")
    documents = write_documents(tmp_path / "documents.jsonl", {"deck": deck})
    out = tmp_path / "pages"
    render_dataset(documents, out, dpi=DPI, thumb_width=64, grid=(2, 1))

    pages = list(read_jsonl(out / "pages.jsonl"))
    assert [(p["doc_id"], p["index"]) for p in pages] == [("deck", 0), ("deck", 1), ("deck", 2)]
    for page, (width, height) in zip(pages, PAGE_INCHES, strict=True):
        assert abs(page["width"] - width * DPI) <= 1
        assert abs(page["height"] - height * DPI) <= 1
        assert page["dpi"] == DPI
        assert Image.open(page["image"]).size == (page["width"], page["height"])
        assert Image.open(page["thumbnail"]).width == 64
    assert Path(pages[0]["image"]).name == "page-000.png"
    assert Path(pages[2]["thumbnail"]).name == "thumb-002.png"

    overviews = list(read_jsonl(out / "overviews.jsonl"))
    assert [o["pages"] for o in overviews] == [[0, 1], [2]]
    assert [Path(o["image"]).name for o in overviews] == ["overview-00.png", "overview-01.png"]
    two_cells, one_cell = (Image.open(o["image"]) for o in overviews)
    assert two_cells.width > 2 * 64 > one_cell.width > 64

    assert read_failures(out / "failures.jsonl") == []
    assert not (out / "rendered.jsonl.partial").exists()


def test_bad_documents_are_recorded_and_skipped(tmp_path: Path) -> None:
    empty = tmp_path / "empty.pdf"
    empty.write_bytes(b"")
    garbage = tmp_path / "garbage.pdf"
    garbage.write_bytes(b"<html>404 not found</html>\n" * 10)
    documents = write_documents(
        tmp_path / "documents.jsonl",
        {
            "empty": empty,
            "garbage": garbage,
            "good": write_pdf(tmp_path / "good.pdf"),
            "no-pages": write_zero_page_pdf(tmp_path / "zero.pdf"),
            "missing": tmp_path / "missing.pdf",
        },
    )
    out = tmp_path / "pages"
    render_dataset(documents, out, dpi=50)

    failures = {f.doc_id: f for f in read_failures(out / "failures.jsonl")}
    assert list(failures) == ["empty", "garbage", "no-pages", "missing"]
    assert "empty" in failures["empty"].error
    assert "re-download" in failures["empty"].fix
    assert "not a valid PDF" in failures["garbage"].error
    assert "no pages" in failures["no-pages"].error
    assert "does not exist" in failures["missing"].error
    assert all(f.stage == "render" and f.path.endswith(".pdf") for f in failures.values())
    assert {p["doc_id"] for p in read_jsonl(out / "pages.jsonl")} == {"good"}
    assert not (out / "empty").exists()


def test_encrypted_pdf_is_recorded_and_skipped(tmp_path: Path) -> None:
    pypdf = pytest.importorskip("pypdf", reason="pypdf is needed to make an encrypted PDF")
    writer = pypdf.PdfWriter()
    writer.add_blank_page(width=200, height=200)
    writer.encrypt("secret")
    encrypted = tmp_path / "encrypted.pdf"
    writer.write(encrypted)
    documents = write_documents(
        tmp_path / "documents.jsonl",
        {
            "locked": encrypted,
            # pdfium keeps its last error code: this one must not be reported as "password".
            "no-pages": write_zero_page_pdf(tmp_path / "zero.pdf"),
            "good": write_pdf(tmp_path / "good.pdf"),
        },
    )
    out = tmp_path / "pages"
    render_dataset(documents, out, dpi=50)

    failures = {f.doc_id: f for f in read_failures(out / "failures.jsonl")}
    assert "password" in failures["locked"].error
    assert "remove the password" in failures["locked"].fix
    assert "no pages" in failures["no-pages"].error
    assert {p["doc_id"] for p in read_jsonl(out / "pages.jsonl")} == {"good"}


def test_rerun_after_interruption_resumes_without_duplicates(tmp_path: Path) -> None:
    first, second = write_pdf(tmp_path / "first.pdf"), write_pdf(tmp_path / "second.pdf")
    documents = write_documents(tmp_path / "documents.jsonl", {"first": first, "second": second})
    clean = tmp_path / "clean"
    render_dataset(documents, clean, dpi=50)

    # A file where the second document's directory must go stops the run after the first one,
    # as a full disk would; the first document is already in the partial file.
    out = tmp_path / "resumed"
    out.mkdir()
    (out / "second").write_text("in the way")
    with pytest.raises(FileExistsError):
        render_dataset(documents, out, dpi=50)
    assert (out / "rendered.jsonl.partial").exists()
    (out / "second").unlink()
    first_page = out / "first" / "page-000.png"
    rendered_at = first_page.stat().st_mtime_ns
    first.unlink()  # the rerun must take the first document from the partial file

    render_dataset(documents, out, dpi=50)

    assert first_page.stat().st_mtime_ns == rendered_at
    assert read_failures(out / "failures.jsonl") == []
    for name in ("pages.jsonl", "overviews.jsonl", "rendered.jsonl"):
        resumed = (out / name).read_text().replace(str(out), "OUT")
        assert resumed == (clean / name).read_text().replace(str(clean), "OUT")
    keys = [(p["doc_id"], p["index"]) for p in read_jsonl(out / "pages.jsonl")]
    assert len(keys) == len(set(keys)) == 2 * len(PAGE_INCHES)


def write_image(
    path: Path, size: tuple[int, int], fmt: str = "PNG", dpi: int | None = None
) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    extra = {"dpi": (dpi, dpi)} if dpi else {}
    Image.new("RGB", size, (30, 90, 200)).save(path, format=fmt, **extra)
    return path


def test_a_folder_of_page_images_renders_like_a_pdf(tmp_path: Path) -> None:
    deck = tmp_path / "deck"
    # file-name order is page order, with numbers compared as numbers (2 before 10)
    write_image(deck / "page-10.png", (120, 90))
    write_image(deck / "page-2.jpg", (160, 90), "JPEG", dpi=150)
    write_image(deck / "page-1.png", (90, 120))
    (deck / ".DS_Store").write_bytes(b"not a page")  # hidden files are not pages
    documents = write_documents(tmp_path / "documents.jsonl", {"deck": deck})
    out = tmp_path / "pages"
    render_dataset(documents, out, dpi=200, thumb_width=40, grid=(2, 1))

    pages = list(read_jsonl(out / "pages.jsonl"))
    # each image at its own size; the dpi its file records, else the screen default
    assert [(p["index"], p["width"], p["height"], p["dpi"]) for p in pages] == [
        (0, 90, 120, 96),
        (1, 160, 90, 150),
        (2, 120, 90, 96),
    ]
    for page in pages:
        assert Image.open(page["image"]).format == "PNG"
        assert Image.open(page["thumbnail"]).width == 40
    assert [o["pages"] for o in read_jsonl(out / "overviews.jsonl")] == [[0, 1], [2]]
    assert read_failures(out / "failures.jsonl") == []


def test_a_corrupt_page_image_skips_its_document(tmp_path: Path) -> None:
    bad = tmp_path / "bad"
    write_image(bad / "page-0000.png", (50, 50))
    (bad / "page-0001.jpg").write_bytes(b"\xff\xd8 truncated by the download")
    write_image(bad / "page-0002.png", (50, 50))
    empty = tmp_path / "empty"
    empty.mkdir()
    good = tmp_path / "good"
    write_image(good / "page-0000.png", (50, 40))
    documents = write_documents(
        tmp_path / "documents.jsonl", {"bad": bad, "empty": empty, "good": good}
    )
    out = tmp_path / "pages"
    render_dataset(documents, out, dpi=100)

    failures = {f.doc_id: f for f in read_failures(out / "failures.jsonl")}
    assert "page 1 (0-based) image page-0001.jpg cannot be read" in failures["bad"].error
    assert "re-download" in failures["bad"].fix
    assert failures["bad"].path == str(bad)
    assert "no page image" in failures["empty"].error
    assert not (out / "bad").exists()  # nothing half-rendered is left
    assert [(p["doc_id"], p["index"]) for p in read_jsonl(out / "pages.jsonl")] == [("good", 0)]


def write_huge_pdf(path: Path, points: float = 20000) -> Path:
    """A PDF with one blank page of ``points`` x ``points`` points: at 200 dpi a bitmap of
    55556 x 55556 pixels, 12 GB, if it were rendered as it says."""
    import pypdfium2 as pdfium

    pdf = pdfium.PdfDocument.new()
    pdf.new_page(points, points)
    pdf.save(path)
    return path


def write_bomb_png(path: Path, side: int = 50000) -> Path:
    """A real PNG file whose header declares ``side`` x ``side`` pixels (its pixel data is
    cut short: no reader may get that far)."""
    import struct
    import zlib

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", side, side, 8, 2, 0, 0, 0)  # 8-bit RGB
    pixels = zlib.compress(b"\x00" + b"\xff" * 3 * 64)
    path.write_bytes(
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels) + chunk(b"IEND", b"")
    )
    return path


def test_an_oversized_pdf_page_is_rendered_at_the_dpi_that_fits_and_recorded(
    tmp_path: Path,
) -> None:
    documents = write_documents(
        tmp_path / "documents.jsonl",
        {"poster": write_huge_pdf(tmp_path / "poster.pdf"), "ok": write_pdf(tmp_path / "ok.pdf")},
    )
    out = tmp_path / "pages"
    render_dataset(documents, out, dpi=200, max_page_pixels=4_000_000)
    assert read_failures(out / "failures.jsonl") == []
    pages = {(row["doc_id"], row["index"]): row for row in read_jsonl(out / "pages.jsonl")}
    poster = pages[("poster", 0)]
    assert poster["width"] * poster["height"] <= 4_000_000
    assert poster["width"] > 1000
    assert poster["dpi"] == 7
    with Image.open(poster["image"]) as image:
        assert image.size == (poster["width"], poster["height"])
    assert pages[("ok", 0)]["dpi"] == 200  # a page that fits keeps the dpi
    rendered = {row["doc_id"]: row for row in read_jsonl(out / "rendered.jsonl")}
    assert rendered["poster"]["scaled"] == [
        {"page": 0, "from": [55556, 55556], "to": [poster["width"], poster["height"]]}
    ]
    assert "scaled" not in rendered["ok"]


def test_page_images_over_the_cap_are_scaled_and_a_decompression_bomb_is_a_failure(
    tmp_path: Path,
) -> None:
    large = tmp_path / "large"
    large.mkdir()
    Image.new("RGB", (3000, 2000), "white").save(large / "page-1.png", dpi=(300, 300))
    bomb = tmp_path / "bomb"
    bomb.mkdir()
    Image.new("RGB", (300, 200), "white").save(bomb / "page-1.png")
    write_bomb_png(bomb / "page-2.png")
    documents = write_documents(tmp_path / "documents.jsonl", {"large": large, "bomb": bomb})
    out = tmp_path / "pages"
    render_dataset(documents, out, dpi=100, max_page_pixels=1_500_000)

    (page,) = read_jsonl(out / "pages.jsonl")
    assert page["doc_id"] == "large"
    assert page["width"] * page["height"] <= 1_500_000
    assert page["width"] == 1500
    assert page["dpi"] == 150
    (failure,) = read_failures(out / "failures.jsonl")
    assert failure.doc_id == "bomb"
    assert "page 1 (0-based) image page-2.png" in failure.error
    assert "too large to decode" in failure.error
    assert "max_page_pixels" in failure.fix
