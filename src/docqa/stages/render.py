"""The render stage: documents to page images, thumbnails and overview grids.

A document is a PDF, or a folder of page images (slide decks that benchmarks ship as images:
every file in the folder is a page, in file-name order). PDF pages are rendered with pypdfium2
at the dpi the OCR stage will be told (``--dpi``), so text sizes in pixels match what tesseract
expects. Page images are kept at their own size and converted to PNG; their dpi is the one the
image file records, else :data:`IMAGE_DPI`. A document that cannot be rendered (a page image
that cannot be read included: its page numbers would shift otherwise) is recorded in
``failures.jsonl`` and skipped; the run goes on with the others.

No page is rendered larger than ``max_page_pixels`` (render.max_page_pixels): a PDF page whose
size at the dpi would exceed it is rendered at the lower dpi that fits, decided from its size
in points before anything is allocated (a 20000-point page at 200 dpi would be a 12 GB bitmap);
a larger page image is scaled down. Its ``Page.dpi`` is the resolution it got, and the
document's row in rendered.jsonl lists the scaled pages (``scaled``). A page image too large to
decode at all (over Pillow's decompression-bomb limit) or a page that runs out of memory makes
its document a recorded failure, never a crashed job.
"""

from __future__ import annotations

import logging
import math
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pypdfium2 as pdfium
from PIL import Image, UnidentifiedImageError
from tqdm import tqdm

from docqa.core.document import Document, Page
from docqa.core.failures import Failure, write_failures
from docqa.core.jsonl import read_jsonl, write_jsonl
from docqa.imaging.overview import make_thumbnail, write_overviews
from docqa.imaging.pdf import REDOWNLOAD, BadDocument, open_pdf
from docqa.runtime.checkpoint import Checkpoint, fingerprint

log = logging.getLogger(__name__)

STAGE = "render"
# The dpi of a page image whose file records none: screen resolution, as slides are exported.
IMAGE_DPI = 96
# Most pixels of one rendered page (render.max_page_pixels): 40 M is an A4 page at 600 dpi,
# 160 MB as RGBA while it is rendered.
MAX_PAGE_PIXELS = 40_000_000
TOO_LARGE_FIX = (
    "shrink the page or image (e.g. qpdf or ImageMagick's -resize), or raise "
    "render.max_page_pixels if the machine has the memory"
)


def render_document(
    document: Document,
    out_dir: Path,
    dpi: int,
    thumb_width: int,
    grid: tuple[int, int],
    max_page_pixels: int = MAX_PAGE_PIXELS,
) -> dict[str, Any]:
    """Render one document into ``out_dir/<doc_id>/``; raise ``BadDocument`` on bad input.

    Returns the checkpoint row ``{"doc_id", "pages": [Page dicts], "overviews": [rows]}``,
    plus ``"scaled": [{"page", "from", "to"}]`` (pixel sizes) when pages were scaled down to
    ``max_page_pixels``. Errors writing the outputs are not the document's fault and propagate.
    """
    _check_doc_id(document.doc_id)
    doc_dir = out_dir / document.doc_id
    pages = []
    thumbnails = []
    scaled: list[dict[str, Any]] = []
    source = Path(document.path)
    images = (
        _image_pages(source, max_page_pixels, scaled)
        if source.is_dir()
        else _pdf_pages(source, dpi, max_page_pixels, scaled)
    )
    try:
        for index, (image, page_dpi) in enumerate(images):
            doc_dir.mkdir(parents=True, exist_ok=True)
            image_path = doc_dir / f"page-{index:03d}.png"
            thumb_path = doc_dir / f"thumb-{index:03d}.png"
            image.save(image_path)
            make_thumbnail(image, thumb_width).save(thumb_path)
            thumbnails.append(thumb_path)
            page = Page(
                doc_id=document.doc_id,
                index=index,
                image=str(image_path),
                width=image.width,
                height=image.height,
                dpi=page_dpi,
                thumbnail=str(thumb_path),
            )
            pages.append(page.to_dict())
    except BadDocument:
        shutil.rmtree(doc_dir, ignore_errors=True)  # no half-rendered document is left behind
        raise
    overviews = write_overviews(document.doc_id, thumbnails, doc_dir, grid)
    for note in scaled:
        log.warning(
            "%s: page %d scaled from %dx%d to %dx%d pixels (render.max_page_pixels = %d)",
            document.doc_id,
            note["page"],
            *note["from"],
            *note["to"],
            max_page_pixels,
        )
    row = {"doc_id": document.doc_id, "pages": pages, "overviews": overviews}
    return row | ({"scaled": scaled} if scaled else {})


def _pdf_pages(
    path: Path, dpi: int, max_page_pixels: int, scaled: list[dict[str, Any]]
) -> Iterator[tuple[Image.Image, int]]:
    with open_pdf(path) as pdf:
        for index in range(len(pdf)):
            width, height = pdf.get_page_size(index)  # points, read without rendering
            wanted = (round(width * dpi / 72), round(height * dpi / 72))
            page_dpi = dpi
            if wanted[0] * wanted[1] > max_page_pixels:
                page_dpi = max(1, math.floor(72 * math.sqrt(max_page_pixels / (width * height))))
            image = _render_page(pdf, index, page_dpi)
            if page_dpi != dpi:
                scaled.append({"page": index, "from": list(wanted), "to": list(image.size)})
            yield image, page_dpi


def _image_pages(
    folder: Path, max_page_pixels: int, scaled: list[dict[str, Any]]
) -> Iterator[tuple[Image.Image, int]]:
    """The pages of a folder of page images, in file-name order (``page-2`` before ``page-10``),
    each as an RGB image of at most ``max_page_pixels`` with its dpi."""
    files = sorted(
        (path for path in folder.iterdir() if not path.name.startswith(".")),
        key=_natural_key,
    )
    if not files:
        raise BadDocument("the page folder holds no page image", REDOWNLOAD)
    for index, path in enumerate(files):
        size = (0, 0)
        try:
            with Image.open(path) as opened:
                size = opened.size
                factor = math.sqrt(max_page_pixels / (size[0] * size[1]))
                if factor < 1:  # JPEG decodes straight at a smaller size; others decode whole
                    opened.draft("RGB", (int(size[0] * factor) + 1, int(size[1] * factor) + 1))
                opened.load()
                image = opened.convert("RGB")
                recorded = opened.info.get("dpi")
        except Image.DecompressionBombError as error:
            raise BadDocument(
                f"page {index} (0-based) image {path.name} is too large to decode ({error})",
                TOO_LARGE_FIX,
            ) from None
        except MemoryError:
            raise BadDocument(
                f"page {index} (0-based) image {path.name} ({size[0]}x{size[1]} pixels) ran "
                "out of memory while decoding",
                TOO_LARGE_FIX,
            ) from None
        except (UnidentifiedImageError, OSError, ValueError) as error:
            raise BadDocument(
                f"page {index} (0-based) image {path.name} cannot be read ({error})",
                "re-download the dataset; if the image is broken upstream, the document is skipped",
            ) from None
        if image.width * image.height > max_page_pixels:
            ratio = math.sqrt(max_page_pixels / (image.width * image.height))
            target = (max(1, int(image.width * ratio)), max(1, int(image.height * ratio)))
            image = image.resize(target, Image.Resampling.LANCZOS)
        page_dpi = _image_dpi(recorded)
        if image.size != size:  # scaled down (by the JPEG draft, the resize or both)
            scaled.append({"page": index, "from": list(size), "to": list(image.size)})
            page_dpi = max(1, round(page_dpi * image.width / size[0]))
        yield image, page_dpi


def _image_dpi(recorded: Any) -> int:
    try:
        dpi = round(float(recorded[0]))
    except (TypeError, ValueError, IndexError):
        return IMAGE_DPI
    return dpi if 50 <= dpi <= 1200 else IMAGE_DPI


def _natural_key(path: Path) -> list[Any]:
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", path.name)]


def render_dataset(
    documents: Path,
    out_dir: Path,
    dpi: int = 200,
    thumb_width: int = 256,
    grid: tuple[int, int] = (4, 3),
    max_page_pixels: int = MAX_PAGE_PIXELS,
) -> None:
    """Render every document of ``documents`` (a documents.jsonl) into ``out_dir``.

    Writes per document ``<doc_id>/page-000.png …``, ``thumb-000.png …`` and
    ``overview-00.png …`` (``grid`` = columns x rows pages per overview image), and for the
    dataset ``pages.jsonl`` (Page rows), ``overviews.jsonl`` (``{"doc_id", "image", "pages"}``),
    ``failures.jsonl`` (always; empty when all rendered) and ``rendered.jsonl`` (one row per
    document: its pages and overviews, or its failure). Rows follow the order of
    ``documents``. The job is resumable per document: a rerun after a kill keeps the documents
    already done. ``Page.index`` and the overview rows' ``pages`` are 0-based; the labels drawn
    on the overview images are 1-based ("p. 1" is page index 0).

    A relative ``Document.path`` is read relative to the working directory (the workflow root).
    """
    documents, out_dir = Path(documents), Path(out_dir)
    docs = _read_documents(documents)
    settings = {"dpi": dpi, "thumb_width": thumb_width, "grid": list(grid)}
    if max_page_pixels != MAX_PAGE_PIXELS:  # a partial file of the default settings stays valid
        settings["max_page_pixels"] = max_page_pixels
    job = fingerprint({"stage": STAGE, **settings}, documents)
    checkpoint = Checkpoint(out_dir / "rendered.jsonl", job, key="doc_id")
    try:
        for document in tqdm(docs, desc=f"render {documents}", unit="doc"):
            if checkpoint.done(document.doc_id):
                continue
            try:
                row = render_document(document, out_dir, dpi, thumb_width, grid, max_page_pixels)
            except BadDocument as bad:
                failure = Failure(
                    stage=STAGE,
                    doc_id=document.doc_id,
                    path=document.path,
                    error=bad.error,
                    fix=bad.fix,
                )
                log.warning("skipped %s", failure.describe())
                row = {"doc_id": document.doc_id, "failure": failure.to_dict()}
            checkpoint.append(row)
        rows = checkpoint.finish(document.doc_id for document in docs)
    finally:
        checkpoint.close()
    write_jsonl(out_dir / "pages.jsonl", (page for row in rows for page in row.get("pages", [])))
    write_jsonl(out_dir / "overviews.jsonl", (o for row in rows for o in row.get("overviews", [])))
    failures = [Failure.from_dict(row["failure"]) for row in rows if "failure" in row]
    write_failures(out_dir / "failures.jsonl", failures)
    log.info(
        "rendered %d of %d documents into %s; %d failed (listed in failures.jsonl)",
        len(rows) - len(failures),
        len(rows),
        out_dir,
        len(failures),
    )


def _render_page(pdf: pdfium.PdfDocument, index: int, dpi: int) -> Image.Image:
    try:
        page = pdf[index]
        try:
            return page.render(scale=dpi / 72).to_pil()
        finally:
            page.close()
    except MemoryError:
        raise BadDocument(
            f"page {index} (0-based) ran out of memory while rendering at {dpi} dpi",
            TOO_LARGE_FIX,
        ) from None
    except pdfium.PdfiumError as error:
        raise BadDocument(
            f"page {index} (0-based) could not be rendered ({error})",
            "re-download it; if that does not help, repair the PDF (qpdf in.pdf out.pdf)",
        ) from None


def _check_doc_id(doc_id: str) -> None:
    """Document ids name directories: refuse ids that would write outside ``out_dir``."""
    if not doc_id or doc_id in {".", ".."} or "/" in doc_id or "\\" in doc_id:
        raise BadDocument(
            f"document id {doc_id!r} is not usable as a directory name",
            "give the document an id without path separators in its dataset adapter",
        )


def _read_documents(documents: Path) -> list[Document]:
    docs = [Document.from_dict(row) for row in read_jsonl(documents)]
    seen: set[str] = set()
    for document in docs:
        if document.doc_id in seen:
            raise ValueError(
                f"{documents}: doc_id {document.doc_id!r} appears twice; "
                "ids must be unique, fix the dataset adapter that wrote this file"
            )
        seen.add(document.doc_id)
    return docs
