"""Focus's visual operations: the planner's crops, zooms and splits as page regions, and each
region rendered at a higher dpi.

Boxes are ``[x0, y0, x1, y1]`` in thousandths of the page's width and height, so that a plan
does not depend on the render dpi. A region of a PDF page is rendered from the PDF itself with
pypdfium2 at ``page dpi × zoom`` (new detail, not an enlarged copy); a document given as page
images, or a PDF that cannot be opened any more, has the region cut from the page image and
enlarged. The dpi is capped at ``MAX_DPI`` and lowered until the crop has at most ``MAX_PIXELS``.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pypdfium2 as pdfium
from PIL import Image

from docqa.core.document import Document, Page
from docqa.imaging.pdf import BadDocument, open_pdf

OPERATIONS = ("crop", "zoom", "split")
MAX_ZOOM = 4.0
MAX_SPLIT = 3
MAX_DPI = 600
MAX_PIXELS = 12_000_000
WHOLE_PAGE = (0, 0, 1000, 1000)
MIN_SIDE = 10  # thousandths: a box thinner than 1% of the page is a mistake


@dataclass(frozen=True)
class Region:
    """A page region to look at: ``box`` in thousandths, ``zoom`` over the page dpi, and the
    operation it comes from (``split 2/4`` is the second of four parts)."""

    box: tuple[int, int, int, int]
    zoom: float
    operation: str

    def describe(self) -> str:
        return f"{self.operation} x{self.zoom:g} of {list(self.box)}"


def plan_regions(plan: Any, zoom: float, max_regions: int) -> tuple[list[Region], int]:
    """The regions of a planner's operations (a JSON list, or one object) and how many
    operations were unusable; a box left out means the whole page."""
    operations = plan if isinstance(plan, list) else [plan] if isinstance(plan, dict) else []
    regions: list[Region] = []
    invalid = 0 if operations else 1
    for operation in operations:
        try:
            regions += _regions(operation, zoom)
        except (TypeError, ValueError):
            invalid += 1
    return regions[:max_regions], invalid


def _regions(operation: Any, zoom: float) -> list[Region]:
    if not isinstance(operation, dict) or operation.get("op") not in OPERATIONS:
        raise ValueError(f"not an operation: {operation!r}")
    box = _box(operation.get("box", WHOLE_PAGE))
    kind = operation["op"]
    if kind == "crop":
        return [Region(box, zoom, "crop")]
    if kind == "zoom":
        factor = float(operation.get("factor", zoom))
        return [Region(box, min(max(factor, 1.0), MAX_ZOOM), "zoom")]
    rows, cols = int(operation.get("rows", 1)), int(operation.get("cols", 1))
    if not (1 <= rows <= MAX_SPLIT and 1 <= cols <= MAX_SPLIT) or rows * cols < 2:
        raise ValueError(f"split into {rows} x {cols}")
    x0, y0, x1, y1 = box
    parts: list[Region] = []
    for row in range(rows):
        for col in range(cols):
            part = (
                x0 + (x1 - x0) * col // cols,
                y0 + (y1 - y0) * row // rows,
                x0 + (x1 - x0) * (col + 1) // cols,
                y0 + (y1 - y0) * (row + 1) // rows,
            )
            parts.append(Region(part, zoom, f"split {len(parts) + 1}/{rows * cols}"))
    return parts


def _box(value: Any) -> tuple[int, int, int, int]:
    if not isinstance(value, (list, tuple)) or len(value) != 4:
        raise ValueError(f"a box has four numbers, not {value!r}")
    x0, y0, x1, y1 = (min(max(round(float(v)), 0), 1000) for v in value)
    if x1 - x0 < MIN_SIDE or y1 - y0 < MIN_SIDE:
        raise ValueError(f"empty box {value!r}")
    return x0, y0, x1, y1


def crops_folder(crops_dir: Path, document: Document) -> Path:
    """Where a document's crops go: ``<crops_dir>/<doc_id>-<hash of its path>`` (doc ids
    alone may repeat across datasets)."""
    tag = hashlib.sha256(document.path.encode()).hexdigest()[:8]
    return crops_dir / f"{document.doc_id}-{tag}"


def render_region(source: Path, page: Page, region: Region, folder: Path) -> tuple[Path, int, str]:
    """Write the region as a PNG in ``folder``; returns (path, dpi, ``"pdf"`` or
    ``"page image"``: where its pixels come from)."""
    x0, y0, x1, y1 = region.box
    inches = (page.width / page.dpi * (x1 - x0) / 1000, page.height / page.dpi * (y1 - y0) / 1000)
    dpi = min(MAX_DPI, round(page.dpi * region.zoom))
    dpi = max(1, min(dpi, int(math.sqrt(MAX_PIXELS / max(inches[0] * inches[1], 1e-6)))))
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"p{page.index + 1:03d}_{x0}-{y0}-{x1}-{y1}_{dpi}dpi.png"
    image = _from_pdf(source, page, region.box, dpi) if source.suffix.lower() == ".pdf" else None
    origin = "pdf"
    if image is None:
        image, origin = _from_page_image(page, region.box, dpi), "page image"
    image.save(path)
    return path, dpi, origin


def _from_pdf(
    source: Path, page: Page, box: tuple[int, int, int, int], dpi: int
) -> Image.Image | None:
    """The region rendered from the PDF; None when the PDF cannot be read any more."""
    x0, y0, x1, y1 = box
    # the page's size in PDF points as rendered (rotation included), from the rendered image
    width, height = page.width * 72 / page.dpi, page.height * 72 / page.dpi
    crop = (
        x0 * width / 1000,
        (1000 - y1) * height / 1000,
        (1000 - x1) * width / 1000,
        y0 * height / 1000,
    )
    try:
        with open_pdf(source) as pdf:
            pdf_page = pdf[page.index]
            try:
                return pdf_page.render(scale=dpi / 72, crop=crop).to_pil().convert("RGB")
            finally:
                pdf_page.close()
    except (BadDocument, pdfium.PdfiumError, IndexError, OSError):
        return None


def _from_page_image(page: Page, box: tuple[int, int, int, int], dpi: int) -> Image.Image:
    x0, y0, x1, y1 = box
    with Image.open(page.image) as opened:
        image = opened.convert("RGB")
    cut = image.crop(
        (
            x0 * image.width // 1000,
            y0 * image.height // 1000,
            x1 * image.width // 1000,
            y1 * image.height // 1000,
        )
    )
    scale = dpi / page.dpi
    size = (max(1, round(cut.width * scale)), max(1, round(cut.height * scale)))
    return cut.resize(size, Image.Resampling.LANCZOS)
