"""The script a page is written in, and the tesseract language that reads it.

A page that must be OCRed is read with the config's ``text.lang`` (``eng``). A page in another
script (Chinese, Arabic, Cyrillic…) read that way comes back as confident-looking garbage that a
model then answers from. So the script is detected, from the page's text layer when it holds
enough letters of one script (:func:`layer_script`; the layer may still be unusable as text, e.g.
too thin), else by tesseract's orientation and script detection (``--psm 0``, osd.traineddata,
:func:`osd_script`), and the page is read with a language of that script when one is installed
(:func:`installed_languages`). When none is, the page is recorded as unreadable in that script,
naming the Debian/Ubuntu package that would read it (:meth:`Script.package`).

OSD misjudges pages it cannot read well: on the real pages measured (tests/data/real_pdfs) it
calls a dense English Federal Register page "Cyrillic" (script confidence 0.21) and the
``/Rotate 90`` NICS table "Cyrillic" (0.00), while a Chinese page is "Han" (0.50). The OCR
module therefore asks OSD only when the config's language reads the page badly (mean word
confidence under :data:`docqa.text.ocr.LOW_CONFIDENCE`: 92-95 on those English pages, 43 on the
Chinese one, 57 on the rotated table) and believes it from :data:`MIN_OSD_CONFIDENCE` up.
"""

from __future__ import annotations

import functools
import unicodedata
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import pytesseract

#: OSD's script names (and the scripts of Unicode letters) → tesseract languages that read
#: them, the first preferred. Latin is absent: the config's ``text.lang`` reads it.
SCRIPT_LANGUAGES: dict[str, tuple[str, ...]] = {
    "Han": ("chi_sim", "chi_tra"),
    "Japanese": ("jpn",),
    "Korean": ("kor",),
    "Hangul": ("kor",),
    "Cyrillic": ("rus", "ukr", "bul", "srp"),
    "Arabic": ("ara", "fas", "urd"),
    "Greek": ("ell",),
    "Hebrew": ("heb",),
    "Devanagari": ("hin", "mar", "nep"),
    "Bengali": ("ben",),
    "Gurmukhi": ("pan",),
    "Gujarati": ("guj",),
    "Oriya": ("ori",),
    "Tamil": ("tam",),
    "Telugu": ("tel",),
    "Kannada": ("kan",),
    "Malayalam": ("mal",),
    "Sinhala": ("sin",),
    "Thai": ("tha",),
    "Lao": ("lao",),
    "Tibetan": ("bod",),
    "Myanmar": ("mya",),
    "Georgian": ("kat",),
    "Armenian": ("hye",),
    "Ethiopic": ("amh",),
    "Khmer": ("khm",),
}
#: OSD's script confidence from which a non-Latin script is believed (see the module docstring)
MIN_OSD_CONFIDENCE = 0.3
#: letters of one script a text layer must hold to tell the page's script
MIN_LAYER_LETTERS = 10
# the first word of a Unicode character name → the script it belongs to
_UNICODE_SCRIPTS = {
    "CJK": "Han",
    "HIRAGANA": "Japanese",
    "KATAKANA": "Japanese",
    "HANGUL": "Hangul",
    "LATIN": "Latin",
    **{name.upper(): name for name in SCRIPT_LANGUAGES},
}


@dataclass(frozen=True)
class Script:
    """A page's script (OSD's name for it) and where that was seen: ``"tesseract OSD"`` or
    ``"text layer"``."""

    name: str
    seen_in: str

    @property
    def languages(self) -> tuple[str, ...]:
        """The tesseract languages that read the script; none for Latin and unknown scripts."""
        return SCRIPT_LANGUAGES.get(self.name, ())

    def package(self) -> str:
        """The Debian/Ubuntu package of the script's preferred language."""
        return f"tesseract-ocr-{self.languages[0].replace('_', '-')}"

    def read_by(self, lang: str) -> bool:
        """Whether ``lang`` (tesseract's ``-l``, e.g. ``eng`` or ``chi_sim+eng``) reads it."""
        return not self.languages or bool(set(lang.split("+")) & set(self.languages))


@functools.cache
def installed_languages() -> frozenset[str]:
    """The languages the installed tesseract has traineddata for (``tesseract --list-langs``)."""
    return frozenset(pytesseract.get_languages(config=""))


def layer_script(text: str) -> Script | None:
    """The script most letters of a text layer are in, when at least
    :data:`MIN_LAYER_LETTERS` are; None for too few letters or a Latin text. Kana among Han
    characters make it Japanese."""
    scripts: Counter[str] = Counter()
    for char in text:
        if char.isalpha():
            first = unicodedata.name(char, "").split(" ", 1)[0]
            scripts[_UNICODE_SCRIPTS.get(first, "other")] += 1
    if scripts["Han"] and scripts["Japanese"]:
        scripts["Japanese"] += scripts.pop("Han")
    if not scripts:
        return None
    name, count = scripts.most_common(1)[0]
    if count < MIN_LAYER_LETTERS or name not in SCRIPT_LANGUAGES:
        return None
    return Script(name, "text layer")


def osd_script(image: str | Path) -> Script | None:
    """The script tesseract's OSD sees on the page image; None when it cannot tell (too few
    characters, osd.traineddata not installed) or is not sure enough."""
    if "osd" not in installed_languages():
        return None
    try:
        osd = pytesseract.image_to_osd(
            str(image), config="--psm 0", output_type=pytesseract.Output.DICT
        )
    except pytesseract.TesseractError:  # "Too few characters. Skipping this page"
        return None
    if float(osd["script_conf"]) < MIN_OSD_CONFIDENCE:
        return None
    return Script(str(osd["script"]), "tesseract OSD")
