"""Opening a document's PDF, or saying why it cannot be opened and what to do.

The render stage (:mod:`docqa.stages.render`) and the methods that crop from the PDF itself
(DocPilot's zoom) open PDFs here, so an unreadable file gets the same reason and fix everywhere.
"""

from __future__ import annotations

from pathlib import Path

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c

REDOWNLOAD = "re-download it (or fix its path in documents.jsonl)"

# pdfium's reasons for refusing to open a file, as (error, fix).
_LOAD_ERRORS = {
    pdfium_c.FPDF_ERR_FILE: ("the file could not be opened", REDOWNLOAD),
    pdfium_c.FPDF_ERR_FORMAT: (
        "not a valid PDF (corrupt, truncated or another format)",
        REDOWNLOAD,
    ),
    pdfium_c.FPDF_ERR_PASSWORD: (
        "the PDF is encrypted with a password",
        "remove the password (qpdf --decrypt --password=PASSWORD in.pdf out.pdf) "
        "or download an unprotected copy",
    ),
    pdfium_c.FPDF_ERR_SECURITY: (
        "the PDF uses an unsupported encryption handler",
        "remove the encryption (qpdf --decrypt in.pdf out.pdf) or download an unprotected copy",
    ),
}


class BadDocument(Exception):
    """A document that cannot be rendered: ``error`` says why, ``fix`` what to do."""

    def __init__(self, error: str, fix: str) -> None:
        super().__init__(f"{error}; {fix}")
        self.error = error
        self.fix = fix


def open_pdf(path: Path) -> pdfium.PdfDocument:
    """Open a PDF with at least one page, or raise ``BadDocument`` with the reason and fix.

    This calls pdfium's loader directly instead of ``PdfDocument(path)``: pypdfium2 treats a
    document without pages as a load failure and then reports pdfium's last error code, which
    is left over from an earlier document (a stale "incorrect password", for instance).
    """
    if not path.is_file():
        raise BadDocument("the file does not exist", REDOWNLOAD)
    if path.stat().st_size == 0:
        raise BadDocument("the file is empty (0 bytes)", REDOWNLOAD)
    handle = pdfium_c.FPDF_LoadDocument((str(path.resolve()) + "\x00").encode("utf-8"), None)
    if not handle:
        code = pdfium_c.FPDF_GetLastError()
        raise BadDocument(*_LOAD_ERRORS.get(code, (f"pdfium error code {code}", REDOWNLOAD)))
    if pdfium_c.FPDF_GetPageCount(handle) < 1:
        pdfium_c.FPDF_CloseDocument(handle)
        raise BadDocument(
            "the PDF has no pages", "re-download it, or remove it from the dataset if it is empty"
        )
    return pdfium.PdfDocument(handle)
