"""What ``docqa ask`` prepares for one document, and the error it shows a user.

:mod:`docqa.ask` prepares documents and asks; :mod:`docqa.ask_set` joins several prepared
documents for one question. Both use these, so neither imports the other's module back.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from docqa.workflow.layout import Layout


class AskError(Exception):
    """A problem the user can fix, shown as one line: what is wrong, and the fix."""


@dataclass
class Prepared:
    """One document made ready to be asked about: its folders, laid out as the DAG's for one
    dataset (``docqa.ask.DATASET``), with the indexes of ``retrievers`` and, when the method
    reads one, the knowledge base of model ``knowledge``."""

    path: Path
    doc_id: str
    files: Layout
    retrievers: list[str]
    knowledge: str | None
    cached: list[str]

    @property
    def cache(self) -> Path:
        return Path(self.files.root)
