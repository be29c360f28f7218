"""Is a page's text layer usable, or must the page be OCRed?

A text layer is not usable when it is empty (a scanned page, a page that is one image), too thin
for a page that holds images (a scan with a stray page number in text), or garbage: a font
without a usable unicode map extracts as private-use, replacement or control characters
(pdfium flags such characters as unicode-map errors), or as a spray of punctuation (a bad OCR
layer a scanner left behind). Every verdict comes with its reason, recorded per page.
"""

from __future__ import annotations

import re
import unicodedata

from docqa.text.pdf_layer import PdfPageText

# Fewer visible characters than this on a page with images: the page is read by OCR.
MIN_CHARS = 20
# Above this share of unmapped or unprintable characters the layer is garbage.
MAX_BAD_SHARE = 0.1
# Below this share of letters and digits among the visible characters the layer is garbage.
MIN_ALNUM_SHARE = 0.5
# ... judged on pages with at least this many characters (a lone "-" or "%" is not garbage).
MIN_SYMBOLS = 4
LEADERS = re.compile(r"([^\w\s])\1{2,}")


def unusable_reason(layer: PdfPageText) -> str:
    """Why the text layer of a page cannot be used ("" when it can)."""
    if layer.chars == 0:
        return "the page has no text layer"
    if layer.chars < MIN_CHARS and layer.images:
        return f"the text layer holds {layer.chars} characters on a page with images"
    if layer.unmapped / layer.chars > MAX_BAD_SHARE:
        return (
            f"{layer.unmapped} of {layer.chars} characters lack a unicode mapping (broken font map)"
        )
    bad = sum(1 for char in layer.text if _unprintable(char))
    if bad / layer.chars > MAX_BAD_SHARE:
        return f"{bad} of {layer.chars} characters are unprintable (broken font map)"
    # dot leaders and rules ("....", "----") are layout, not text: they do not count
    text = LEADERS.sub("", layer.text)
    alnum = sum(1 for char in text if char.isalnum())
    if len(text) >= MIN_SYMBOLS and alnum / len(text) < MIN_ALNUM_SHARE:
        return f"only {alnum} of {len(text)} characters are letters or digits (garbage text)"
    return ""


def _unprintable(char: str) -> bool:
    return char == "\ufffd" or unicodedata.category(char) in {"Co", "Cc", "Cs", "Cn"}
