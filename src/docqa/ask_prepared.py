"""What ``docqa ask`` prepares for one document, and the error it shows a user.

:mod:`docqa.ask` prepares documents and asks; :mod:`docqa.ask_set` joins several prepared
documents for one question. Both use these, so neither imports the other's module back.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


class AskError(Exception):
    """A problem the user can fix, shown as one line: what is wrong, and the fix."""


@dataclass
class Prepared:
    """One document made ready to be asked about: its cache folder and the files and folders the
    infer stage reads (rendered pages, text, each retriever's indexes, SlideAgent's knowledge)."""

    path: Path
    cache: Path
    doc_id: str
    documents: Path
    pages_dir: Path
    text_dir: Path
    index_dirs: dict[str, Path]
    knowledge: Path | None
    cached: list[str]
